// A contract run ended by a guard (the clock, V8's own limits, a dead worker) depends on the machine, so it
// is never recorded (docs/contracts.md §13, "When a guard trips"). Here V8's heap limit is set below the
// memory model (raised to 512 MiB, and the steps with it), so a 160 MB array trips V8's guard every time:
// a real guard, deterministic in a test.
import { expect } from "chai";
import { ErrorCode, type SignedTransaction } from "@chainsim/protocol";
import { GuardTrippedTransaction } from "../src/execution/executor.js";
import { TestChain, chainPerTest, makeKey, recordCode } from "./helpers/chain.js";
import { CONTRACT_FEE, callOp, deployContract } from "./helpers/contracts.js";

describe("a contract run ended by a guard is never a recorded result", function () {
  this.timeout(30_000);
  let chain: TestChain;
  const newChain = chainPerTest((c) => (chain = c));
  const user = makeKey("guard-user");
  const other = makeKey("guard-other");
  let contract: string;
  let heavy: SignedTransaction;
  let plain: SignedTransaction;

  beforeEach(async () => {
    chain = await newChain({ contractLimits: { engineHeapMiB: 16, memoryBytes: 512 * 2 ** 20, steps: 1_000_000 } });
    await chain.fund(user, 10_000_000_000n);
    await chain.fund(other, 10_000_000_000n);
    contract = await deployContract(chain, user, `function main(input) { if (input === "heavy") new Array(2e7).fill(1.5); Chain.store("ran", input); }`);
    heavy = await chain.tx(user, [callOp(contract, "heavy")], { fee_limit: CONTRACT_FEE });
    plain = await chain.tx(other, [callOp(contract, "plain")], { fee_limit: CONTRACT_FEE });
  });

  const next = () => ({ closeTime: (chain.ledgers.lastHeader.close_time ?? 0n) + 1_000_000n, proposer: chain.validator.address });

  it("a proposer leaves the transaction out, with 155 and the guard's name, and charges nothing", async () => {
    const before = await chain.account(user.address);
    const ledger = await chain.ledgers.close({ ...next(), txs: [heavy, plain] }, "propose");
    expect(ledger.included.map((tx) => tx.hashHex)).to.deep.equal([plain.hashHex]);
    expect(ledger.refused).to.have.length(1);
    expect(ledger.refused[0]!.error.code).to.equal(ErrorCode.CONTRACT_LIMIT_EXCEEDED);
    expect(ledger.refused[0]!.error.message).to.include("Memory exceeding limit (engine)");
    expect(await chain.record(heavy)).to.equal(undefined);
    expect(recordCode(await chain.record(plain))).to.equal(0);
    const after = await chain.account(user.address);
    expect(after!.nonce).to.equal(before!.nonce);
    expect(after!.balance).to.equal(before!.balance);
    expect((await chain.metadata(contract, "ran"))!.value).to.equal("plain");
    // Peers re-gossiping it must not make this validator spend the guard's time on it again.
    expect(await chain.submit(heavy)).to.equal(ErrorCode.CONTRACT_LIMIT_EXCEEDED);
  });

  it("a backup refuses a value whose execution trips a guard", async () => {
    const error = await chain.ledgers.execute({ ...next(), txs: [plain, heavy] }, "verify").catch((e: Error) => e);
    expect(error).to.be.instanceOf(GuardTrippedTransaction);
  });

  it("a decided value that trips a guard is not stored: the close fails, the tip stays, and it can be retried", async () => {
    const tip = chain.ledgers.lastHeader.seq!;
    const error = await chain.ledgers.close({ ...next(), txs: [plain, heavy] }, "decided").catch((e: Error) => e);
    expect(error).to.be.instanceOf(GuardTrippedTransaction);
    expect(chain.ledgers.lastHeader.seq).to.equal(tip);
    expect(await chain.record(plain)).to.equal(undefined);
    const retried = await chain.ledgers.close({ ...next(), txs: [plain] }, "decided");
    expect(retried.header.seq).to.equal(tip + 1n);
  });
});
