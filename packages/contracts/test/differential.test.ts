// The same transaction must give the same result on every validator, whatever its stack size or what its
// runtime ran before (docs/contracts.md §13). A seeded corpus of hostile programs (corpus/generator.ts) runs on
// two contract workers set up differently; code, exception, steps, stack and memory models, return value and
// every host call must be identical. CHAINSIM_CORPUS_SIZE and CHAINSIM_CORPUS_SEED change the corpus.
import { expect } from "chai";
import { BuiltinError, ContractFailure, ContractWorkerRuntime, DEFAULT_CONTRACT_LIMITS, type ContractHost, type ExecutionRequest } from "../src/index.js";
import { generateCorpus, type Program } from "./corpus/generator.js";

const SIZE = Number(process.env.CHAINSIM_CORPUS_SIZE ?? 300);
const SEED = Number(process.env.CHAINSIM_CORPUS_SEED ?? 20261124);

const ENV = {
  thisAddress: "did:bid:efContract",
  block: { timestamp: 1_700_000_000_000_000, number: 42 },
  tx: { initiator: "did:bid:efUser", sender: "did:bid:efUser", gasPrice: "100", hash: "ab".repeat(32), feeLimit: "100000000" },
  msg: { initiator: "did:bid:efUser", sender: "did:bid:efUser", nonce: 7, operationIndex: 0, coinAmount: "0" },
};

/** A chain of one contract account in memory, logging every host call it answers. */
function memoryHost(calls: string[]): ContractHost {
  const metadata = new Map<string, string>();
  return {
    call: async (name, args) => {
      calls.push(`${name} ${JSON.stringify(args).slice(0, 300)}`);
      switch (name) {
        case "store":
          metadata.set(String(args[0]), String(args[1]));
          return true;
        case "load":
          return metadata.get(String(args[0])) ?? false;
        case "del":
          return metadata.delete(String(args[0]));
        case "getBalance":
          return "1000";
        case "tlog":
          return true;
      }
      throw new BuiltinError(`${name} is not available here`);
    },
  };
}

/** Everything about a run that must not depend on the validator. */
async function outcome(runtime: ContractWorkerRuntime, program: Program): Promise<unknown> {
  const calls: string[] = [];
  const logs: number[] = [];
  const request: ExecutionRequest = {
    code: program.code,
    entry: "main",
    input: "in",
    env: ENV,
    language: "javascript",
    readOnly: false,
    depth: 0,
    host: memoryHost(calls),
    meter: { used: 0, limit: DEFAULT_CONTRACT_LIMITS.steps, exhausted: false },
    deadline: performance.now() + DEFAULT_CONTRACT_LIMITS.timeMs,
    log: (text) => logs.push(text.length),
  };
  try {
    const run = await runtime.execute(request);
    return { value: run.value, steps: request.meter.used, stack: run.stackUsage, memory: run.memoryUsage, calls, logs };
  } catch (error) {
    if (!(error instanceof ContractFailure)) throw error;
    return { code: error.code, exception: error.exception, linenum: error.linenum, stack: error.contractStack, steps: request.meter.used, calls, logs };
  }
}

describe(`differential: ${SIZE} hostile programs (seed ${SEED}) on two differently set-up workers`, function () {
  this.timeout(600_000);
  const programs = generateCorpus(SEED, SIZE);
  // A: a fresh worker with 64 MiB of isolate stack. B: 24 MiB, and a history of other runs first.
  const roomy = new ContractWorkerRuntime(DEFAULT_CONTRACT_LIMITS, { stackKiB: 65536 });
  const used = new ContractWorkerRuntime(DEFAULT_CONTRACT_LIMITS, { stackKiB: 24576 });
  after(() => {
    roomy.dispose();
    used.dispose();
  });

  before(async () => {
    for (const junk of generateCorpus(SEED + 1, 50)) await outcome(used, junk);
  });

  it("gives identical results, steps, models and host calls for every program, never ending one on the clock or V8's limits", async () => {
    const differences: string[] = [];
    const guardsHit: string[] = [];
    const kinds = new Map<string, number>();
    for (const program of programs) {
      const [a, b] = [await outcome(roomy, program), await outcome(used, program)];
      if (JSON.stringify(a) !== JSON.stringify(b)) differences.push(`${program.name}\n  A: ${JSON.stringify(a).slice(0, 400)}\n  B: ${JSON.stringify(b).slice(0, 400)}`);
      const exception = (a as { exception?: string }).exception;
      if (exception === "Time expired" || exception?.includes("(engine)")) guardsHit.push(`${program.name}: ${exception}`);
      const kind = "code" in (a as object) ? `${(a as { code: number }).code} ${(a as { exception: string }).exception.slice(0, 40)}` : "success";
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    // The corpus must exercise the limits, not only succeed: show what it hit.
    console.log(`      outcomes: ${[...kinds].map(([k, n]) => `${k} ×${n}`).join(", ")}`);
    expect(differences, differences.slice(0, 5).join("\n")).to.deep.equal([]);
    expect(guardsHit).to.deep.equal([]);
    expect([...kinds.keys()].some((k) => k.startsWith("155 Stack"))).to.equal(true);
    expect([...kinds.keys()].some((k) => k.startsWith("155 Memory"))).to.equal(true);
    expect([...kinds.keys()].some((k) => k.startsWith("155 Step"))).to.equal(true);
    expect(kinds.get("success") ?? 0).to.be.above(SIZE / 10);
  });
});
