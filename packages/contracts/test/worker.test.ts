// Contracts in a child process: a dead worker costs the runs it had (155), never the validator.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { getPriority, tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { BuiltinError, ContractWorkerRuntime, GuardTripped, DEFAULT_CONTRACT_LIMITS, type ContractHost, type ExecutionRequest } from "../src/index.js";
import { instrumentContract } from "../src/validate.js";
import { failure, testRequest } from "./runs.js";

function request(code: string, host: ContractHost, overrides: Partial<ExecutionRequest> = {}): ExecutionRequest {
  return testRequest(code, "javascript", host, { input: "in", ...overrides });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};


describe("ContractWorkerRuntime: contracts in a child process", function () {
  this.timeout(30_000);
  let runtime: ContractWorkerRuntime;
  const store = new Map<string, string>();
  const host: ContractHost = {
    call: async (name, args) => {
      if (name === "store") return store.set(String(args[0]), String(args[1])) && true;
      if (name === "load") return store.get(String(args[0])) ?? false;
      throw new BuiltinError(`no ${name} here`);
    },
  };
  beforeEach(() => (runtime = new ContractWorkerRuntime(DEFAULT_CONTRACT_LIMITS)));
  afterEach(() => runtime.dispose());

  it("runs a contract with host calls and logs, counting steps as in-process", async () => {
    const lines: string[] = [];
    const req = request(`function main(i) { Chain.store("k", i); Utils.log("hi"); return Chain.load("k") + "!"; }`, host, { log: (t) => lines.push(t) });
    const outcome = await runtime.execute(req);
    expect(outcome.value).to.equal("in!");
    expect(req.meter.used).to.equal(1 + 3 * 100);
    expect(lines).to.deep.equal(["hi"]);
    const thrown = await failure(runtime.execute(request(`function main() {\n  Chain.getBalance(1, 2, 3); throw new Error("boom"); }`, host)));
    expect([thrown.code, thrown.exception, thrown.linenum]).to.deep.equal([151, "Error: boom", 2]);
  });

  it("shares one step budget with nested runs started by a host call, as in-process", async () => {
    const nested: ContractHost = {
      call: async (name) => {
        if (name !== "contractCall") return false;
        const inner = await runtime.execute(request(`function main() { for (let i = 0; i < 50; i++) {} return "inner"; }`, host, { meter: outer.meter, depth: 1 }));
        return inner.value;
      },
    };
    const outer = request(`function main() { return Chain.contractCall("did:bid:b", true, "0", "") + "/" + Chain.load("x"); }`, nested);
    // contractCall and load are built-ins (100 each, load answered false here); the inner run: 1 + 50 steps.
    expect((await runtime.execute(outer)).value).to.equal("inner/false");
    expect(outer.meter.used).to.equal(1 + 100 + 51 + 100);
  });

  it("fails the runs of a worker that dies with a guard trip (155 Memory exceeding limit (engine)), and serves the next run with a new worker", async () => {
    await runtime.execute(request(`function main() {}`, host)); // the worker is up
    const long = request(`function main() { for (;;) {} }`, host, { meter: { used: 0, limit: 1e12, exhausted: false } });
    const running = runtime.execute(long);
    const first = runtime.pid!;
    process.kill(first, "SIGKILL");
    const died = await failure(running);
    expect([died.code, died.exception]).to.deep.equal([155, "Memory exceeding limit (engine)"]);
    expect(died).to.be.instanceOf(GuardTripped);
    expect((await runtime.execute(request(`function main() { return "again"; }`, host))).value).to.equal("again");
    expect(runtime.pid).to.not.equal(first);
  });

  it("answers the one-request crash of the issue (new Array(5e7).fill(0) in a query) and keeps serving", async () => {
    const code = `function query(i){ try { return String(new Array(5e7).fill(0).length) } catch(e) { return String(e) } }`;
    const answer = await failure(runtime.execute(request(code, host, { entry: "query", readOnly: true })));
    expect([answer.code, answer.exception]).to.deep.equal([155, "Memory exceeding limit"]);
    expect((await runtime.execute(request(`function main() { return "alive"; }`, host))).value).to.equal("alive");
  });

  it("does not count the wait for a starting worker against the clock guard", async () => {
    const fresh = new ContractWorkerRuntime(DEFAULT_CONTRACT_LIMITS); // its start takes far longer than 50 ms
    try {
      // A few milliseconds of work, well within the steps and the 100 ms given.
      const quick = request(`function main() { const a = Array(2000).fill(7); return String(JSON.stringify(a).length); }`, host, { deadline: performance.now() + 100 });
      expect((await fresh.execute(quick)).value).to.equal(String(2 * 2000 + 1));
    } finally {
      fresh.dispose();
    }
  });

  /** A source of about 250 KB, new to the worker (`tag`), that takes chainsim far longer to instrument than V8 to compile and run. */
  const large = (tag: string) =>
    `function main() { let n = 0; for (let i = 0; i < 3; i++) n += JSON.stringify(Array(2000).fill(7)).length; return String(n); } function never(o, k) { /* ${tag} */ ${"o[k] = o[k];".repeat(20_000)} }`;

  it("does not count preparing a contract's code (instrumenting it, on a cache miss) against the clock guard", async () => {
    await runtime.execute(request(`function main() {}`, host)); // the worker is up
    // The clock given is half of what instrumenting such a source takes here: counted, it would have expired.
    const started = performance.now();
    instrumentContract(large(`${Math.random()}`), DEFAULT_CONTRACT_LIMITS);
    const clockMs = (performance.now() - started) / 2;
    const uncounted: number[] = [];
    const run = request(large(`${Math.random()}`), host, { deadline: performance.now() + clockMs, uncounted: (ms) => uncounted.push(ms) });
    expect((await runtime.execute(run)).value).to.equal(String(3 * 4001));
    // The transaction's clock moves by what the worker says preparing took: instrumenting, then compiling.
    expect(uncounted).to.have.length(2);
    expect(Math.min(...uncounted)).to.be.greaterThan(0);
  });

  it("does not count a nested run's preparing against the calling run's clock either (its isolate waits in a host call)", async () => {
    await runtime.execute(request(`function main() {}`, host)); // the worker is up
    // As the validator does (engine.ts): one clock for the transaction, moved by what preparing took. 1 s is
    // less than instrumenting the two nested sources takes (about 1.5 s each here, 3 s together), and leaves
    // the run itself room on a loaded machine (100 ms tripped there: its host round trips are not preparing).
    let deadline = performance.now() + 1000;
    const calling: ContractHost = {
      call: async (name) => {
        if (name !== "contractCall") return false;
        const nested = request(large(`${Math.random()}`), host, { meter: outer.meter, depth: 1, deadline, uncounted: (ms) => (deadline += ms) });
        return (await runtime.execute(nested)).value;
      },
    };
    const call = `Chain.contractCall("did:bid:b", true, "0", "")`;
    const outer = request(`function main() { let n = 0; for (let i = 0; i < 1000; i++) n += i; return ${call} + "/" + ${call} + "/" + n; }`, calling, { deadline, meter: { used: 0, limit: 1e9, exhausted: false } });
    expect((await runtime.execute(outer)).value).to.equal(`${3 * 4001}/${3 * 4001}/499500`);
  });

  it("keeps metered texts on disk when asked: a new worker prepares a stored contract's code without instrumenting it, a damaged file is instrumented again, a read-only store adds nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "chainsim-metered-"));
    const stored = () => readdirSync(dir, { recursive: true, withFileTypes: true }).flatMap((entry) => (entry.isFile() ? [join(entry.parentPath, entry.name)] : []));
    /** The run's result, and how many times its code was prepared with the clocks stopped (instrumenting, compiling). */
    const runOn = async (writable: boolean, source: string) => {
      const worker = new ContractWorkerRuntime(DEFAULT_CONTRACT_LIMITS, { metered: { dir, writable } });
      try {
        const uncounted: number[] = [];
        const outcome = await worker.execute(request(source, host, { uncounted: (ms) => uncounted.push(ms) }));
        return [outcome.value, uncounted.length];
      } finally {
        worker.dispose();
      }
    };
    try {
      const deployed = large(`${Math.random()}`);
      const writer = new ContractWorkerRuntime(DEFAULT_CONTRACT_LIMITS, { metered: { dir, writable: true } });
      try {
        await writer.validate(deployed, "javascript");
      } finally {
        writer.dispose();
      }
      expect(stored()).to.have.length(1);
      // Compiling the long metered text still stops the clocks (1); instrumenting it is not needed.
      expect(await runOn(false, deployed)).to.deep.equal([String(3 * 4001), 1]);
      // A query's code, new to the store, is instrumented (2) and not added by a read-only store.
      expect(await runOn(false, large(`${Math.random()}`))).to.deep.equal([String(3 * 4001), 2]);
      expect(stored()).to.have.length(1);
      const [file] = stored();
      const bytes = readFileSync(file!);
      bytes[bytes.length - 10] ^= 1;
      writeFileSync(file!, bytes);
      expect(await runOn(true, deployed)).to.deep.equal([String(3 * 4001), 2]);
      // Instrumented again, it was stored whole again.
      expect(await runOn(false, deployed)).to.deep.equal([String(3 * 4001), 1]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("checks code in the worker: the caller's event loop turns meanwhile, and a refusal arrives as the ContractFailure it is", async () => {
    await runtime.execute(request(`function main() {}`, host));
    let turns = 0;
    const timer = setInterval(() => turns++, 0);
    try {
      await runtime.validate(large(`${Math.random()}`), "javascript");
    } finally {
      clearInterval(timer);
    }
    expect(turns).to.be.greaterThan(0);
    const refused = await failure(runtime.validate("function main() { with (o) {} }", "javascript"));
    expect(refused.code).to.equal(152);
    expect(refused.exception).to.match(/^'with' statement is not allowed in contracts/);
    const tooLarge = await failure(runtime.validate("x".repeat(DEFAULT_CONTRACT_LIMITS.codeBytes + 1), "javascript"));
    expect([tooLarge.code, tooLarge.exception]).to.deep.equal([155, "Contract code is too large"]);
    // 180 KB of arrows nested 30 deep would be 6 MB of metered text, compiled by V8 in every run.
    const arrows = await failure(runtime.validate(`function main() { return [${("x=>".repeat(30) + "0,").repeat(2000)}0]; }`, "javascript"));
    expect(arrows.code).to.equal(152);
    expect(arrows.exception).to.match(/^SyntaxError: Contract code would be \d+ characters metered, more than \d+: write fewer, larger functions$/);
  });

  // Limits so loose that the models cannot stop what follows: the guards themselves are what is tested.
  const unmetered = { ...DEFAULT_CONTRACT_LIMITS, sizeUnit: 2 ** 60, stackBytes: 2 ** 40, memoryBytes: 2 ** 40 };

  it("kills a worker stuck in native code past the clock (a generic shift over a huge length, unmetered): Time expired, a guard trip, and the next run is served", async () => {
    const loose = new ContractWorkerRuntime(unmetered);
    try {
      await loose.execute(request(`function main() { return "warm"; }`, host));
      // A refused source first (callContract's code is not checked before it runs): its preparing must not
      // leave the clock stopped for the runs after it.
      expect((await failure(loose.execute(request(`function main() { with (o) {} } // ${Math.random()}`, host)))).code).to.equal(152);
      const stuckPid = loose.pid!;
      const stuck = request(`function main() { const o = { length: 9007199254740991 }; o[9007199254740990] = 1; Array.prototype.shift.call(o); return "done"; }`, host, { deadline: performance.now() + 200 });
      const started = performance.now();
      const error = await failure(loose.execute(stuck));
      expect(error).to.be.instanceOf(GuardTripped);
      expect(error.exception).to.equal("Time expired");
      expect(performance.now() - started).to.be.below(10_000);
      const deadline = Date.now() + 5_000;
      while (alive(stuckPid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(alive(stuckPid), "the stuck worker is gone").to.equal(false);
      expect((await loose.execute(request(`function main() { return "after"; }`, host))).value).to.equal("after");
    } finally {
      loose.dispose();
    }
  });

  it("with the default limits, the same shift is charged by its length and ends on the step limit (recorded, not a guard trip)", async () => {
    const code = `function main() { const o = { length: 9007199254740991 }; o[9007199254740990] = 1; Array.prototype.shift.call(o); return "done"; }`;
    const error = await failure(runtime.execute(request(code, host)));
    expect(error).to.not.be.instanceOf(GuardTripped);
    expect([error.code, error.exception]).to.deep.equal([155, "Step exceeding limit"]);
  });

  it("lets no contract drop V8's own stack overflow (reached with an unmetered stack): a finally that returns still ends the run on a guard trip", async () => {
    const loose = new ContractWorkerRuntime(unmetered);
    try {
      const code = `function main() {
        let r = "overflow";
        // 400 locals make each real frame several KiB, so V8's stack ends before the model's 65,536 frames.
        function deeper(n) { ${Array.from({ length: 400 }, (_, i) => `let v${i} = n + ${i};`).join(" ")} return n === 0 ? v1 : v2 + deeper(n - 1); }
        try { r = "ok:" + deeper(1e7); } finally { return r; }
      }`;
      const error = await failure(loose.execute(request(code, host, { meter: { used: 0, limit: 1e12, exhausted: false } })));
      expect(error).to.be.instanceOf(GuardTripped);
      expect(error.exception).to.equal("Stack exceeding limit (engine)");
    } finally {
      loose.dispose();
    }
  });

  it("lets no native drop V8's own stack overflow either: a thrown error's name getter read for the failure record, an iterator's return while V8 closes a loop", async () => {
    const loose = new ContractWorkerRuntime(unmetered);
    try {
      // As above, 400 locals a frame: V8's stack ends before the model's frames do.
      const deeper = `function deeper(n) { ${Array.from({ length: 400 }, (_, i) => `let v${i} = n + ${i};`).join(" ")} return n === 0 ? v1 : v2 + deeper(n - 1); }`;
      const shapes = [
        `function f() { const e = new Error("x"); Object.defineProperty(e, "name", { get() { deeper(1e7); return "N"; } }); throw e; }`,
        `function f() { const it = { [Symbol.iterator]() { return this; }, next() { return { done: false, value: 1 }; }, return() { deeper(1e7); return {}; } }; try { for (const x of it) throw 1; } catch (e) {} return 0; }`,
      ];
      for (const shape of shapes) {
        const code = `function main() { ${deeper} ${shape} return "ok:" + f(); }`;
        const error = await failure(loose.execute(request(code, host, { meter: { used: 0, limit: 1e12, exhausted: false } })));
        expect(error, shape).to.be.instanceOf(GuardTripped);
        expect(error.exception, shape).to.equal("Stack exceeding limit (engine)");
      }
    } finally {
      loose.dispose();
    }
  });

  it("cannot be fooled into a guard trip: a contract's own RangeError with V8's overflow message is an ordinary exception", async () => {
    const forgeries = [
      `throw new RangeError("Maximum call stack size exceeded")`,
      `throw Object.create(RangeError.prototype, { message: { value: "Maximum call stack size exceeded", writable: true, configurable: true } })`,
      `let e; try { null.x } catch (t) { e = t; } Object.setPrototypeOf(e, RangeError.prototype); e.message = "Maximum call stack size exceeded"; throw e`,
      `class E extends RangeError {} throw new E("Maximum call stack size exceeded")`,
      `throw Reflect.construct(Object.getPrototypeOf(RangeError), ["Maximum call stack size exceeded"], RangeError)`,
    ];
    for (const forgery of forgeries) {
      const caught = `function main() { try { ${forgery}; } catch (e) { return "caught " + e.message; } }`;
      expect((await runtime.execute(request(caught, host))).value, forgery).to.equal("caught Maximum call stack size exceeded");
      const thrown = await failure(runtime.execute(request(`function main() { ${forgery}; }`, host)));
      expect(thrown, forgery).to.not.be.instanceOf(GuardTripped);
      expect(thrown.code, forgery).to.equal(151);
    }
  });

  it("leaves no worker behind after dispose", async () => {
    await runtime.execute(request(`function main() { return "x"; }`, host));
    const pid = runtime.pid!;
    expect(alive(pid)).to.equal(true);
    runtime.dispose();
    const deadline = Date.now() + 5_000;
    while (alive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(alive(pid)).to.equal(false);
  });

  it("runs its worker at the nice value asked (a worker of queries yields the CPU to the one of ledgers)", async () => {
    const polite = new ContractWorkerRuntime(DEFAULT_CONTRACT_LIMITS, { niceness: 10 });
    try {
      await polite.execute(request(`function main() { return "x"; }`, host));
      expect([getPriority(polite.pid!), getPriority(runtime.pid!)]).to.deep.equal([10, getPriority()]);
    } finally {
      polite.dispose();
    }
  });

  it("refuses to run contracts when its isolates would get less than 16 MiB of real stack", async () => {
    const small = new ContractWorkerRuntime(DEFAULT_CONTRACT_LIMITS, { stackKiB: 4096 });
    try {
      await small.execute(request(`function main() { return "x"; }`, host));
      expect.fail("a worker with 4 MiB of stack must be refused");
    } catch (error) {
      expect((error as Error).message).to.match(/less than 16 MiB of stack.*ulimit -s/);
    } finally {
      small.dispose();
    }
  });
});
