// Hostile contracts against four real validators: every case runs as a callContract query and as a signed
// transaction; afterwards all four are still running, recorded the same result and agree on every ledger.
// To add an attack, add a case: `body` becomes both `main` (transactions) and `query` (callContract).
import { expect } from "chai";
import { Keypair, createContract, payCoin, sendTransaction, waitForTransaction } from "@chainsim/client";
import { isValidatorRunning } from "@chainsim/cli";
import { callContractPastClock } from "../harness/queries.js";
import { agreeAfter, dumpLogsOnFailure, startTestNetwork, testManifest, type TestNetwork } from "../harness/network.js";

interface HostileCase {
  name: string;
  /** A function body; `input` is the call's input. Its return value is stored by main and answered by query. */
  body: string;
  /** The error code every validator must record (0: success). */
  code: number;
  /** The exception every validator must record when the code is not 0. */
  exception?: string;
}

const CASES: HostileCase[] = [
  { name: "a 400 MB array (the issue's one-request crash)", body: `try { return String(new Array(5e7).fill(0).length); } catch (e) { return String(e); }`, code: 155, exception: "Memory exceeding limit" },
  { name: "an ArrayBuffer of 20 MB in a try", body: `try { new ArrayBuffer(20e6); return "ok"; } catch (e) { return String(e); }`, code: 0 },
  { name: "20 Symbol.for keys of 500 KB", body: `const k = "k".repeat(500000); for (let i = 0; i < 20; i++) Symbol.for(k + i); return "ok";`, code: 155, exception: "Memory exceeding limit" },
  // Runs after the Symbol.for case on the same workers: what an earlier run left must not matter.
  { name: "a 500,000-element array after the Symbol.for keys", body: `return String(new Array(500000).fill(1.5).length);`, code: 0 },
  { name: "300 large JSON.stringify", body: `const o = []; for (let i = 0; i < 1000; i++) o.push({ a: i, b: "x".repeat(100) }); for (let i = 0; i < 300; i++) JSON.stringify(o); return "ok";`, code: 155, exception: "Step exceeding limit" },
  { name: "class field recursion", body: `class A { x = new A(); } try { new A(); } catch (e) { return "caught " + e; }`, code: 155, exception: "Stack exceeding limit" },
  { name: "default parameter recursion", body: `function f(n, a = n > 0 ? f(n - 1) : 0) { return a; } try { return String(f(1e6)); } catch (e) { return "caught " + e; }`, code: 155, exception: "Stack exceeding limit" },
  { name: "calls with 300 arguments", body: `function g(n) { return n > 0 ? g(n - 1, ${Array(300).fill("1").join(",")}) : 0; } try { return String(g(1e6)); } catch (e) { return "caught " + e; }`, code: 155, exception: "Stack exceeding limit" },
  { name: "deep JSON nesting, parsed and stringified", body: `const v = JSON.parse("[".repeat(100000) + "]".repeat(100000)); try { return String(JSON.stringify(v).length); } catch (e) { return "caught " + e; }`, code: 155, exception: "Stack exceeding limit" },
  { name: "a catastrophic regular expression", body: `return String(/^(a+)+$/.test("a".repeat(40) + "!"));`, code: 0 },
  { name: "prepareStackTrace reaching internals", body: `try { Error.prepareStackTrace = (e, s) => s; } catch (e) {} const s = new Error().stack; return typeof s === "string" ? s : "callsites";`, code: 0 },
  { name: "the meter through globalThis", body: `const f = globalThis["__chain" + "sim_step_leave"] || globalThis["__chain" + "sim_enter"]; return typeof f;`, code: 0 },
  { name: "log of 8 MB, 100 times", body: `const s = "y".repeat(4000000); for (let i = 0; i < 90; i++) Utils.log(s); return "logged";`, code: 0 },
  { name: "a backtracking pattern given to match as a string", body: `return String(("a".repeat(28) + "b").match("(a+)+$"));`, code: 0 },
  { name: "recursion with wide destructuring", body: `const O = {}; function r(n) { const { ${Array.from({ length: 3000 }, (_, i) => `a${i}`).join(", ")} } = O; if (n > 0) r(n - 1); return n; } let ok = false; (function () { try { r(1500); ok = true; } finally { return; } })(); return String(ok);`, code: 155, exception: "Stack exceeding limit" },
  { name: "promise jobs after the entry point returns", body: `return typeof Promise;`, code: 0 },
  // V8 reserves a length's slots at once: every route to a long array is charged by the length (H4).
  { name: "arrays made long and kept (new Array(n), a length write, Object.assign)", body: `const kept = []; for (let i = 0; i < 200; i++) { const b = []; b.length = 5e5; kept.push(new Array(5e5), b, Object.assign([], { length: 5e5 })); } return String(kept.length);`, code: 155, exception: "Step exceeding limit" },
  { name: "concat of 100,000 elements, repeated", body: `const a = Array(100000).fill(7); for (;;) a.concat(a);`, code: 155, exception: "Step exceeding limit" },
  { name: "a stack seen from a getter called by a built-in", body: `const o = { get x() { return new Error("in getter").stack; } }; return JSON.stringify(o);`, code: 0 },
  // What the review of the length fixes found: each reached V8's heap or the clock before its charge.
  { name: "objects written far past their elements, kept", body: `const keep = []; for (;;) { const o = {}; o[1023] = 0; o[2574] = 0; o[4900] = 0; keep.push(o); }`, code: 155, exception: "Step exceeding limit" },
  { name: "argument lists of apply kept", body: `const big = new Array(30000).fill(0); function f(...r) { return r; } const keep = []; for (;;) keep.push(f.apply(null, big));`, code: 155, exception: "Memory exceeding limit" },
  { name: "walks over a 30-deep prototype chain", body: `const p = Array(30).fill(0).reduce(Object.create, { 0: 1 }); const o = Object.create(p); o.length = 4096; for (;;) Array.prototype.includes.call(o, 7);`, code: 155, exception: "Step exceeding limit" },
  // The fifth review (2026-11-26): 5,000 classes each extending the last, then conversions walking the chain.
  { name: "a chain of 5,000 classes", body: `let C = class {}; for (let i = 0; i < 5000; i++) C = class extends C {}; const o = new C(); let n = 0; for (;;) n += ("" + o).length;`, code: 155, exception: "Prototype chain exceeding limit" },
  { name: "typed arrays of long numeric strings", body: `const d = new Array(3000).fill("1".repeat(4e6)); new Float64Array(d); return "made";`, code: 155, exception: "Step exceeding limit" },
  { name: "a function printed by V8 in a message", body: `"use strict"; function f(a) { return a + 1; } try { f.name = "x"; } catch (e) { return e.message; }`, code: 0 },
];

