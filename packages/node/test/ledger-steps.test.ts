// A ledger spends at most LEDGER_STEP_BUDGETS transactions' budgets of contract steps (docs/contracts.md §13,
// "Steps per ledger"): every backup runs a value before it votes, so a value of fifty full-budget runs took
// longer than the view timeout and the network changed view for 50 s (twenty-third review of 2026-11-26).
import { expect } from "chai";
import { ChainError, ErrorCode, type SignedTransaction } from "@chainsim/protocol";
import { COMPILED_BYTES_PER_STEP, DEPLOYED_BYTES_PER_STEP, LEDGER_STEP_BUDGETS, RUN_STEPS } from "../src/execution/contracts/ledger-budget.js";
import { TestChain, chainPerTest, makeKey, recordCode } from "./helpers/chain.js";
import { CONTRACT_FEE, callOp, deployContract, deployOp } from "./helpers/contracts.js";

describe("contract steps per ledger", function () {
  this.timeout(30_000);
  let chain: TestChain;
  const newChain = chainPerTest((c) => (chain = c));
  const users = Array.from({ length: LEDGER_STEP_BUDGETS + 2 }, (_, i) => makeKey(`steps-user-${i}`));
  let spenders: SignedTransaction[];
  let transfer: SignedTransaction;

  beforeEach(async () => {
    chain = await newChain({ contractLimits: { steps: 2_000 } });
    for (const user of users) await chain.fund(user, 10_000_000_000n);
    // Every call spends its whole budget and is recorded with 155.
    const contract = await deployContract(chain, users[0]!, `function main(input) { for (;;) {} }`);
    spenders = await Promise.all(users.map(async (user) => chain.tx(user, [callOp(contract, "")], { fee_limit: CONTRACT_FEE })));
    transfer = await chain.tx(chain.genesis, [{ type: 7, pay_coin: { dest_address: users[0]!.address, amount: 1n } }]);
  });

  /** A contract a call of which costs a quarter of a budget (RUN_STEPS, and 100 steps to compile) and one step. */
  const quarterBudgetContract = `function init() {} function main() {} // `.padEnd((500 - RUN_STEPS) * COMPILED_BYTES_PER_STEP, "x");

  const next = () => ({ closeTime: (chain.ledgers.lastHeader.close_time ?? 0n) + 1_000_000n, proposer: chain.validator.address });

  it("a proposer stops once its ledger has spent them, leaving the rest in the pool, not refused", async () => {
    const ledger = await chain.ledgers.close({ ...next(), txs: [...spenders, transfer] }, "propose");
    expect(ledger.included.map((tx) => tx.hashHex)).to.deep.equal(spenders.slice(0, LEDGER_STEP_BUDGETS).map((tx) => tx.hashHex));
    expect(ledger.refused).to.deep.equal([]);
    expect(ledger.full).to.equal(true);
    expect(recordCode(await chain.record(spenders[0]!))).to.equal(ErrorCode.CONTRACT_LIMIT_EXCEEDED);
    // What steps leave room for still goes in whole: transfers spend none.
    const light = await chain.ledgers.close({ ...next(), txs: [transfer, spenders[LEDGER_STEP_BUDGETS]!] }, "propose");
    expect([light.included.length, light.full]).to.deep.equal([2, false]);
  });

  it("counts a deployment's source against them, a step per DEPLOYED_BYTES_PER_STEP bytes (instrumenting it takes time)", async () => {
    // Each source is a budget's worth of bytes: the ledger is full after LEDGER_STEP_BUDGETS of them.
    const source = (i: number) => `function init() {} // ${i} ${"x".repeat(2_000 * DEPLOYED_BYTES_PER_STEP)}`;
    const deployments = await Promise.all(users.map((user, i) => chain.tx(user, [deployOp(source(i))], { fee_limit: 10n * CONTRACT_FEE })));
    const ledger = await chain.ledgers.close({ ...next(), txs: deployments }, "propose");
    expect(ledger.included.map((tx) => tx.hashHex)).to.deep.equal(deployments.slice(0, LEDGER_STEP_BUDGETS).map((tx) => tx.hashHex));
    expect(ledger.full).to.equal(true);
    expect(recordCode(await chain.record(deployments[0]!))).to.equal(0);
  });

  it("counts the source of each contract a user's operation runs against them, a step per COMPILED_BYTES_PER_STEP bytes (V8 compiles it in each run)", async () => {
    // A contract of a quarter budget's worth of source whose main takes one step: four calls a transaction
    // spend a budget, so a ledger is full after four such transactions.
    const big = await deployContract(chain, users[0]!, quarterBudgetContract);
    const calls = await Promise.all(users.map((user) => chain.tx(user, [0, 1, 2, 3].map(() => callOp(big, "")), { fee_limit: CONTRACT_FEE })));
    const ledger = await chain.ledgers.close({ ...next(), txs: calls }, "propose");
    expect(ledger.included.map((tx) => tx.hashHex)).to.deep.equal(calls.slice(0, LEDGER_STEP_BUDGETS).map((tx) => tx.hashHex));
    expect(ledger.full).to.equal(true);
    expect(recordCode(await chain.record(calls[0]!))).to.equal(0);
  });

  it("fails (155) a transaction whose own contracts would prepare more than a ledger's steps, before preparing the one too many", async () => {
    // A deployment counts its bytes checked and compiled, and its init run: 10,240 bytes are 1,840 steps, so
    // four fit a ledger's 8,000 steps and a fifth in the same transaction is refused.
    const source = (i: number) => `function init() {} // ${i} `.padEnd(10_240, "x");
    const fits = await chain.run(users[0]!, [0, 1, 2, 3].map((i) => deployOp(source(i))), { fee_limit: 10n * CONTRACT_FEE });
    expect(recordCode(fits), fits.error_desc).to.equal(0);
    const tooMany = await chain.run(users[1]!, [4, 5, 6, 7, 8].map((i) => deployOp(source(i))), { fee_limit: 10n * CONTRACT_FEE });
    expect(recordCode(tooMany)).to.equal(ErrorCode.CONTRACT_LIMIT_EXCEEDED);
    expect(tooMany.error_desc).to.include(`would prepare more than ${LEDGER_STEP_BUDGETS * 2_000} steps of a ledger allow`);
    // Calls count the source they compile the same way: sixteen calls of a quarter budget's worth fit, seventeen do not.
    const big = await deployContract(chain, users[2]!, quarterBudgetContract);
    const sixteen = await chain.run(users[3]!, Array.from({ length: 16 }, () => callOp(big, "")), { fee_limit: CONTRACT_FEE });
    expect(recordCode(sixteen), sixteen.error_desc).to.equal(0);
    const seventeen = await chain.run(users[3]!, Array.from({ length: 17 }, () => callOp(big, "")), { fee_limit: CONTRACT_FEE });
    expect(recordCode(seventeen)).to.equal(ErrorCode.CONTRACT_LIMIT_EXCEEDED);
  });

  it("a backup refuses a value that goes on past them; a decided value is applied whole", async () => {
    const error = await chain.ledgers.execute({ ...next(), txs: spenders }, "verify").catch((e: Error) => e);
    expect(error).to.be.instanceOf(ChainError);
    expect((error as ChainError).message).to.include(`past ${LEDGER_STEP_BUDGETS * 2_000} contract steps`);
    const decided = await chain.ledgers.close({ ...next(), txs: spenders }, "decided");
    expect(decided.included).to.have.length(spenders.length);
  });
});
