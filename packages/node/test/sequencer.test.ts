import { expect } from "chai";
import { DEFAULT_CONSENSUS } from "../src/config.js";
import { SoloSequencer } from "../src/ledger/solo-sequencer.js";
import { TestChain, makeKey, op } from "./helpers/chain.js";

describe("SoloSequencer", () => {
  const consensus = { ...DEFAULT_CONSENSUS, close_interval_ms: 1_000, empty_close_interval_ms: 10_000 };
  let chain: TestChain;
  let sequencer: SoloSequencer;
  const seq = () => chain.ledgers.lastHeader.seq!;
  const advance = async (ms: number) => {
    chain.now += ms;
    await sequencer.step();
  };

  beforeEach(async () => {
    chain = await TestChain.create();
    sequencer = new SoloSequencer(chain.ledgers, chain.txs, consensus, chain.validator.address, () => {}, () => chain.now);
  });
  afterEach(async () => chain.teardown());

  it("closes an empty ledger only after empty_close_interval_ms", async () => {
    await advance(9_999);
    expect(seq()).to.equal(1n);
    await advance(1);
    expect(seq()).to.equal(2n);
  });

  it("closes close_interval_ms after the last ledger when a transaction is ready", async () => {
    const A = makeKey("seq-a");
    expect(await chain.submit(await chain.tx(chain.genesis, [op.pay(A.address, 5n)]))).to.equal(0);
    await advance(999);
    expect(seq()).to.equal(1n);
    await advance(1);
    expect(seq()).to.equal(2n);
    expect(chain.txs.pool.size).to.equal(0);
  });

  it("does not close empty ledgers early for a transaction whose nonce is ahead", async () => {
    const A = makeKey("seq-b");
    const ahead = await chain.tx(chain.genesis, [op.pay(A.address, 5n)], { nonce: 2n });
    expect(await chain.submit(ahead)).to.equal(0);
    for (let i = 0; i < 9; i++) await advance(1_000);
    expect(seq()).to.equal(1n, "no ledger while only a future nonce waits");
    await advance(1_000);
    expect(seq()).to.equal(2n, "the empty interval still closes a ledger");
    expect(chain.txs.pool.size).to.equal(1);
    expect(await chain.submit(await chain.tx(chain.genesis, [op.pay(A.address, 5n)], { nonce: 1n }))).to.equal(0);
    await advance(1_000);
    expect(seq()).to.equal(3n);
    expect(chain.txs.pool.size).to.equal(0, "both nonces went into the ledger");
  });
});
