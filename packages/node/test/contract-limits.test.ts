import { expect } from "chai";
import { ErrorCode } from "@chainsim/protocol";
import { TestChain, chainPerTest, makeKey, recordCode } from "./helpers/chain.js";
import { deployContract, deployOp, invokeContract, queryOn } from "./helpers/contracts.js";

/** The guards a hostile contract meets beyond the step limit (contracts.test.ts covers steps and heap). */
describe("contract limits and sandbox", function () {
  this.timeout(30_000);
  let chain: TestChain;
  chainPerTest((c) => (chain = c));
  const user = makeKey("limits-user");
  beforeEach(async () => {
    await chain.fund(user, 10_000_000_000n);
  });

  it("stops work that costs few steps but much time with 155 Time expired", async () => {
    // One built-in call and no loop in contract code: the regular expression backtracks for minutes.
    const address = await deployContract(chain, user, `function init() {} function main() { return /^(a+)+$/.test("a".repeat(40) + "!"); }`);
    const started = Date.now();
    const record = await invokeContract(chain, user, address, "");
    expect(recordCode(record)).to.equal(ErrorCode.CONTRACT_LIMIT_EXCEEDED);
    expect(JSON.parse(record.error_desc!).exception).to.equal("Time expired");
    expect(Date.now() - started).to.be.below(10_000);
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

  it("measures stack use for callContract: deeper recursion reports proportionally more", async () => {
    const address = await deployContract(chain, user, `function init() {} function down(n) { return n === 0 ? Chain.getBalance(Chain.thisAddress) : down(n - 1); } function query(n) { return String(down(Number(n))); }`);
    const stack = async (depth: number) => ((await queryOn(chain, address, String(depth), user.address)).result.stat as { stack_usage: number }).stack_usage;
    const [shallow, deep, deeper] = [await stack(10), await stack(1000), await stack(2000)];
    expect(shallow).to.be.greaterThan(0);
    expect(deep).to.be.greaterThan(shallow * 10);
    expect(deeper / deep).to.be.within(1.7, 2.3);
    expect(deeper).to.be.below(984 * 1024);
  });

  it("runs the same call with the same steps every time (metering is deterministic)", async () => {
    const address = await deployContract(chain, user, `function init() {} function query(n) { let s = 0; for (let i = 0; i < Number(n); i++) s += i; return String(s); }`);
    const steps = async () => ((await queryOn(chain, address, "1000", user.address)).result.stat as { step: number }).step;
    const counts = [await steps(), await steps(), await steps()];
    expect(new Set(counts).size).to.equal(1);
    expect(counts[0]).to.equal(1 + 1000);
  });
});
