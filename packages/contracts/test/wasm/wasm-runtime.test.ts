// The wasm engine on hand-written modules (docs/wasm-abi.md): what it refuses, what every limit ends with,
// and that counting is exact and the same on every run. Modules are written in the text format and
// assembled with binaryen, so no toolchain is needed here (test/e2e/wasm-contracts.test.ts builds the SDKs').
import { expect } from "chai";
import b from "binaryen";
import { BuiltinError, DEFAULT_CONTRACT_LIMITS, GuardTripped, stringToName, type ContractHost, type ContractLimits, type ExecutionRequest } from "../../src/index.js";
import { WasmRuntime } from "../../src/wasm/wasm-runtime.js";
import { failure, TEST_ENV, testRequest } from "../runs.js";

/** The block's time in µs, far from 0, so that the clock's answer is a real check. */
const ENV = { ...TEST_ENV, block: { timestamp: 1_700_000_000_000_000, number: 2 } };

/** Text for a data segment: quotes escaped as the text format wants. */
const text = (value: string) => value.replace(/"/g, "\\22");

/**
 * A module with the two host imports, one page of memory holding `data` (offset → text), `extra` fields and
 * an `apply` whose body is `body`.
 */
function wat(body: string, options: { data?: Record<number, string>; extra?: string; memory?: string; imports?: string } = {}): string {
  const data = Object.entries(options.data ?? {})
    .map(([offset, value]) => `(data (i32.const ${offset}) "${text(value)}")`)
    .join("\n");
  return `(module
    (import "env" "call" (func $call (param i32 i32 i32 i32) (result i32)))
    (import "env" "result" (func $result (param i32)))
    ${options.imports ?? ""}
    (memory (export "memory") ${options.memory ?? "1"})
    ${data}
    ${options.extra ?? ""}
    (func (export "apply") (param i64 i64 i64) ${body}))`;
}

function assemble(source: string): string {
  const module = b.parseText(source);
  // What contracts may use, and SIMD, which the refusal test needs.
  module.setFeatures(b.Features.MutableGlobals | b.Features.SignExt | b.Features.BulkMemory | b.Features.NontrappingFPToInt | b.Features.SIMD128);
  try {
    return Buffer.from(module.emitBinary()).toString("base64");
  } finally {
    module.dispose();
  }
}

/** `call(name, args)` with both texts in memory at the offsets given; drops the result length. */
const callAt = (name: [number, number], args: [number, number]) => `(drop (call $call (i32.const ${name[0]}) (i32.const ${name[1]}) (i32.const ${args[0]}) (i32.const ${args[1]})))`;

/** A module whose apply calls `name` with `args` (JSON), then does `then`. */
function calling(name: string, args: string, then = ""): string {
  return assemble(wat(`${callAt([0, name.length], [256, args.length])} ${then}`, { data: { 0: name, 256: args } }));
}

const RETURNS_OK = calling("return", '["ok"]');

describe("wasm engine", function () {
  this.timeout(60_000);
  let runtime: WasmRuntime;
  let limits: ContractLimits;
  let calls: { name: string; args: unknown[] }[];
  const host: ContractHost = {
    call: async (name, args) => {
      calls.push({ name, args });
      if (name === "load") return false;
      if (name === "store") return true;
      throw new BuiltinError(`Chain.${name} is not available`);
    },
  };

  function request(code: string, overrides: Partial<ExecutionRequest> = {}): ExecutionRequest {
    return testRequest(code, "wasm", host, { env: ENV, meter: { used: 0, limit: limits.steps, exhausted: false }, ...overrides });
  }


  function use(overrides: Partial<ContractLimits> = {}): void {
    runtime?.dispose();
    limits = { ...DEFAULT_CONTRACT_LIMITS, ...overrides };
    runtime = new WasmRuntime(limits);
  }

  beforeEach(() => {
    calls = [];
    use();
  });
  after(() => runtime.dispose());

  it("names actions as docs/wasm-abi.md §4 says", () => {
    expect(stringToName("transfer")).to.equal(14829575313431724032n);
    expect(stringToName("init")).to.equal(8421045207927095296n);
    expect(stringToName("a")).to.equal(3458764513820540928n);
    expect(stringToName("zzzzzzzzzzzzj")).to.not.equal(undefined);
    for (const bad of ["", "Transfer", "balance_of", "abcdefghijklmn", "zzzzzzzzzzzzk", "6"]) expect(stringToName(bad), bad).to.equal(undefined);
  });

  it("runs apply and returns what the module sent with `return`, counting the same steps every time", async () => {
    const used: number[] = [];
    for (let i = 0; i < 3; i++) {
      const meter = { used: 0, limit: limits.steps, exhausted: false };
      const outcome = await runtime.execute(request(RETURNS_OK, { meter }));
      expect(outcome.value).to.equal("ok");
      expect(outcome.memoryUsage).to.equal(65536);
      expect(outcome.stackUsage).to.be.greaterThan(0);
      used.push(meter.used);
    }
    expect(used[0]).to.be.greaterThan(0);
    expect(new Set(used).size).to.equal(1);
  });

  it("passes Chain built-ins to the host, at their step cost, and ends the run on a host error (151)", async () => {
    const meter = { used: 0, limit: limits.steps, exhausted: false };
    await runtime.execute(request(calling("store", '["k","v"]'), { meter }));
    expect(calls).to.deep.equal([{ name: "store", args: ["k", "v"] }]);
    expect(meter.used).to.be.at.least(limits.builtinSteps);
    const failed = await failure(runtime.execute(request(calling("payCoin", '["did:bid:x","1"]'))));
    expect(failed.code).to.equal(151);
    expect(failed.exception).to.equal("Chain.payCoin is not available");
  });

  it("ends with 151 and the message on `fail`, an unknown name, arguments that are not an array, and a trap", async () => {
    expect((await failure(runtime.execute(request(calling("fail", '["not enough"]'))))).exception).to.equal("not enough");
    expect((await failure(runtime.execute(request(calling("nope", "[]"))))).exception).to.equal('unknown built-in "nope"');
    expect((await failure(runtime.execute(request(calling("store", '{"k":1}'))))).exception).to.equal("the arguments of store are not a JSON array");
    const trap = await failure(runtime.execute(request(assemble(wat("(drop (i32.div_u (i32.const 1) (i32.const 0)))")))));
    expect(trap.code).to.equal(151);
    expect(trap.exception).to.match(/divide by zero/);
    const outside = await failure(runtime.execute(request(assemble(wat(callAt([70_000, 4], [0, 2])))))); // name outside memory
    expect(outside.exception).to.equal("memory access out of bounds");
  });

  it("gives apply the entry point and the input's method as StringToName", async () => {
    // Returns "yes" when code = 1 (main) and action = StringToName("transfer"), else fails.
    const source = wat(
      `(if (i32.and (i64.eq (local.get 1) (i64.const 1)) (i64.eq (local.get 2) (i64.const ${BigInt.asIntN(64, stringToName("transfer")!)})))
         (then ${callAt([0, 6], [256, 7])}) (else ${callAt([16, 4], [256, 2])}))`,
      { data: { 0: "return", 16: "fail", 256: '["yes"]' } },
    );
    const code = assemble(source);
    expect((await runtime.execute(request(code, { input: JSON.stringify({ method: "transfer", params: {} }) }))).value).to.equal("yes");
    await failure(runtime.execute(request(code, { input: JSON.stringify({ method: "issue" }) })));
    await failure(runtime.execute(request(code, { input: "not json" })));
  });

  it("stops a loop with 155 Step exceeding limit at exactly the budget, the same on every run", async () => {
    const loop = assemble(wat(`(local $i i32) (loop $l (local.set $i (i32.add (local.get $i) (i32.const 1))) (br_if $l (i32.lt_u (local.get $i) (i32.const 200000))))`));
    const meter = { used: 0, limit: 1_000_000, exhausted: false };
    await runtime.execute(request(loop, { meter }));
    const cost = meter.used;
    expect(cost).to.be.within(800, 3000);
    await runtime.execute(request(loop, { meter: { used: 0, limit: cost, exhausted: false } }));
    const short = { used: 0, limit: cost - 1, exhausted: false };
    const failed = await failure(runtime.execute(request(loop, { meter: short })));
    expect([failed.code, failed.exception, short.exhausted]).to.deep.equal([155, "Step exceeding limit", true]);
    const forever = await failure(runtime.execute(request(assemble(wat("(loop $l (br $l))")))));
    expect([forever.code, forever.exception]).to.deep.equal([155, "Step exceeding limit"]);
  });

  it("ends runaway recursion with 155 Stack exceeding limit, from the model, not V8's stack", async () => {
    const recursion = assemble(wat("(call $down)", { extra: '(func $down (call $down))' }));
    const failed = await failure(runtime.execute(request(recursion)));
    expect([failed.code, failed.exception]).to.deep.equal([155, "Stack exceeding limit"]);
    expect(failed).to.not.be.instanceOf(GuardTripped);
  });

  it("stops memory at the page limit: growing answers -1, and a trap there is 155 Memory exceeding limit", async () => {
    const grow = assemble(wat("(loop $l (br_if $l (i32.ne (memory.grow (i32.const 1)) (i32.const -1)))) (unreachable)"));
    const failed = await failure(runtime.execute(request(grow)));
    expect([failed.code, failed.exception]).to.deep.equal([155, "Memory exceeding limit"]);
    const bigStart = await failure(runtime.validate(assemble(wat("", { memory: "481" }))));
    expect(bigStart.code).to.equal(156);
  });

  it("charges bulk memory work by its size before doing it, also in straight-line code", async () => {
    // 100 fills of 16 MiB one after another, then a store: each fill must be checked before it runs, so
    // the steps run out after about 40 fills and the store is never reached.
    const fills = "(memory.fill (i32.const 0) (i32.const 1) (i32.const 16777216)) ".repeat(100);
    const straight = assemble(wat(`(drop (memory.grow (i32.const 256))) ${fills} ${callAt([0, 5], [256, 9])}`, { data: { 0: "store", 256: '["k","v"]' } }));
    const failed = await failure(runtime.execute(request(straight)));
    expect([failed.code, failed.exception]).to.deep.equal([155, "Step exceeding limit"]);
    expect(calls).to.deep.equal([]);
  });

  it("charges WASI work before doing it: a million iovecs cost their steps first", async () => {
    const imports = '(import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))';
    const write = assemble(wat("(drop (call $write (i32.const 1) (i32.const 0) (i32.const 1048576) (i32.const 0)))", { imports, memory: "200" }));
    const failed = await failure(runtime.execute(request(write)));
    expect([failed.code, failed.exception]).to.deep.equal([155, "Step exceeding limit"]);
  });

  it("says Memory exceeding limit only after a memory.grow failed: another trap at the limit is 151", async () => {
    const trapAtLimit = assemble(wat("(unreachable)", { memory: "480" }));
    expect((await failure(runtime.execute(request(trapAtLimit)))).code).to.equal(151);
  });

  it("refuses (156) modules whose shape would make metering slow or deep, whatever the machine", async () => {
    const nested = assemble(wat(`(drop ${"(i32.add (i32.const 1) ".repeat(2000)}(i32.const 0)${")".repeat(2000)})`));
    const failed = await failure(runtime.validate(nested));
    expect(failed.code).to.equal(156);
    expect(failed.exception).to.match(/nests instructions more than 1024 deep$/);
  });

  it("takes a module of 3.6 MB (a payload of 4.8 M characters)", async () => {
    await runtime.validate(assemble(wat("", { memory: "64", data: { 0: "x".repeat(3_600_000) } })));
  });

  it("charges bulk memory work by its size", async () => {
    // memory.fill of 16 pages, 1,000 times: 1 GB of writes, 16 M instructions at one per 64 bytes.
    const fill = assemble(wat(`(local $i i32) (drop (memory.grow (i32.const 16))) (loop $l (memory.fill (i32.const 0) (i32.const 0) (i32.const 1048576)) (local.set $i (i32.add (local.get $i) (i32.const 1))) (br_if $l (i32.lt_u (local.get $i) (i32.const 1000))))`));
    const failed = await failure(runtime.execute(request(fill)));
    expect([failed.code, failed.exception]).to.deep.equal([155, "Step exceeding limit"]);
  });

  it("never lets a NaN's bits be seen: stores, reinterpretations and copysign see the canonical NaN", async () => {
    const payloadNaN = "(f64.reinterpret_i64 (i64.const 0x7ff0000000000001))";
    const negativeNaN = "(f64.reinterpret_i64 (i64.const 0xfff8000000000000))";
    const check = (condition: string) =>
      assemble(wat(`(if ${condition} (then ${callAt([0, 6], [256, 7])}) (else ${callAt([16, 4], [256, 2])}))`, { data: { 0: "return", 16: "fail", 256: '["yes"]' } }));
    const canonical = "(i64.const 0x7ff8000000000000)";
    for (const condition of [
      `(i64.eq (i64.reinterpret_f64 (f64.add ${payloadNaN} (f64.const 1))) ${canonical})`,
      `(block (result i32) (f64.store (i32.const 512) ${negativeNaN}) (i64.eq (i64.load (i32.const 512)) ${canonical}))`,
      `(f64.eq (f64.copysign (f64.const 1) ${negativeNaN}) (f64.const 1))`,
      `(i32.eq (i32.reinterpret_f32 (f32.div (f32.const 0) (f32.const 0))) (i32.const 0x7fc00000))`,
    ]) {
      expect((await runtime.execute(request(check(condition)))).value, condition).to.equal("yes");
    }
  });

  it("answers WASI deterministically: the block's clock, proc_exit 0 as success and others as failure", async () => {
    const imports = `(import "wasi_snapshot_preview1" "clock_time_get" (func $clock (param i32 i64 i32) (result i32)))
      (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))`;
    const clock = assemble(
      wat(`(drop (call $clock (i32.const 0) (i64.const 1) (i32.const 512))) (if (i64.eq (i64.load (i32.const 512)) (i64.const ${BigInt(ENV.block.timestamp) * 1000n})) (then ${callAt([0, 6], [256, 7])}))`, {
        imports,
        data: { 0: "return", 256: '["yes"]' },
      }),
    );
    expect((await runtime.execute(request(clock))).value).to.equal("yes");
    const exitOk = assemble(wat(`${callAt([0, 6], [256, 7])} (call $exit (i32.const 0)) (unreachable)`, { imports, data: { 0: "return", 256: '["yes"]' } }));
    expect((await runtime.execute(request(exitOk))).value).to.equal("yes");
    const exitBad = assemble(wat("(call $exit (i32.const 3))", { imports }));
    expect((await failure(runtime.execute(request(exitBad)))).exception).to.equal("exit code 3");
  });

  it("trips the clock guard, not a result, when steps are too many to stop a run in time", async () => {
    use({ steps: 1_000_000_000 });
    const forever = assemble(wat("(loop $l (br $l))"));
    const tripped = await failure(runtime.execute(request(forever, { deadline: performance.now() + 100 })));
    expect(tripped).to.be.instanceOf(GuardTripped);
    // The isolate it ran in is gone; the next run gets another.
    expect((await runtime.execute(request(RETURNS_OK))).value).to.equal("ok");
  });

  it("refuses at deployment (156) what it will not run, saying why", async () => {
    const refusal = async (payload: string, pattern: RegExp) => {
      const failed = await failure(runtime.validate(payload));
      expect(failed.code).to.equal(156);
      expect(failed.exception).to.match(pattern);
    };
    await refusal("not base64!", /base64/);
    await refusal(Buffer.from("hello world").toString("base64"), /not a wasm module/);
    await refusal(assemble(wat("", { imports: '(import "env" "read_file" (func $f (param i32) (result i32)))' })), /import "env"\."read_file" is not offered/);
    await refusal(assemble(wat("", { imports: '(import "env" "call" (func $c2 (param i32) (result i32)))' })), /has type i>i; the host offers iiii>i/);
    await refusal(assemble(wat("", { extra: "(func $s) (start $s)" })), /start function/);
    await refusal(assemble(wat("(drop (v128.const i32x4 1 2 3 4))")), /feature/);
    await refusal(assemble('(module (import "env" "memory" (memory 1)) (func (export "apply") (param i64 i64 i64)))'), /imports its memory/);
    await refusal(assemble('(module (memory (export "memory") 1))'), /export a function "apply"/);
    await refusal(assemble('(module (memory (export "memory") 1) (func (export "apply") (param i32)))'), /\(i64, i64, i64\)/);
    await refusal(assemble(wat("", { extra: '(global (export "__chainsim_gas") i32 (i32.const 0))' })), /__chainsim_/);
    use({ wasmCodeBytes: 64 });
    await refusal(RETURNS_OK, /at most 64/);
  });
});
