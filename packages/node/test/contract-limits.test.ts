import { expect } from "chai";
import { ErrorCode } from "@chainsim/protocol";
import { TestChain, chainPerTest, makeKey, recordCode } from "./helpers/chain.js";
import { CONTRACT_FEE, deployContract, deployOp, invokeContract, queryOn } from "./helpers/contracts.js";

/** The guards a hostile contract meets beyond the step limit (contracts.test.ts covers steps and heap). */
describe("contract limits and sandbox", function () {
  this.timeout(30_000);
  let chain: TestChain;
  const newChain = chainPerTest((c) => (chain = c));
  const user = makeKey("limits-user");
  beforeEach(async () => {
    await chain.fund(user, 10_000_000_000n);
  });

  it("runs regular expressions on the linear-time engine: a pattern that backtracks for minutes elsewhere answers at once", async () => {
    const address = await deployContract(
      chain,
      user,
      `function init() {}
       function main() {
         const slow = /^(a+)+$/.test("a".repeat(40) + "!");
         let refused = "";
         try { new RegExp("(a)\\\\1"); } catch (e) { refused = e.name; }
         Chain.store("r", [slow, refused, /b+/g.flags, String(/x/m)].join("|"));
       }`,
    );
    const started = Date.now();
    const record = await invokeContract(chain, user, address, "");
    expect(recordCode(record), record.error_desc).to.equal(0);
    expect((await chain.metadata(address, "r"))!.value).to.equal("false|SyntaxError|g|/x/m");
    expect(Date.now() - started).to.be.below(5_000);
  });

  it("ends heavy built-in work by steps, not by the clock: 300 large JSON.stringify", async () => {
    const address = await deployContract(
      chain,
      user,
      `function init() {} function main() { const o = []; for (let i = 0; i < 1000; i++) o.push({ a: i, b: "x".repeat(100) }); for (let i = 0; i < 300; i++) JSON.stringify(o); }`,
    );
    for (const run of [1, 2]) {
      const record = await invokeContract(chain, user, address, "");
      expect(recordCode(record), `run ${run}`).to.equal(ErrorCode.CONTRACT_LIMIT_EXCEEDED);
      expect(JSON.parse(record.error_desc!).exception, `run ${run}`).to.equal("Step exceeding limit");
    }
  });

  it("charges a nested run 400 steps and a step per 64 bytes of the callee's source, besides the built-in's 100", async () => {
    // Each call below costs 100 + 400 + 100 (6,400 bytes) and a few steps of its own: 15 fit a budget of
    // 10,240, 18 do not. At 100 a call, a budget of them reached the clock (review of 2026-11-27).
    const callee = await deployContract(chain, user, `function init() {} function query() { return "q"; } // ${"x".repeat(6400 - 60)}`);
    const caller = await deployContract(chain, user, `function init() {} function main(n) { for (let i = 0; i < Number(n); i++) Chain.delegateQuery("${callee}", ""); }`);
    expect(recordCode(await invokeContract(chain, user, caller, "15"))).to.equal(0);
    const record = await invokeContract(chain, user, caller, "18");
    expect(recordCode(record)).to.equal(ErrorCode.CONTRACT_LIMIT_EXCEEDED);
    expect(JSON.parse(record.error_desc!).exception).to.equal("Step exceeding limit");
  });

  it("bounds what runs send out (docs/contracts.md §13): log lines of 4,096 characters and 64 KiB a transaction, return values of 256 KiB, error messages cut", async () => {
    const address = await deployContract(
      chain,
      user,
      `function init() {}
       function query(input) {
         if (input === "log") { const line = "y".repeat(1 << 20); for (let i = 0; i < 100; i++) Utils.log(line); return "logged"; }
         if (input === "return") return "r".repeat(300000);
         throw new Error("e".repeat(100000));
       }`,
    );
    const logged = await queryOn(chain, address, "log", "");
    const lines = Object.values(logged.result.logs as Record<string, string>);
    expect(lines.slice(0, -1).every((line) => line.length === 4097)).to.equal(true);
    expect(lines.at(-1)).to.equal("… log limit reached");
    expect(lines.slice(0, -1).join("").length).to.be.at.most(64 * 1024 + 4097);
    const returned = await queryOn(chain, address, "return", "");
    expect(returned.error?.code).to.equal(ErrorCode.CONTRACT_LIMIT_EXCEEDED);
    expect(JSON.stringify(returned.result.query_rets)).to.include("Return value exceeding limit");
    const thrown = await queryOn(chain, address, "throw", "");
    const exception = (thrown.result.query_rets as { error: { data: { exception: string } } }[])[0]!.error.data.exception;
    expect(exception.startsWith("Error: eee")).to.equal(true);
    expect(Buffer.byteLength(exception)).to.be.below(400);
  });

  it("refuses code over 256 KiB with 155 and creates nothing", async () => {
    const code = `function init() {}\n//${"x".repeat(256 * 1024)}`;
    const record = await chain.run(user, [deployOp(code)], { fee_limit: 1_000_000_000n });
    expect(recordCode(record)).to.equal(ErrorCode.CONTRACT_LIMIT_EXCEEDED);
  });

  it("keeps Chain and Utils out of the contract's reach: no replacing, no prototype tricks, nothing leaks to the next run", async () => {
    const address = await deployContract(
      chain,
      user,
      `"use strict";
       function init() {}
       function main(input) {
         const refused = [];
         const attempt = (name, f) => { try { f(); } catch (e) { refused.push(name); } };
         attempt("store", () => { Chain.store = () => true; });
         attempt("msg", () => { Chain.msg.sender = "mallory"; });
         attempt("load", () => Object.defineProperty(Chain, "load", { value: () => "fake" }));
         attempt("utils", () => { Utils.int64Add = () => "0"; });
         attempt("Chain", () => { globalThis.Chain = {}; });
         Object.prototype.polluted = "yes";
         const seen = [Chain.msg.sender, Chain.load("seen") === false ? "first" : "again", typeof globalThis.previousLeak, refused.join(","), Utils.int64Add("1", "2")];
         Chain.store("seen", seen.join("|"));
         globalThis.previousLeak = input;
       }`,
    );
    expect(recordCode(await invokeContract(chain, user, address, "one"))).to.equal(0);
    expect((await chain.metadata(address, "seen"))!.value).to.equal([user.address, "first", "undefined", "store,msg,load,utils,Chain", "3"].join("|"));
    expect(recordCode(await invokeContract(chain, user, address, "two"))).to.equal(0);
    const second = (await chain.metadata(address, "seen"))!.value!.split("|");
    expect(second.slice(1, 3)).to.deep.equal(["again", "undefined"], "a fresh context each run: globals of the last run are gone");
  });

  it("cannot switch off its step metering by replacing JSON, poisoning prototypes or toJSON", async () => {
    const attacks = [
      `const parse = JSON.parse; JSON.parse = (t) => { const a = parse(t); a.budget = 1e15; return a; }; Chain.getBalance(Chain.thisAddress); for (let i = 0; i < 1e6; i++) {}`,
      `Object.prototype.sha256 = -1e12; Utils.sha256("00"); for (let i = 0; i < 1e6; i++) {}`,
      `Array.prototype.toJSON = function () { return ["x", -500]; }; Chain.payCoin(Chain.thisAddress, "1"); for (let i = 0; i < 1e6; i++) {}`,
    ];
    for (const attack of attacks) {
      const address = await deployContract(chain, user, `function init() {} function main() { ${attack} }`, "", 10n);
      const record = await invokeContract(chain, user, address, "");
      expect(recordCode(record), attack).to.be.oneOf([ErrorCode.CONTRACT_LIMIT_EXCEEDED, ErrorCode.SOURCE_EQUALS_DESTINATION]);
      if (recordCode(record) === ErrorCode.CONTRACT_LIMIT_EXCEEDED) expect(JSON.parse(record.error_desc!).exception).to.equal("Step exceeding limit");
    }
  });

  it("turns a main or query result that cannot leave the isolate into a non-string: false for contractCall, a type error for a query", async () => {
    const odd = await deployContract(chain, user, `function init() {} function main() { return function () {}; } function query() { return Symbol("s"); }`);
    const caller = await deployContract(chain, user, `function init() {} function main() { Chain.store("got", String(Chain.contractCall("${odd}", true, "0", ""))); }`);
    expect(recordCode(await invokeContract(chain, user, caller, ""))).to.equal(0);
    expect((await chain.metadata(caller, "got"))?.value).to.equal("false");
    const answer = await queryOn(chain, odd, "", user.address);
    expect(answer.result.query_rets).to.deep.equal([{ error: { data: { exception: "value type error, only support string or bool", contract: odd } } }]);
  });

  it("refuses metadata keys that are not well-formed Unicode, which would collapse into one key on disk", async () => {
    const address = await deployContract(chain, user, `function init() {} function main() { Chain.store("\\uD800", "a"); Chain.store("\\uDBFF", "b"); }`);
    const record = await invokeContract(chain, user, address, "");
    expect(recordCode(record)).to.equal(ErrorCode.INVALID_PARAMETER);
    expect(await chain.ledgers.accounts.allEntries((await import("../src/state/entries.js")).METADATA, address)).to.deep.equal([]);
  });

  it("estimates contract creations and calls with testTransaction exactly as the ledger then charges them", async () => {
    const { simulateTransaction } = await import("../src/execution/simulate.js");
    const { TEST_CONTRACTS } = await import("./helpers/chain.js");
    const position = () => ({ seq: chain.ledgers.lastHeader.seq! + 1n, closeTime: (chain.ledgers.lastHeader.close_time ?? 0n) + 1n, ledgerHash: async () => undefined });
    const code = `function init() {} function main(input) { Chain.store("k", input); Chain.tlog("t", input); }`;
    const deployTx = { source_address: user.address, operations: [deployOp(code)] };
    const deployEstimate = await simulateTransaction(TEST_CONTRACTS, chain.ledgers.stateView(), chain.ledgers.params, position(), deployTx, 1);
    const deployed = await chain.run(user, deployTx.operations, { fee_limit: deployEstimate.actualFee });
    expect(recordCode(deployed), deployed.error_desc).to.equal(0);
    expect(deployed.actual_fee).to.equal(deployEstimate.actualFee);
    const address = JSON.parse(deployed.error_desc!)[0].contract_address as string;
    const callTx = { source_address: user.address, operations: [{ type: 7, pay_coin: { dest_address: address, amount: 0n, input: "hello" } }] };
    const callEstimate = await simulateTransaction(TEST_CONTRACTS, chain.ledgers.stateView(), chain.ledgers.params, position(), callTx, 1);
    const called = await chain.run(user, callTx.operations, { fee_limit: callEstimate.actualFee });
    expect(recordCode(called), called.error_desc).to.equal(0);
    expect(called.actual_fee).to.equal(callEstimate.actualFee);
    expect((await chain.metadata(address, "k"))?.value).to.equal("hello");
  });

  it("answers many concurrent queries on one runtime, each with its own result", async () => {
    const address = await deployContract(chain, user, `function init() {} function query(i) { return i + ":" + Chain.getBalance(Chain.thisAddress) + Chain.load("x"); }`);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => queryOn(chain, address, String(i), user.address)));
    expect(answers.map((a) => a.result.query_rets)).to.deep.equal(Array.from({ length: 20 }, (_, i) => [{ result: { type: "string", value: `${i}:0false` } }]));
  });

  it("keeps records free of the host: a failure's stack has only the contract's frames", async () => {
    const address = await deployContract(chain, user, `function init() {}\nfunction inner() { throw new Error("deep"); }\nfunction main() { inner(); }`);
    const desc = JSON.parse((await invokeContract(chain, user, address, "")).error_desc!);
    expect(desc).to.include({ exception: "Error: deep", linenum: 2 });
    expect(desc.stack.split("\n")).to.have.length(2);
    // Lines only: columns would be those of the instrumented text, which depends on chainsim's version.
    expect(desc.stack).to.equal("at inner (contract.js:2)\nat main (contract.js:3)");
  });

  it("has no locale-dependent functions and no console", async () => {
    const address = await deployContract(chain, user, `function init() {}
      function query() { return [typeof (1).toLocaleString, typeof [].toLocaleString, typeof "a".toLocaleUpperCase, typeof "a".localeCompare,
        typeof ({}).toLocaleString, typeof new Uint8Array(1).toLocaleString, typeof console].join(","); }`);
    const answer = await queryOn(chain, address, "", user.address);
    expect(answer.result.query_rets).to.deep.equal([{ result: { type: "string", value: Array(7).fill("undefined").join(",") } }]);
  });

  it("has no BigInt: literals are refused at deployment (152), and no global or typed array makes one", async () => {
    const refused = await chain.run(user, [deployOp(`function init() {} function main() { return String(1n); }`)], { fee_limit: CONTRACT_FEE });
    expect(recordCode(refused), refused.error_desc).to.equal(ErrorCode.CONTRACT_SYNTAX_ERROR);
    expect(refused.error_desc).to.include("BigInt is not supported");
    const address = await deployContract(chain, user, `function init() {}
      function query() { return [typeof BigInt, typeof BigInt64Array, typeof BigUint64Array, typeof new DataView(new ArrayBuffer(8)).getBigInt64].join(","); }`);
    const answer = await queryOn(chain, address, "", user.address);
    expect(answer.result.query_rets).to.deep.equal([{ result: { type: "string", value: Array(4).fill("undefined").join(",") } }]);
  });

  it("answers callContract code that cannot be deployed with 152", async () => {
    const { queryContract } = await import("../src/execution/contracts/query.js");
    const { TEST_CONTRACTS } = await import("./helpers/chain.js");
    const tip = chain.ledgers.lastHeader;
    const position = { seq: tip.seq! + 1n, closeTime: (tip.close_time ?? 0n) + 1n, ledgerHash: async () => undefined };
    for (const code of ["function query( {", "function query() { return eval('1'); }"]) {
      const answer = await queryContract(TEST_CONTRACTS, chain.ledgers.stateView(), chain.ledgers.params, position, { code, input: "", source: "" });
      expect(answer.error?.code, code).to.equal(ErrorCode.CONTRACT_SYNTAX_ERROR);
    }
  });

  it("charges contractCreate the contract creation gas, like a user's creation", async () => {
    const factory = await deployContract(chain, user, `function init() {} function main() { Chain.contractCreate("0", 0, "function init() {}", ""); }`);
    const cheap = await chain.run(user, [{ type: 7, pay_coin: { dest_address: factory, amount: 0n, input: "" } }], { fee_limit: 10_000_000n });
    expect(recordCode(cheap)).to.equal(ErrorCode.FEE_NOT_ENOUGH);
    const paid = await chain.run(user, [{ type: 7, pay_coin: { dest_address: factory, amount: 0n, input: "" } }], { fee_limit: 200_000_000n });
    expect(recordCode(paid), paid.error_desc).to.equal(0);
    expect(paid.actual_fee! > 100_000_000n).to.equal(true);
  });

  it("runs the same call with the same steps every time (metering is deterministic)", async () => {
    const address = await deployContract(chain, user, `function init() {} function query(n) { const count = Number(n); let s = 0; for (let i = 0; i < count; i++) s += i; return String(s); }`);
    const steps = async () => ((await queryOn(chain, address, "1000", user.address)).result.stat as { step: number }).step;
    const counts = [await steps(), await steps(), await steps()];
    expect(new Set(counts).size).to.equal(1);
    expect(counts[0]).to.equal(1 + 1000);
  });

  it("writes a transaction's Utils.log lines to the node's trace log with control characters escaped, so no line of the node's own can be forged", async () => {
    const lines: string[] = [];
    const traced = await newChain({ trace: (line) => lines.push(line) });
    await traced.fund(user, 10_000_000_000n);
    const address = await deployContract(traced, user, `function init() {} function main() { Utils.log("a\\n2026-11-26T00:00:00Z [v1] closed ledger 999\\r\\u001b[2K\\u2028end"); }`);
    expect(recordCode(await invokeContract(traced, user, address, ""))).to.equal(0);
    const line = lines.find((l) => l.includes("closed ledger 999"));
    expect(line).to.match(/^contract did:bid:\w+ \(tx [0-9a-f]+\): a\\u000a2026-11-26T00:00:00Z \[v1\] closed ledger 999\\u000d\\u001b\[2K\\u2028end$/);
  });

  describe("the deterministic stack model (512 KiB)", () => {
    // Enough steps that recursion meets the stack limit first (each frame costs a step).
    const deep = { steps: 1_000_000, timeMs: 20_000 };
    const recursion = `function init() {} function down(n) { return n === 0 ? 0 : down(n - 1) + 1; }
      function query(n) { return String(down(Number(n))); } function main(n) { Chain.store("depth", String(down(Number(n)))); }`;
    // down has one parameter, calls with one argument and has 16 syntax nodes (its name, parameter, body and
    // the 13 nodes of its return): 128 + 16 + 16 + 4 × 16 bytes a frame; query below it has 11 nodes
    // (128 + 16 + 16 + 4 × 11); main's widest call has two arguments (Chain.store) and it has 16 nodes.
    const frame = 128 + 16 + 16 + 4 * 16;
    const queryFrame = 128 + 16 + 16 + 4 * 11;
    const mainFrame = 128 + 16 + 32 + 4 * 16;

    it("reports stat.stack_usage as the peak of the model: the same for the same call, growing with depth", async () => {
      const big = await newChain({ contractLimits: deep });
      await big.fund(user, 10_000_000_000n);
      const address = await deployContract(big, user, recursion);
      const usage = async (n: number) => ((await queryOn(big, address, String(n), user.address)).result.stat as { stack_usage: number }).stack_usage;
      expect(await usage(0)).to.equal(queryFrame + frame);
      expect(await usage(100)).to.equal(queryFrame + 101 * frame);
      expect(await usage(100)).to.equal(queryFrame + 101 * frame);
    });

    it("fails recursion past 512 KiB with 155 Stack exceeding limit, even when the contract catches it, at the same depth on every run", async () => {
      const big = await newChain({ contractLimits: deep });
      await big.fund(user, 10_000_000_000n);
      const address = await deployContract(big, user, recursion);
      const fits = Math.floor((512 * 1024 - mainFrame) / frame) - 1; // main's frame, then down(fits) … down(0)
      expect(recordCode(await invokeContract(big, user, address, String(fits)))).to.equal(0);
      expect((await big.metadata(address, "depth"))!.value).to.equal(String(fits));
      for (const run of [1, 2]) {
        const record = await invokeContract(big, user, address, String(fits + 1));
        expect(recordCode(record), `run ${run}`).to.equal(ErrorCode.CONTRACT_LIMIT_EXCEEDED);
        expect(JSON.parse(record.error_desc!).exception).to.equal("Stack exceeding limit");
      }
      const catching = await deployContract(big, user, `function init() {} function down(n) { return n === 0 ? 0 : down(n - 1) + 1; }
        function main() { try { down(100000); } catch (e) { Chain.store("caught", String(e)); } }`);
      const record = await invokeContract(big, user, catching, "");
      expect(recordCode(record)).to.equal(ErrorCode.CONTRACT_LIMIT_EXCEEDED);
      expect(await big.metadata(catching, "caught")).to.equal(undefined);
    });

    it("is reached long before V8's own stack overflow, whatever the shape of the recursion (so the outcome never depends on the machine)", async () => {
      // The model's limit at four times 512 KiB, in a process whose isolates have 8 MiB of real stack (the
      // contract worker gives them 64 MiB): each recursion must still end on the model ("Stack exceeding
      // limit"), never on V8's overflow ("… (engine)").
      const roomy = await newChain({ contractLimits: { ...deep, stackBytes: 4 * 512 * 1024, steps: 10_000_000 } });
      await roomy.fund(user, 10_000_000_000n);
      const locals = Array.from({ length: 40 }, (_, i) => `let v${i} = n + ${i};`).join(" ");
      const sum = Array.from({ length: 40 }, (_, i) => `v${i}`).join(" + ");
      const ones = Array(300).fill("1").join(", ");
      const shapes: Record<string, string> = {
        narrow: `function r(n) { return r(n + 1); } r(0);`,
        wide: `function r(n, a, b, c, d, e, f, g) { ${locals} return r(n + 1, a, b, c, d, e, f, g) + (${sum}) * 0; } r(0, 1, 2, 3, 4, 5, 6, 7);`,
        "300 arguments": `function r(n) { return r(n + 1, ${ones}); } r(0);`,
        "spread arguments": `const list = []; for (let i = 0; i < 500; i++) list.push(i); function r(n) { return r(n + 1, ...list); } r(0);`,
        "default parameters": `function r(n, a = r(n + 1)) { return a; } r(0);`,
        "class fields": `class A { x = new A(); } new A();`,
        "through map": `function r(n) { return [n].map(r); } r(0);`,
        "through a getter": `const o = { get x() { return o.x; } }; o.x;`,
        "through sort": `function r(n) { [2, 1].sort(() => r(n + 1)); } r(0);`,
        "through toString": `const o = { toString() { return String(o); } }; String(o);`,
        // Expressions V8 gives registers while it evaluates them, in code that never runs (seventeenth review).
        "computed class members": `const k = "a"; function r(n) { while (n < 0) { class C { ${"[k]() {} ".repeat(500)} } } return r(n + 1); } r(0);`,
        "nested calls": `function g(a, b) { return b; } function r(n) { while (n < 0) { ${"g(1, ".repeat(150)}1${")".repeat(150)}; } return r(n + 1); } r(0);`,
        "nested arrays": `function r(n) { while (n < 0) { ${"[n, ".repeat(200)}1${"]".repeat(200)}; } return r(n + 1); } r(0);`,
        "tagged template": `function g() { return 1; } function r(n) { while (n < 0) { g\`${"${n}".repeat(2000)}\`; } return r(n + 1); } r(0);`,
        "nested array patterns": `function r(n) { while (n < 0) { let ${"[".repeat(32)}q${"]".repeat(32)} = n; } return r(n + 1); } r(0);`,
        "through an error's message": `const m = { toString() { return String(new Error(m)); } }; new Error(m);`,
        "through a DataView's offset": `const b = new ArrayBuffer(8); const m = { valueOf() { new DataView(b, m); return 0; } }; new DataView(b, m);`,
        "an iterator's return recursing while V8 closes a loop": `function f() { while (f < 0) { class C { ${"[f]() {} ".repeat(300)} } } const it = { [Symbol.iterator]() { return this; }, next() { return { done: false, value: 1 }; }, return() { f(); return {}; } }; try { for (const x of it) throw 1; } catch (e) {} } f();`,
      };
      const address = await deployContract(roomy, user, `function init() {} function query(shape) { ${Object.entries(shapes).map(([name, code]) => `if (shape === ${JSON.stringify(name)}) { ${code} }`).join(" ")} return "returned"; }`);
      for (const shape of Object.keys(shapes)) {
        const answer = await queryOn(roomy, address, shape, user.address);
        expect(answer.result.query_rets, shape).to.deep.equal([{ error: { data: { exception: "Stack exceeding limit", contract: address } } }]);
      }
    });
  });
});

