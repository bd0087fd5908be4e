import { expect } from "chai";
import { verifierOf } from "@chainsim/consensus";
import { codecs, SignedTransaction, type ConsensusValue } from "@chainsim/protocol";
import { checkProposal, InvalidProposal } from "../src/consensus/proposal-check.js";
import { decidedProposal, valueDigest } from "../src/consensus/decided-values.js";
import { ProposalSize } from "../src/consensus/proposal-size.js";
import { validatorCrypto } from "../src/consensus/validator-crypto.js";
import { TestChain, chainPerTest, makeKey, op } from "./helpers/chain.js";

/** What a validator does with proposed and decided values (packages/node/src/consensus). */
describe("consensus values in the node", () => {
  let chain: TestChain;
  chainPerTest((c) => (chain = c));
  const user = makeKey("values-user");
  const now = 1_700_000_000_000;

  /** A value the validator itself would propose after the tip: executed in "propose" mode, encoded. */
  async function proposal(patch: Partial<ConsensusValue> = {}): Promise<{ value: Uint8Array; digest: string }> {
    const tx = await chain.tx(chain.genesis, [op.pay(user.address, 1_000n)]);
    const executed = await chain.ledgers.execute({ closeTime: BigInt(now) * 1000n, proposer: chain.validator.address, txs: [tx] }, "propose");
    const value = codecs.ConsensusValue.encode({ ...executed.value, ...patch });
    return { value, digest: valueDigest(value) };
  }

  function verifier() {
    const crypto = validatorCrypto(chain.config, chain.validator.signer, chain.validator.address);
    return verifierOf({ validators: chain.config.validators, self: 0, ckpInterval: 10, viewTimeoutMs: 1000, crypto });
  }

  async function refusal(value: Uint8Array, digest: string, primary = chain.validator.address): Promise<string> {
    try {
      await checkProposal(chain.ledgers, verifier(), primary, value, digest, now);
    } catch (error) {
      expect(error).to.be.instanceOf(InvalidProposal);
      return (error as Error).message;
    }
    return "accepted";
  }

  it("accepts the value its own execution gives, and hands back the executed ledger to commit", async () => {
    const { value, digest } = await proposal();
    const executed = await checkProposal(chain.ledgers, verifier(), chain.validator.address, value, digest, now);
    expect(executed.included).to.have.length(1);
    const ledger = await chain.ledgers.commit(executed);
    expect(ledger.header.seq).to.equal(2n);
    expect(await chain.balance(user.address)).to.equal(1_000n);
  });

  it("executes the pooled twin of a proposed transaction (its signatures were verified at admission), never a twin signed otherwise", async () => {
    const tx = await chain.tx(chain.genesis, [op.pay(user.address, 1_000n)]);
    expect(await chain.submit(tx)).to.equal(0);
    const executed = await chain.ledgers.execute({ closeTime: BigInt(now) * 1000n, proposer: chain.validator.address, txs: [tx] }, "propose");
    const value = codecs.ConsensusValue.encode(executed.value);
    const pooled = (candidate: { hashHex: string }) => chain.txs.pool.get(candidate.hashHex)?.tx;
    const checked = await checkProposal(chain.ledgers, verifier(), chain.validator.address, value, valueDigest(value), now, pooled);
    expect(checked.included[0]).to.equal(tx);
    const otherSignature = { ...tx.signatures[0]!, sign_data: new Uint8Array(64) };
    const resigned = SignedTransaction.fromEnv({ transaction: tx.blob, signatures: [otherSignature] });
    expect(resigned.sameAs(tx)).to.equal(false);
    expect(SignedTransaction.fromEnv(tx.env()).sameAs(tx)).to.equal(true);
  });

  it("refuses values that do not follow the tip, name a stranger, come from the future, or hide extra bytes", async () => {
    const { value: good, digest } = await proposal();
    expect(await refusal(codecs.ConsensusValue.encode({ ...codecs.ConsensusValue.decode(good), ledger_seq: 3n }), digest)).to.match(/for ledger 3, the next is 2/);
    expect(await refusal((await proposal({ previous_ledger_hash: new Uint8Array(32) })).value, digest)).to.match(/does not follow/);
    expect(await refusal((await proposal({ proposer: user.address })).value, digest)).to.match(/is not a validator/);
    // A validator, but not the primary of the view the value was proposed in: it would collect the fees.
    expect(await refusal(good, digest, "did:bid:efSomeoneElse")).to.match(/is not the primary of this view/);
    expect(await refusal((await proposal({ close_time: BigInt(now + 60_000) * 1000n })).value, digest)).to.match(/ahead/);
    expect(await refusal(new Uint8Array([0xff, 0xff]), digest)).to.match(/does not decode/);
    // Bytes another encoder added: the digest of what this validator's execution gives differs.
    const padded = new Uint8Array([...good, 0x50, 0x00]);
    expect(await refusal(padded, valueDigest(padded))).to.match(/not in the form/);
  });

  it("refuses a value with a transaction that fails its checks (verify mode)", async () => {
    const stranger = makeKey("values-stranger"); // no account: the transaction's source does not exist
    const tx = await chain.tx(stranger, [op.pay(user.address, 1n)], { nonce: 1n });
    const executed = await chain.ledgers.execute({ closeTime: BigInt(now) * 1000n, proposer: chain.validator.address, txs: [] }, "propose");
    const value = codecs.ConsensusValue.encode({ ...executed.value, txs: [tx.env()] });
    expect(await refusal(value, valueDigest(value))).to.match(/does not execute/);
  });

  it("executes a null request, or a decided value that does not follow the tip, as an empty ledger one microsecond later", async () => {
    const tip = chain.ledgers.lastHeader;
    const empty = { closeTime: (tip.close_time ?? 0n) + 1n, proposer: "", txs: [] };
    expect(decidedProposal(null, tip)).to.deep.equal(empty);
    const { value } = await proposal({ previous_ledger_hash: new Uint8Array(32) });
    expect(decidedProposal(value, tip)).to.deep.equal(empty);
    const follows = decidedProposal((await proposal()).value, tip);
    expect(follows.txs).to.have.length(1);
    expect(follows.proposer).to.equal(chain.validator.address);
  });
});

describe("proposal size", () => {
  it("starts small, then fits a quarter of the view timeout at the measured pace, within [10, max_txs_per_ledger]", () => {
    const size = new ProposalSize(2000, 10_000);
    expect(size.limit).to.equal(100);
    size.record(9, 10_000); // too few transactions to say anything
    expect(size.limit).to.equal(100);
    size.record(100, 100); // 1 ms each: 500 ms buys 500
    expect(size.limit).to.equal(500);
    size.record(1000, 1_000_000); // very slow now: the floor holds
    expect(size.limit).to.equal(10);
    const fast = new ProposalSize(2000, 1000);
    fast.record(1000, 10); // 0.01 ms each: the manifest's cap holds
    expect(fast.limit).to.equal(1000);
  });
});
