// The transaction pool (compat.md §5 "Pool"): TxPool on its own, then through TxService.
import { expect } from "chai";
import { ErrorCode, type SignedTransaction } from "@chainsim/protocol";
import { DEFAULT_POOL_LIMITS, TxPool } from "../src/pool/tx-pool.js";
import { TestChain, buildTx, codeOf, makeKey, op, recordCode, type Key } from "./helpers/chain.js";

const A = makeKey("a");
const B = makeKey("b");
const C = makeKey("c");
const DEST = makeKey("dest").address;

/** A transaction for the pool alone: nothing checks its state. `tag` makes different hashes. */
function tx(source: Key, nonce: bigint, gas_price = 100n, tag = "x"): Promise<SignedTransaction> {
  return buildTx(source, [op.log("t", [tag])], { nonce, gas_price });
}

describe("TxPool", () => {
  it("uses the limits of compat.md §5 by default", () => {
    expect(DEFAULT_POOL_LIMITS).to.deep.equal({ total: 10_240, totalBytes: 64 << 20, perAccount: 64, expiryMs: 600_000 });
  });

  it("lets a lower nonce push out an account's highest when the account's queue is full (a later one is refused)", async () => {
    const pool = new TxPool({ total: 100, perAccount: 2, expiryMs: 1000, totalBytes: 1 << 20 });
    const [five, six, four, seven] = await Promise.all([tx(A, 5n), tx(A, 6n), tx(A, 4n), tx(A, 7n)]);
    pool.insert(five, 0);
    pool.insert(six, 0);
    expect(await codeOf(() => pool.insert(seven, 1))).to.equal(ErrorCode.TX_POOL_FULL);
    expect(pool.insert(four, 1)).to.equal("added");
    expect(pool.get(six.hashHex)).to.equal(undefined);
    expect([pool.get(four.hashHex), pool.get(five.hashHex)].every(Boolean)).to.equal(true);
  });

  it("treats the same hash twice as a duplicate", async () => {
    const pool = new TxPool();
    const t = await tx(A, 1n);
    expect(pool.insert(t, 0)).to.equal("added");
    expect(pool.insert(t, 1)).to.equal("duplicate");
    expect(pool.size).to.equal(1);
    expect(pool.get(t.hashHex)!.incomingTime).to.equal(0);
  });

  it("replaces the same source + nonce only for gas_price ≥ 1.1 × the pooled one (else 160)", async () => {
    const pool = new TxPool();
    const first = await tx(A, 1n, 1000n);
    pool.insert(first, 0);
    const cheap = await tx(A, 1n, 1099n, "cheap");
    expect(await codeOf(() => pool.insert(cheap, 1))).to.equal(ErrorCode.POOL_INSERT_REFUSED);
    expect(pool.get(first.hashHex)).to.not.equal(undefined);
    const enough = await tx(A, 1n, 1100n, "enough");
    expect(pool.insert(enough, 2)).to.equal("replaced");
    expect(pool.get(first.hashHex)).to.equal(undefined);
    expect(pool.get(enough.hashHex)!.incomingTime).to.equal(2);
    expect(pool.size).to.equal(1);
    // The bar rises with each replacement: ≥ 1210 now.
    expect(await codeOf(async () => pool.insert(await tx(A, 1n, 1209n, "again"), 3))).to.equal(ErrorCode.POOL_INSERT_REFUSED);
  });

  it("rounds the replacement bar up: 101 needs 112", async () => {
    const pool = new TxPool();
    pool.insert(await tx(A, 1n, 101n), 0);
    expect(await codeOf(async () => pool.insert(await tx(A, 1n, 111n, "111"), 1))).to.equal(ErrorCode.POOL_INSERT_REFUSED);
    expect(pool.insert(await tx(A, 1n, 112n, "112"), 1)).to.equal("replaced");
  });

  it("refuses a 65th transaction of one account with 114; other accounts still fit", async () => {
    const pool = new TxPool();
    for (let n = 1n; n <= 64n; n++) expect(pool.insert(await tx(A, n), 0)).to.equal("added");
    expect(await codeOf(async () => pool.insert(await tx(A, 65n), 0))).to.equal(ErrorCode.TX_POOL_FULL);
    expect(pool.insert(await tx(B, 1n), 0)).to.equal("added");
    // A replacement does not add, so it is allowed at the limit.
    expect(pool.insert(await tx(A, 64n, 200n, "replacement"), 0)).to.equal("replaced");
    expect(pool.size).to.equal(65);
  });

  it("makes room in a full pool by the last transaction of the account holding the most; that account itself gets 114", async () => {
    const pool = new TxPool({ total: 3, perAccount: 64, expiryMs: 1000, totalBytes: 1 << 20 });
    const [a1, a2, b1, c1] = [await tx(A, 1n), await tx(A, 2n), await tx(B, 1n), await tx(C, 1n)];
    pool.insert(a1, 0);
    pool.insert(a2, 0);
    pool.insert(b1, 0);
    expect(await codeOf(async () => pool.insert(await tx(A, 3n), 0))).to.equal(ErrorCode.TX_POOL_FULL);
    expect(pool.insert(c1, 0)).to.equal("added");
    expect(pool.get(a2.hashHex)).to.equal(undefined);
    expect([a1, b1, c1].every((t) => pool.get(t.hashHex))).to.equal(true);
    // A replacement adds nothing to the count.
    expect(pool.insert(await tx(B, 1n, 110n, "replacement"), 0)).to.equal("replaced");
    expect(pool.size).to.equal(3);
  });

  it("makes room by bytes the same way: the account holding the most bytes loses its last transaction (review of 2026-11-27)", async () => {
    const [a1, a2, b1] = [await tx(A, 1n), await tx(A, 2n), await tx(B, 1n)];
    const big = await buildTx(C, [op.log("t", ["x".repeat(400)])], { nonce: 1n });
    const pool = new TxPool({ total: 100, perAccount: 64, expiryMs: 1000, totalBytes: big.envSize + a1.envSize });
    pool.insert(big, 0);
    pool.insert(a1, 0);
    expect(pool.byteSize).to.equal(big.envSize + a1.envSize);
    // C holds the most bytes: its transaction makes room for B's.
    expect(pool.insert(b1, 0)).to.equal("added");
    expect(pool.get(big.hashHex)).to.equal(undefined);
    expect(pool.byteSize).to.equal(a1.envSize + b1.envSize);
    // A replacement counts by what it adds; the account holding the most gets 114 rather than push out others.
    pool.insert(a2, 0);
    const longer = await buildTx(A, [op.log("t", ["x".repeat(2000)])], { nonce: 2n, gas_price: 200n });
    expect(await codeOf(() => pool.insert(longer, 0))).to.equal(ErrorCode.TX_POOL_FULL);
  });

  it("expires transactions expiryMs after their arrival", async () => {
    const pool = new TxPool({ total: 100, perAccount: 64, expiryMs: 1000, totalBytes: 1 << 20 });
    const early = await tx(A, 1n);
    const late = await tx(B, 1n);
    pool.insert(early, 0);
    pool.insert(late, 500);
    expect(pool.expire(999)).to.deep.equal([]);
    expect(pool.expire(1000)).to.deep.equal([early]);
    expect(pool.size).to.equal(1);
    expect(pool.sources()).to.deep.equal([B.address]);
    expect(pool.expire(1500)).to.deep.equal([late]);
    expect(pool.size).to.equal(0);
    expect(pool.accountCount).to.equal(0);
  });

  it("selects each account's transactions in nonce order from the next nonce, without gaps", async () => {
    const pool = new TxPool();
    const [a1, a2, a4, b5, b6, c1] = [await tx(A, 1n), await tx(A, 2n), await tx(A, 4n), await tx(B, 5n), await tx(B, 6n), await tx(C, 1n)];
    // Arrival order decides which account comes first: B's oldest arrived first.
    pool.insert(b6, 10);
    pool.insert(a4, 20);
    pool.insert(a2, 30);
    pool.insert(b5, 40);
    pool.insert(a1, 50);
    pool.insert(c1, 60);
    const next = new Map([
      [A.address, 1n],
      [B.address, 5n],
    ]);
    expect(pool.select(100, (s) => next.get(s))).to.deep.equal([b5, b6, a1, a2]);
    expect(pool.select(3, (s) => next.get(s))).to.deep.equal([b5, b6, a1]);
    expect(pool.select(100, (s) => (s === A.address ? 2n : undefined))).to.deep.equal([a2]);
    expect(pool.select(100, () => 3n)).to.deep.equal([]);
    expect(pool.size).to.equal(6, "select does not remove");
  });

  it("removeUpTo drops an account's nonces up to the applied one", async () => {
    const pool = new TxPool();
    const txs = [await tx(A, 1n), await tx(A, 2n), await tx(A, 3n)];
    txs.forEach((t) => pool.insert(t, 0));
    expect(pool.removeUpTo(A.address, 2n)).to.deep.equal(txs.slice(0, 2));
    expect([...pool.entries()].map((e) => e.tx)).to.deep.equal([txs[2]]);
  });
});

