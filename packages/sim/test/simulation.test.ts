import { expect } from "chai";
import { readFile } from "node:fs/promises";
import { METADATA, type ValidatorCore } from "@chainsim/node";
import { codecs, ContractType, toHex } from "@chainsim/protocol";
import type { SimFault } from "../src/faults.js";
import { shrink } from "../src/shrink.js";
import { simulate, type SimulationOptions, type SimulationResult } from "../src/simulation.js";
import { testNetwork } from "./network.js";

/** The first of seeds `from`.. that fails, within `tries`; undefined when every one passed. */
async function firstFailing(options: Omit<SimulationOptions, "seed">, tries: number, from = 1): Promise<SimulationResult | undefined> {
  for (let seed = from; seed < from + tries; seed++) {
    const result = await simulate({ ...options, seed });
    if (!result.ok) return result;
  }
  return undefined;
}

const network = testNetwork(4);

describe("whole-network simulation", function () {
  this.timeout(300_000);

  it("runs four validators without faults: every invariant holds", async () => {
    const result = await simulate({ ...network, seed: 1, durationMs: 10_000, faultKinds: [] });
    expect(result.failures).to.deep.equal([]);
    expect(result.ledgers).to.be.above(3);
    expect(result.accepted).to.be.above(10);
  });

  it("deploys and calls a JavaScript and a WebAssembly contract, each run on every validator alike", async () => {
    const cores: ValidatorCore[] = [];
    const result = await simulate({ ...network, seed: 2, durationMs: 10_000, faultKinds: [], plant: { node: "v3", bug: (core) => cores.push(core) } });
    expect(result.failures).to.deep.equal([]);
    const core = cores.at(-1)!;
    const deployed = new Map<ContractType, string>();
    for (let seq = 1n; seq <= core.ledgers.lastHeader.seq!; seq++) {
      for (const hash of (await core.ledgers.ledgers.ledger(seq))!.tx_hashes ?? []) {
        const record = (await core.ledgers.ledgers.record(toHex(hash)))!;
        const contract = codecs.Transaction.decode(record.transaction_env!.transaction!).operations?.[0]?.create_account?.contract;
        if (contract && (record.error_code ?? 0) === 0) deployed.set(contract.type ?? ContractType.JAVASCRIPT, (JSON.parse(record.error_desc!) as { contract_address: string }[])[0]!.contract_address);
      }
    }
    const metadata = async (type: ContractType, key: string) => (await core.ledgers.accounts.entry(METADATA, deployed.get(type)!, key))?.value;
    expect(Number(await metadata(ContractType.JAVASCRIPT, "count"))).to.be.above(0);
    const last = await metadata(ContractType.WASM, "last");
    expect(last).to.match(/^\d+$/); // the virtual ms of the last call
    expect(await metadata(ContractType.WASM, "copy")).to.equal(last);
    expect(await metadata(ContractType.WASM, "tx")).to.match(/^[0-9a-f]{64}$/);
  });

  it("gives the same trace hash for the same seed, also with other work running in the process", async () => {
    const options = { ...network, seed: 11, durationMs: 12_000 };
    const quiet = await simulate(options);
    // timers, promise chains and file reads interleaving with the run: nothing of theirs may leak into it
    let busy = true;
    const noise = (async () => {
      while (busy) {
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
        await readFile(new URL(import.meta.url));
        for (let i = 0; i < 1000 * Math.random(); i++) await Promise.resolve();
      }
    })();
    const noisy = await simulate(options).finally(() => (busy = false));
    await noise;
    expect(quiet.faults.length, "the seed draws faults").to.be.above(0);
    expect(noisy.trace_hash).to.equal(quiet.trace_hash);
    expect(noisy.events).to.equal(quiet.events);
    const other = await simulate({ ...options, seed: 12 });
    expect(other.trace_hash).to.not.equal(quiet.trace_hash);
  });

  it("catches the unsafe quorum: agreement fails under partitions", async () => {
    const failing = await firstFailing({ ...network, durationMs: 25_000, unsafeQuorum: 2, faultKinds: ["partition"] }, 10);
    expect(failing, "no seed of 10 failed").to.not.equal(undefined);
    expect(failing!.failures.map((f) => f.invariant)).to.include("agreement");
    console.log(`      seed ${failing!.seed}: ${failing!.failures[0]!.detail}`);
  });

  it("catches an execution difference on one validator: agreement fails", async () => {
    // v2 computes fees with another base reserve: its ledgers' fees_hash, so their hashes, differ
    const bug = (core: ValidatorCore) => void ((core.ledgers.params as { baseReserve: bigint }).baseReserve += 1n);
    const result = await simulate({ ...network, seed: 1, durationMs: 8_000, faultKinds: [], plant: { node: "v2", bug } });
    expect(result.failures.map((f) => f.invariant)).to.include("agreement");
    expect(result.failures.find((f) => f.invariant === "agreement")!.detail).to.match(/v2 stored/);
  });

  it("catches a validator that does not follow a decided ledger: it never catches up, and it keeps running", async () => {
    // v2 believes in a higher minimum gas price: every decided ledger's transactions are invalid to it
    const bug = (core: ValidatorCore) => void ((core.ledgers.params as { gasPrice: bigint }).gasPrice += 1n);
    const result = await simulate({ ...network, seed: 1, durationMs: 8_000, drainMs: 8_000, faultKinds: [], plant: { node: "v2", bug } });
    expect(result.failures.map((f) => f.invariant)).to.deep.equal(["caught_up"]);
  });

  it("catches a validator that sends votes before persisting them: under kills it signs two values for one slot", async () => {
    const bug = (core: ValidatorCore) => {
      const outbound = (core.consensus as unknown as { outbound: { parts: { save: () => Promise<void> } } }).outbound;
      outbound.parts.save = async () => {};
    };
    // v1 killed for 100 ms every 600 ms: many crashes between a vote sent and the next one. Kills drawn from
    // the seed hit v1 at such a moment too, but seldom (1 seed of 40 in a test run): too rare for a test.
    const schedule: SimFault[] = Array.from({ length: 30 }, (_, i) => ({ at_ms: 1_000 + i * 600, node: "v1", kind: "kill", duration_ms: 100 }));
    const options = { ...network, durationMs: 20_000, schedule };
    const failing = await firstFailing({ ...options, plant: { node: "v1", bug } }, 12);
    expect(failing, "no seed of 12 failed").to.not.equal(undefined);
    expect(failing!.failures.map((f) => f.invariant)).to.include("conduct");
    console.log(`      seed ${failing!.seed}: ${failing!.failures[0]!.detail}`);
    expect((await simulate({ ...options, seed: failing!.seed })).failures, "the same schedule without the bug").to.deep.equal([]);
  });

  it("catches a validator that stays stalled after its restart, though a later fault on another one healed since", async () => {
    // v1 neither votes nor syncs for 25 s after its restart: the liveness check after v2's heal owes its progress
    let starts = 0;
    const bug = (core: ValidatorCore) => {
      if (++starts < 2) return;
      type Stalled = Record<string, (...args: unknown[]) => unknown>;
      const consensus = core.consensus as unknown as Stalled & { now(): number; ledgerSync: Stalled };
      const until = consensus.now() + 25_000;
      const hold = (target: Stalled, method: string) => {
        const real = target[method]!.bind(target);
        target[method] = (...args) => (consensus.now() < until ? undefined : real(...args));
      };
      hold(consensus, "handle");
      hold(consensus, "onConsensusMessage");
      hold(consensus.ledgerSync, "sync");
      hold(consensus.ledgerSync, "considerSync");
    };
    const schedule: SimFault[] = [
      { at_ms: 3_000, node: "v1", kind: "kill", duration_ms: 500 },
      { at_ms: 14_000, node: "v2", kind: "kill", duration_ms: 500 },
    ];
    const result = await simulate({ ...network, seed: 1, durationMs: 20_000, schedule, plant: { node: "v1", bug } });
    expect(result.failures.map((f) => f.invariant)).to.include("liveness");
    expect((await simulate({ ...network, seed: 1, durationMs: 20_000, schedule })).failures, "the same schedule without the bug").to.deep.equal([]);
  });

  it("shrinks a failing seed's schedule to fewer or shorter faults that still fail the same way", async () => {
    const options = { ...network, durationMs: 25_000, unsafeQuorum: 2, faultKinds: ["partition"] as const };
    const failing = (await firstFailing(options, 10))!;
    const smallest = await shrink({ ...options, seed: failing.seed }, failing);
    expect(smallest.ok).to.equal(false);
    expect(smallest.failures[0]!.invariant).to.equal(failing.failures[0]!.invariant);
    expect(smallest.schedule.length).to.be.at.most(failing.schedule.length);
    const total = (r: SimulationResult) => r.schedule.reduce((sum, f) => sum + f.duration_ms, 0);
    expect(total(smallest)).to.be.below(total(failing) + 1);
    console.log(`      ${failing.faults.join("; ")}  ->  ${smallest.faults.join("; ")}`);
  });
});