describe("e2e: hostile contracts cannot crash or split four validators", function () {
  this.timeout(240_000);
  let net: TestNetwork;
  let genesis: Keypair;
  const addresses: string[] = [];
  before(async () => {
    net = await startTestNetwork(testManifest("e2e-hostile", 4));
    genesis = Keypair.fromPrivateKey(net.handle.manifest.genesis.account.private_key);
    for (const hostile of CASES) {
      const code = `function init() {} function main(input) { const r = (function () { ${hostile.body} })(); Chain.store("r", String(r)); } function query(input) { return String((function () { ${hostile.body} })()); }`;
      const { hash } = await sendTransaction(net.clients[0], { signers: [genesis], operations: [createContract(code)], feeLimit: 300_000_000n });
      const record = await waitForTransaction(net.clients[0], hash);
      expect(record.error_code, `${hostile.name}: ${record.error_desc}`).to.equal(0);
      addresses.push(JSON.parse(record.error_desc)[0].contract_address as string);
    }
  });
  after(async () => net?.cleanup());
  dumpLogsOnFailure(() => net);

  /** Every validator's callContract answer, past a wall-clock trip of a loaded machine (test/harness/queries.ts). */
  const queryEverywhere = (address: string) =>
    Promise.all(net.clients.map((client, i) => callContractPastClock(client, { contract_address: address, input: "", opt_type: 2, source_address: "" }, `v${i + 1}`)));
  const running = () => net.handle.nodes.filter((node) => isValidatorRunning(node.pid, node.process.paths.configFile)).map((node) => node.name);

  CASES.forEach((hostile, index) => {
    it(`${hostile.name}: ${hostile.code === 0 ? "succeeds" : `fails with ${hostile.code} ${hostile.exception}`} everywhere, and every validator keeps serving`, async () => {
      const address = addresses[index]!;
      // As a query, on every validator: the same answer.
      const answers = await queryEverywhere(address);
      const rets = answers.map((a) => JSON.stringify((a.result as { query_rets: unknown }).query_rets));
      expect(new Set(rets).size, rets.join("\n")).to.equal(1);
      if (hostile.code !== 0) expect(answers[0]!.error_code, rets[0]).to.equal(hostile.code);
      // As a transaction: recorded alike on all four.
      const { hash } = await sendTransaction(net.clients[index % 4]!, { signers: [genesis], operations: [payCoin(address, 0n, { input: "x" })], feeLimit: 100_000_000n });
      const records = await Promise.all(net.clients.map((client) => waitForTransaction(client, hash, { timeoutMs: 30_000 })));
      const seen = records.map((r) => JSON.stringify([r.error_code, r.error_desc, String(r.ledger_seq)]));
      expect(new Set(seen).size, seen.join("\n")).to.equal(1);
      expect(records[0]!.error_code, records[0]!.error_desc).to.equal(hostile.code);
      if (hostile.exception) expect(JSON.parse(records[0]!.error_desc).exception).to.equal(hostile.exception);
      await agreeAfter(net.clients, BigInt(String(records[0]!.ledger_seq)));
      expect(running()).to.deep.equal(net.handle.nodes.map((node) => node.name));
    });
  });

  it("keeps nothing of the host in stored state: stacks show contract lines only, functions no source", async () => {
    const stored = await net.clients[1]!.getAccountMetaData(addresses[CASES.findIndex((c) => c.name.startsWith("a stack seen"))]!, "r");
    const value = (stored.result as Record<string, { value: string }>).r.value;
    expect(value).to.match(/^\{"x":"Error: in getter\\n {4}at get x \(contract\.js:1\)/);
    expect(value).to.not.match(/bootstrap|chainsim-|contract\.js:\d+:\d+/);
    const printed = await net.clients[2]!.getAccountMetaData(addresses[CASES.findIndex((c) => c.name.startsWith("a function printed"))]!, "r");
    expect((printed.result as Record<string, { value: string }>).r.value).to.equal("Cannot assign to read only property 'name' of function 'function f(a) { [native code] }'");
  });
});
