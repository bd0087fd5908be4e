import { expect } from "chai";
import { ErrorCode, OperationType, toHex, type RawTransactionEnvStore } from "@chainsim/protocol";
import { ASSETS } from "../src/state/entries.js";
import { TestChain, chainPerTest, makeKey, recordCode, type Key } from "./helpers/chain.js";
import { CONTRACT_FEE as FEE, callOp as call, deployContract, deployOp as deploy, invokeContract, queryOn } from "./helpers/contracts.js";

describe("JavaScript contracts", function () {
  this.timeout(20_000);
  let chain: TestChain;
  const newChain = chainPerTest((c) => (chain = c));
  const user = makeKey("contract-user");

  beforeEach(async () => {
    await chain.fund(user, 10_000_000_000n);
  });

  /** Deploys `code` (with an empty init added when it has none) from the user; returns the new contract's address. */
  function deployed(code: string, initInput = "", initBalance = 0n): Promise<string> {
    return deployContract(chain, user, code, initInput, initBalance);
  }

  function invoke(from: Key, contract: string, input: string, amount = 0n): Promise<RawTransactionEnvStore> {
    return invokeContract(chain, from, contract, input, amount);
  }

  function query(contract: string, input: string) {
    return queryOn(chain, contract, input, user.address);
  }

  const COUNTER = `"use strict";
    function init(input) { Chain.store("count", input || "0"); }
    function main(input) {
      const next = Utils.int64Add(Chain.load("count"), input);
      Chain.store("count", next);
      Chain.tlog("counted", next, Chain.msg.sender);
      return next;
    }
    function query(input) { return input === "store?" ? typeof Chain.store : Chain.load("count"); }`;

  it("deploys with a derived address, runs init, and shows the contract on the account", async () => {
    const address = await deployed(COUNTER, "5");
    const account = (await chain.account(address))!;
    expect(account.contract?.payload).to.equal(COUNTER);
    expect((await chain.metadata(address, "count"))?.value).to.equal("5");
  });

  it("runs main on a payment with input, records its contract-made transactions, and answers queries", async () => {
    const address = await deployed(COUNTER, "5");
    const record = await invoke(user, address, "3", 1_000n);
    expect(recordCode(record), record.error_desc).to.equal(0);
    expect((await chain.metadata(address, "count"))?.value).to.equal("8");
    expect(await chain.balance(address)).to.equal(1_000n);
    // store + tlog: two contract-made transactions, recorded and linked
    expect(record.contract_tx_hashes).to.have.length(2);
    const sub = (await chain.ledgers.ledgers.record(toHex(record.contract_tx_hashes![1])))!;
    expect(sub.transaction_env!.trigger!.transaction!.hash).to.deep.equal(record.hash);
    expect(sub.transaction_env!.trigger!.transaction_type).to.equal(1);
    expect((await chain.account(address))!.nonce).to.equal(3n); // init's store, then store + tlog
    const answer = await query(address, "");
    expect(answer.error).to.equal(undefined);
    expect(answer.result.query_rets).to.deep.equal([{ result: { type: "string", value: "8" } }]);
    expect((answer.result.stat as { step: number }).step).to.be.greaterThan(100);
    expect((await query(address, "store?")).result.query_rets).to.deep.equal([{ result: { type: "string", value: "undefined" } }]);
  });

  it("fails a throwing main with 151, rolls everything back, keeps the coins with the sender and charges the fee", async () => {
    const address = await deployed(`function main(input) { Chain.store("x", "1"); throw new Error("boom " + input); }`);
    const before = await chain.balance(user.address);
    const record = await invoke(user, address, "now", 777n);
    expect(recordCode(record)).to.equal(ErrorCode.CONTRACT_EXECUTE_FAIL);
    const desc = JSON.parse(record.error_desc!);
    expect(desc).to.include({ contract: address, exception: "Error: boom now", linenum: 1 });
    expect(await chain.metadata(address, "x")).to.equal(undefined);
    expect(await chain.balance(address)).to.equal(0n);
    expect(await chain.balance(user.address)).to.equal(before - record.actual_fee!);
    expect(record.contract_tx_hashes ?? []).to.have.length(0);
  });

  it("reports the message of a failed Utils.assert", async () => {
    const address = await deployed(`function main(input) { Utils.assert(input === "ok", "input must be ok"); }`);
    const record = await invoke(user, address, "no");
    expect(recordCode(record)).to.equal(ErrorCode.CONTRACT_EXECUTE_FAIL);
    expect(JSON.parse(record.error_desc!).exception).to.equal("input must be ok");
  });

  it("lints at deployment when the network sets contracts.lint: 152 with the warnings as JSON, nothing created", async () => {
    const sloppy = `function init() {} function main(n) { var a = new Array(); if (n == "1") { a.push(1); } n++; try { a.pop(); } catch (e) {} }`;
    const clean = `"use strict"; function init() {} function main(n) { const a = []; if (n === "1") { a.push(1); } return a.length + 1; }`;
    expect(recordCode(await chain.run(user, [deploy(sloppy)], { fee_limit: FEE })), "lint is off by default").to.equal(0);

    const linting = await newChain({ contractLimits: { lint: true } });
    await linting.fund(user, 10_000_000_000n);
    const record = await linting.run(user, [deploy(sloppy)], { fee_limit: FEE });
    expect(recordCode(record)).to.equal(ErrorCode.CONTRACT_SYNTAX_ERROR);
    expect(JSON.parse(record.error_desc!).map((w: { reason: string }) => w.reason)).to.deep.equal([
      "Missing 'use strict' statement.",
      "Use the array literal notation [].",
      "Expected '===' and instead saw '=='.",
      "Unexpected '++'.",
      "Unexpected 'try'.",
    ]);
    expect(JSON.parse(record.error_desc!)[2]).to.deep.include({ line: 1, column: 63 });
    expect(recordCode(await linting.run(user, [deploy(clean)], { fee_limit: FEE }))).to.equal(0);
  });

  it("refuses a syntax error with 152 and creates nothing", async () => {
    const record = await chain.run(user, [deploy("function main( {")], { fee_limit: FEE });
    expect(recordCode(record)).to.equal(ErrorCode.CONTRACT_SYNTAX_ERROR);
  });

  it("stops hostile contracts with 155 and costs the node nothing but their failure", async () => {
    const loop = await deployed(`function main() { while (true) {} }`);
    const recursion = await deployed(`function f(n) { return f(n + 1) + 1; } function main() { return f(0); }`);
    const memory = await deployed(`function main() { const a = []; while (true) a.push("x".repeat(1e6) + a.length); }`);
    for (const [address, exception] of [
      [loop, "Step exceeding limit"],
      [recursion, "Stack exceeding limit"],
    ]) {
      const record = await invoke(user, address, "");
      expect(recordCode(record)).to.equal(ErrorCode.CONTRACT_LIMIT_EXCEEDED);
      expect(JSON.parse(record.error_desc!).exception).to.equal(exception);
    }
    expect(recordCode(await invoke(user, memory, ""))).to.equal(ErrorCode.CONTRACT_LIMIT_EXCEEDED);
    // the chain goes on, and the same contract deploys and runs again
    expect(recordCode(await invoke(user, await deployed(COUNTER, "1"), "1"))).to.equal(0);
  });

  it("charges heavy verifiers enough steps that the step limit, not the clock, stops a flood of them", async () => {
    const address = await deployed(`function main(n) { for (let i = 0; i < Number(n); i++) Utils.bpRangeProofVerify("00", "00"); }`);
    expect(recordCode(await invoke(user, address, "4")), "4 fit").to.equal(0);
    const record = await invoke(user, address, "5");
    expect(recordCode(record)).to.equal(ErrorCode.CONTRACT_LIMIT_EXCEEDED);
    expect(JSON.parse(record.error_desc!).exception).to.equal("Step exceeding limit");
  });

  it("cannot catch the step limit", async () => {
    const address = await deployed(`function main() { try { while (true) {} } catch (e) {} Chain.store("escaped", "yes"); }`);
    const record = await invoke(user, address, "");
    expect(recordCode(record)).to.equal(ErrorCode.CONTRACT_LIMIT_EXCEEDED);
    expect(await chain.metadata(address, "escaped")).to.equal(undefined);
  });

  it("has no Date, Math or dynamic code", async () => {
    const address = await deployed(`function query() { let ctor = "blocked"; try { (function(){}).constructor("return 1")(); ctor = "open"; } catch (e) {} return [typeof Date, typeof Math, typeof globalThis["ev" + "al"], ctor].join(","); }`);
    expect((await query(address, "")).result.query_rets).to.deep.equal([{ result: { type: "string", value: "undefined,undefined,undefined,blocked" } }]);
  });

  it("calls across contracts: msg changes, tx stays; results cross back", async () => {
    const callee = await deployed(`function main(input) { Chain.store("seen", [Chain.msg.sender, Chain.msg.initiator, Chain.tx.initiator, Chain.msg.coinAmount, input].join("|")); return "pong:" + input; }`);
    const caller = await deployed(`function main(input) { const r = Chain.contractCall("${callee}", true, "5", input); Chain.store("reply", r); }`, "", 100n);
    const record = await invoke(user, caller, "ping");
    expect(recordCode(record), record.error_desc).to.equal(0);
    expect((await chain.metadata(caller, "reply"))?.value).to.equal("pong:ping");
    expect((await chain.metadata(callee, "seen"))?.value).to.equal([caller, caller, user.address, "5", "ping"].join("|"));
    expect(await chain.balance(callee)).to.equal(5n);
  });

  it("fails the whole transaction with an inner transaction's code even when the contract catches it", async () => {
    const address = await deployed(`function main() { Chain.store("a", "1"); try { Chain.del("missing"); } catch (e) {} Chain.store("b", "2"); }`);
    const record = await invoke(user, address, "");
    expect(recordCode(record)).to.equal(ErrorCode.NOT_EXIST);
    expect(await chain.metadata(address, "a")).to.equal(undefined);
  });

  it("allows user → A → B → C → D and fails one level deeper with 153", async () => {
    const relay = (next: string) => `function main(input) { return Chain.contractCall("${next}", true, "0", input); }`;
    const d = await deployed(`function main(input) { return "bottom"; }`);
    const c = await deployed(relay(d));
    const b = await deployed(relay(c));
    const a = await deployed(relay(b));
    expect(recordCode(await invoke(user, a, ""))).to.equal(0);
    const top = await deployed(relay(a));
    expect(recordCode(await invoke(user, top, ""))).to.equal(ErrorCode.CONTRACT_TOO_MANY_RECURSION);
  });

  it("creates contracts from contracts with the documented address", async () => {
    const factory = await deployed(`function init() {} function main(input) { const child = Chain.contractCreate("0", 0, "function init(i) { Chain.store('born', i); } function query() { return Chain.load('born'); }", input); Chain.store("child", child); }`);
    const record = await invoke(user, factory, "hello");
    expect(recordCode(record), record.error_desc).to.equal(0);
    const child = (await chain.metadata(factory, "child"))!.value!;
    expect((await chain.metadata(child, "born"))?.value).to.equal("hello");
  });

  it("queries other contracts read-only and reports every query, innermost first", async () => {
    const inner = await deployed(`function query(input) { return "inner:" + input; }`);
    const outer = await deployed(`function query(input) { return JSON.stringify(Chain.contractQuery("${inner}", input)); }`);
    const answer = await query(outer, "x");
    expect(answer.result.query_rets).to.deep.equal([
      { result: { type: "string", value: "inner:x" } },
      { result: { type: "string", value: JSON.stringify({ result: "inner:x" }) } },
    ]);
  });

  it("answers a query that throws with 151 and the exception", async () => {
    const address = await deployed(`function query() { throw "nope"; }`);
    const answer = await query(address, "");
    expect(answer.error?.code).to.equal(ErrorCode.CONTRACT_EXECUTE_FAIL);
    expect(answer.result.query_rets).to.deep.equal([{ error: { data: { exception: "nope", contract: address } } }]);
  });

  describe("assets", () => {
    it("issues an asset, pays it to accounts and contracts, and shows it in getAccountAsset and assets_hash", async () => {
      const holder = makeKey("asset-holder");
      const vault = await deployed(`function main(input) { Chain.store("got", JSON.stringify([Chain.msg.asset, Chain.msg.coinAmount, input])); }`);
      const mint = await deployed(`function main(input) {
        Chain.issueAsset("GOLD", "1000");
        Chain.payAsset("${holder.address}", Chain.thisAddress, "GOLD", "300");
        Chain.contractCall("${vault}", { issuer: Chain.thisAddress, code: "GOLD" }, "200", "deposit");
        Chain.store("left", Chain.getAccountAsset(Chain.thisAddress, { issuer: Chain.thisAddress, code: "GOLD" }));
      }`);
      const emptyHash = (await chain.account(mint))!.assets_hash;
      const record = await invoke(user, mint, "");
      expect(recordCode(record), record.error_desc).to.equal(0);
      const key = { issuer: mint, code: "GOLD" };
      const holding = async (address: string) => (await chain.ledgers.accounts.allEntries(ASSETS, address)).map((a) => [a.key, a.amount]);
      expect(await holding(mint)).to.deep.equal([[key, 500n]]);
      expect(await holding(holder.address)).to.deep.equal([[key, 300n]]);
      expect(await holding(vault)).to.deep.equal([[key, 200n]]);
      expect((await chain.metadata(mint, "left"))?.value).to.equal("500");
      expect(JSON.parse((await chain.metadata(vault, "got"))!.value!)).to.deep.equal([{ amount: "200", key }, "0", "deposit"]);
      expect((await chain.account(mint))!.assets_hash).to.not.deep.equal(emptyHash);
    });

    it("fails paying more of an asset than held, with the inner code, and rolls the issue back", async () => {
      const mint = await deployed(`function main() { Chain.issueAsset("IOU", "5"); Chain.payAsset("${makeKey("asset-x").address}", Chain.thisAddress, "IOU", "6"); }`);
      const record = await invoke(user, mint, "");
      expect(recordCode(record)).to.equal(ErrorCode.LOW_RESERVE);
      expect(await chain.ledgers.accounts.allEntries(ASSETS, mint)).to.deep.equal([]);
    });

    it("does not let users send asset operations themselves", async () => {
      const tx = await chain.tx(user, [{ type: OperationType.ISSUE_ASSET, issue_asset: { code: "X", amount: 1n } }]);
      expect(await chain.submit(tx)).to.equal(ErrorCode.INVALID_PARAMETER);
    });
  });

  it("gives two chains fed the same contract transactions the same ledger hashes", async () => {
    const other = await TestChain.create();
    try {
      for (const c of [chain, other]) {
        if (c !== chain) await c.fund(user, 10_000_000_000n);
        const record = await c.run(user, [deploy(COUNTER, "1")], { fee_limit: FEE });
        const address = JSON.parse(record.error_desc!)[0].contract_address;
        await c.run(user, [call(address, "41")], { fee_limit: FEE });
      }
      expect(other.ledgers.lastHeader.hash).to.deep.equal(chain.ledgers.lastHeader.hash);
    } finally {
      await other.teardown();
    }
  });
});
