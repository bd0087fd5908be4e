// Transaction gossip (docs/consensus.md, "Transaction gossip"): batches bounded in bytes, and transactions
// passed on again with a growing wait. A batch of large pooled transactions passed the frame cap and its
// throw ended the validator; the whole pool, passed on every 2 s, kept the links full (review of 2026-11-27).
import { expect } from "chai";
import { ChainError, ErrorCode, codecs, type SignedTransaction } from "@chainsim/protocol";
import { BATCH_MAX, BATCH_MAX_BYTES, REGOSSIP_MAX_MS, TxGossip } from "../src/consensus/tx-gossip.js";
import type { PeerNetwork } from "../src/p2p/index.js";
import type { TxService } from "../src/pool/tx-service.js";
import { TxPool } from "../src/pool/tx-pool.js";
import { buildTx, makeKey, op } from "./helpers/chain.js";

const A = makeKey("a");

/** A gossip over a pool of its own, recording what it broadcasts (hashes per message). */
function harness(broadcastFails = false) {
  const pool = new TxPool({ total: 1000, totalBytes: 1 << 30, perAccount: 1000, expiryMs: 10 ** 9 });
  const sent: string[][] = [];
  const logs: string[] = [];
  const network = {
    broadcast(payload: Uint8Array) {
      if (broadcastFails) throw new Error("frame too large");
      sent.push((codecs.TxBatch.decode(payload).txs ?? []).map((env) => String(codecs.Transaction.decode(env.transaction!).nonce)));
    },
  } as unknown as PeerNetwork;
  const txs = { pool, onAdmitted() {} } as unknown as TxService;
  return { pool, sent, logs, gossip: new TxGossip(network, txs, (line) => logs.push(line)) };
}

/** A transaction of about `bytes` bytes. */
const sized = (nonce: bigint, bytes: number): Promise<SignedTransaction> => buildTx(A, [op.log("t", ["x".repeat(bytes)])], { nonce });

describe("TxGossip", () => {
  it("splits what it passes on into messages of at most BATCH_MAX_BYTES", async () => {
    const { pool, sent, gossip } = harness();
    const third = Math.floor(BATCH_MAX_BYTES / 3);
    for (let n = 1n; n <= 7n; n++) pool.insert(await sized(n, third), 0);
    gossip.passOnWaiting(2000);
    (gossip as unknown as { flush(): void }).flush();
    expect(sent).to.deep.equal([["1", "2"], ["3", "4"], ["5", "6"], ["7"]]);
  });

  it("passes a waiting transaction on again after 2 s, then after 4, 8, 16 and every 32 s", async () => {
    const { pool, sent, gossip } = harness();
    pool.insert(await sized(1n, 10), 0);
    const passedAt: number[] = [];
    for (let now = 0; now <= 120_000; now += 1000) {
      gossip.passOnWaiting(now);
      (gossip as unknown as { flush(): void }).flush();
      if (sent.length > passedAt.length) passedAt.push(now);
    }
    expect(passedAt).to.deep.equal([2000, 6000, 14_000, 30_000, 30_000 + REGOSSIP_MAX_MS, 30_000 + 2 * REGOSSIP_MAX_MS]);
  });

  it("logs a batch the network cannot send, and goes on", async () => {
    const { pool, logs, gossip } = harness(true);
    pool.insert(await sized(1n, 10), 0);
    gossip.passOnWaiting(2000);
    expect(() => (gossip as unknown as { flush(): void }).flush()).to.not.throw();
    expect(logs).to.deep.equal(["gossip: 1 transactions could not be passed on: frame too large"]);
  });

  describe("transactions received from a peer", () => {
    /**
     * A gossip over a pool whose signature check refuses the transactions of `forgedNonces` and whose submit
     * refuses every transaction with `refusal`; it records penalties, checks and submissions (nonces).
     */
    function receiving(options: { forgedNonces?: bigint[]; refusal?: Error } = {}) {
      const penalties: string[] = [];
      const checked: bigint[] = [];
      const submitted: bigint[] = [];
      const network = { penalize: (peer: string, offence: string) => penalties.push(`${peer} ${offence}`) } as unknown as PeerNetwork;
      const pool = new TxPool({ total: 1000, totalBytes: 1 << 30, perAccount: 1000, expiryMs: 10 ** 9 });
      const txs = {
        pool,
        onAdmitted() {},
        checkSignatures(tx: SignedTransaction) {
          checked.push(tx.transaction.nonce!);
          if (options.forgedNonces?.includes(tx.transaction.nonce!)) throw new ChainError(ErrorCode.SIGNATURE_WEIGHT_NOT_ENOUGH, "signatures[0] does not verify against the blob");
        },
        submit(tx: SignedTransaction) {
          submitted.push(tx.transaction.nonce!);
          return options.refusal ? Promise.reject(options.refusal) : Promise.resolve("added");
        },
      } as unknown as TxService;
      const gossip = new TxGossip(network, txs, () => undefined);
      const send = async (batch: SignedTransaction[]) => {
        gossip.receive("v2", codecs.TxBatch.encode({ txs: batch.map((tx) => tx.env()) }));
        await new Promise((resolve) => setImmediate(resolve));
      };
      return { penalties, checked, submitted, send, pool };
    }
    const batchOf = (nonces: bigint[]) => Promise.all(nonces.map((n) => sized(n, 10)));

    it("penalises the sender of a bad signature as garbage once, and drops the rest of its message unverified", async () => {
      const { penalties, checked, submitted, send } = receiving({ forgedNonces: [2n] });
      await send(await batchOf([1n, 2n, 3n, 4n]));
      expect(penalties).to.deep.equal(["v2 garbage"]);
      expect(checked).to.deep.equal([1n, 2n]);
      expect(submitted).to.deep.equal([1n]);
    });

    it("penalises a message of more than BATCH_MAX transactions without verifying any", async () => {
      const { penalties, checked, send } = receiving();
      const one = await sized(1n, 10);
      await send(Array.from({ length: BATCH_MAX + 1 }, () => one));
      expect(penalties).to.deep.equal(["v2 garbage"]);
      expect(checked).to.deep.equal([]);
    });

    it("verifies a transaction once per message, and not at all when it is pooled already", async () => {
      const { checked, submitted, send, pool } = receiving();
      const [one, two] = await batchOf([1n, 2n]);
      pool.insert(two, 0);
      await send([one, one, two, one]);
      expect(checked).to.deep.equal([1n]);
      expect(submitted).to.deep.equal([1n]);
    });

    it("does not penalise refusals an honest peer can cause (a nonce passed meanwhile, weights changed)", async () => {
      for (const refusal of [new ChainError(ErrorCode.BAD_NONCE, "nonce passed"), new ChainError(ErrorCode.SIGNATURE_WEIGHT_NOT_ENOUGH, "weight 1 of 2")]) {
        const { penalties, submitted, send } = receiving({ refusal });
        await send(await batchOf([1n, 2n]));
        expect(penalties, refusal.message).to.deep.equal([]);
        expect(submitted).to.deep.equal([1n, 2n]);
      }
    });
  });
});
