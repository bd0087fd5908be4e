// A ledger holds at most LEDGER_TX_BYTES of transactions (docs/consensus.md, "Transactions"): a primary's
// PRE-PREPARE carries its value in one frame of at most 32 MiB, and forty pooled transactions of 0.9 MB made
// a value that no primary could send, so every view failed on it in turn.
import { expect } from "chai";
import { ChainError, codecs, type SignedTransaction } from "@chainsim/protocol";
import { LEDGER_TX_BYTES } from "../src/execution/executor.js";
import { MAX_FRAME_BYTES } from "../src/p2p/frames.js";
import { TestChain, chainPerTest, makeKey } from "./helpers/chain.js";

describe("transaction bytes per ledger", function () {
  this.timeout(60_000);
  let chain: TestChain;
  const newChain = chainPerTest((c) => (chain = c));
  /** Enough 0.9 MB transactions to pass the limit by two. */
  const count = Math.ceil(LEDGER_TX_BYTES / 900_000) + 2;
  const users = Array.from({ length: count }, (_, i) => makeKey(`bytes-user-${i}`));
  let large: SignedTransaction[];

  beforeEach(async () => {
    chain = await newChain();
    for (const user of users) await chain.fund(user, 1_000_000_000_000n);
    large = await Promise.all(
      users.map((user, i) => chain.tx(user, [{ type: 7, pay_coin: { dest_address: chain.genesis.address, amount: 1n, input: `${i} ${"x".repeat(900_000)}` } }], { fee_limit: 200_000_000n })),
    );
  });

  const next = () => ({ closeTime: (chain.ledgers.lastHeader.close_time ?? 0n) + 1_000_000n, proposer: chain.validator.address });
  const bytesOf = (txs: SignedTransaction[]) => txs.reduce((sum, tx) => sum + tx.envSize, 0);

  it("a proposer stops once its ledger holds them (the crossing transaction is in), leaving the rest in the pool, and the value fits a frame", async () => {
    const ledger = await chain.ledgers.close({ ...next(), txs: large }, "propose");
    const held = ledger.included.length;
    expect(bytesOf(large.slice(0, held - 1))).to.be.below(LEDGER_TX_BYTES);
    expect(bytesOf(large.slice(0, held))).to.be.at.least(LEDGER_TX_BYTES);
    expect(ledger.included.map((tx) => tx.hashHex)).to.deep.equal(large.slice(0, held).map((tx) => tx.hashHex));
    expect([ledger.refused.length, ledger.full]).to.deep.equal([0, true]);
    expect(bytesOf(large)).to.be.above(LEDGER_TX_BYTES + 1_000_000);
    expect(codecs.ConsensusValue.encode(ledger.value).length).to.be.below(MAX_FRAME_BYTES / 3);
    // The rest goes into the next ledger.
    const rest = await chain.ledgers.close({ ...next(), txs: large.slice(held) }, "propose");
    expect(rest.included.length).to.equal(count - held);
  });

  it("a backup refuses a value that goes on past them; a decided value is applied whole", async () => {
    const error = await chain.ledgers.execute({ ...next(), txs: large }, "verify").catch((e: Error) => e);
    expect(error).to.be.instanceOf(ChainError);
    expect((error as ChainError).message).to.include(`past ${LEDGER_TX_BYTES} bytes of transactions`);
    const decided = await chain.ledgers.close({ ...next(), txs: large }, "decided");
    expect(decided.included).to.have.length(count);
  });
});