describe("TxService", () => {
  let chain: TestChain;
  beforeEach(async () => {
    chain = await TestChain.create();
    await chain.fund(A);
  });
  afterEach(() => chain.teardown());

  it("answers a duplicate with success, pooled or already in a ledger, without pooling it again", async () => {
    const t = await chain.tx(A, [op.pay(DEST, 1n)]);
    expect(await chain.txs.submit(t)).to.equal("added");
    expect(await chain.txs.submit(t)).to.equal("duplicate");
    expect(chain.txs.pool.size).to.equal(1);
    await chain.close();
    expect(recordCode(await chain.record(t))).to.equal(0);
    expect(await chain.txs.submit(t)).to.equal("duplicate");
    expect(chain.txs.pool.size).to.equal(0);
    expect(await chain.balance(DEST)).to.equal(1n);
  });

  it("replaces a pooled transaction only for gas_price ≥ 1.1 ×; the replacement is the one applied", async () => {
    const first = await chain.tx(A, [op.pay(DEST, 1n)]);
    const cheap = await chain.tx(A, [op.pay(DEST, 2n)], { gas_price: 109n });
    const enough = await chain.tx(A, [op.pay(DEST, 3n)], { gas_price: 110n });
    expect(await chain.submit(first)).to.equal(0);
    expect(await chain.submit(cheap)).to.equal(ErrorCode.POOL_INSERT_REFUSED);
    expect(await chain.txs.submit(enough)).to.equal("replaced");
    const ledger = await chain.close();
    expect(ledger.included).to.deep.equal([enough]);
    expect(await chain.balance(DEST)).to.equal(3n);
    expect(await chain.record(first)).to.equal(undefined);
  });

  it("refuses a 65th waiting transaction of one account with 114", async () => {
    for (let nonce = 1n; nonce <= 64n; nonce++) expect(await chain.submit(await chain.tx(A, [op.log("t", [String(nonce)])], { nonce }))).to.equal(0);
    expect(await chain.submit(await chain.tx(A, [op.log("t", ["65"])], { nonce: 65n }))).to.equal(ErrorCode.TX_POOL_FULL);
    expect(await chain.submit(await chain.tx(chain.genesis, [op.log("t", ["other account"])]))).to.equal(0);
    const ledger = await chain.close();
    expect(ledger.included).to.have.length(65);
    expect((await chain.account(A.address))!.nonce).to.equal(64n);
    expect(await chain.submit(await chain.tx(A, [op.log("t", ["65"])], { nonce: 65n }))).to.equal(0);
  });

  it("drops expired transactions before proposing (10 minutes)", async () => {
    const t = await chain.tx(A, [op.pay(DEST, 1n)]);
    expect(await chain.submit(t)).to.equal(0);
    chain.now += 10 * 60 * 1000 - 1;
    expect(await chain.txs.nextProposal(10)).to.deep.equal([t]);
    chain.now += 1;
    expect(await chain.txs.nextProposal(10)).to.deep.equal([]);
    expect(chain.txs.pool.size).to.equal(0);
    await chain.close();
    expect(await chain.record(t)).to.equal(undefined);
  });

  it("proposes in nonce order whatever the arrival order, and clears what the ledger applied", async () => {
    const txs = [await chain.tx(A, [op.log("t", ["1"])], { nonce: 1n }), await chain.tx(A, [op.log("t", ["2"])], { nonce: 2n }), await chain.tx(A, [op.log("t", ["3"])], { nonce: 3n })];
    for (const i of [2, 0, 1]) expect(await chain.submit(txs[i])).to.equal(0);
    expect(await chain.txs.nextProposal(2)).to.deep.equal(txs.slice(0, 2));
    const ledger = await chain.close(await chain.txs.nextProposal(2));
    expect(ledger.included).to.deep.equal(txs.slice(0, 2));
    expect([...chain.txs.pool.entries()].map((e) => e.tx)).to.deep.equal([txs[2]]);
    await chain.close();
    expect((await chain.account(A.address))!.nonce).to.equal(3n);
    expect(chain.txs.pool.size).to.equal(0);
  });

  it("removes from the pool a transaction the ledger refused", async () => {
    // Admitted with enough balance; the first transaction spends it, so the second cannot pay its fee_limit.
    const balance = await chain.balance(A.address);
    const spend = await chain.tx(A, [op.pay(DEST, balance - 1_000_000n)]);
    const broke = await chain.tx(A, [op.log("t", ["x"])], { nonce: 2n });
    expect(await chain.submit(spend)).to.equal(0);
    expect(await chain.submit(broke)).to.equal(0);
    const ledger = await chain.close();
    expect(ledger.included).to.deep.equal([spend]);
    expect(ledger.refused.map((r) => r.error.code)).to.deep.equal([ErrorCode.LOW_RESERVE]);
    expect(chain.txs.pool.size).to.equal(0);
  });
});
