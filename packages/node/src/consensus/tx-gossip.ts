import { codecs, SignedTransaction } from "@chainsim/protocol";
import type { PeerNetwork } from "../p2p/index.js";
import type { TxService } from "../pool/tx-service.js";
import { systemClock, type Clock, type ClockTimer } from "../clock.js";

/** Transactions collected this long are passed on in one message (one frame per peer instead of one per transaction). */
const BATCH_MS = 5;
export const BATCH_MAX = 1000;
/**
 * A message's transactions stop at this many bytes (a frame may hold 32 MiB): a batch of large pooled
 * transactions passed that cap, and the throw ended the validator (docs/consensus.md, "Transaction gossip").
 */
export const BATCH_MAX_BYTES = 4 << 20;
/**
 * Transactions still pooled after this long are passed on again: a validator that was down (or a message
 * lost) when they were first passed on would otherwise never see them, and if it is the primary, never
 * propose them. Each time a transaction is passed on again, the wait before the next doubles, up to
 * REGOSSIP_MAX_MS: passing the whole pool on every 2 s kept the links full of transactions that waited
 * behind a nonce gap.
 */
const REGOSSIP_MS = 2000;
export const REGOSSIP_MAX_MS = 32_000;

/**
 * Passes every transaction a client submits to this validator on to the others, so that whichever
 * validator is primary can propose it. Transactions from peers are admitted with the same checks and not
 * passed on again at once (every validator is connected to every other); any transaction still waiting
 * after REGOSSIP_MS is passed on again.
 */
export class TxGossip {
  private batch: SignedTransaction[] = [];
  private batchBytes = 0;
  /** When each pooled transaction is next passed on again, and the wait after that. */
  private readonly again = new Map<string, { due: number; wait: number }>();
  private timer: ClockTimer | undefined;
  private regossip: ClockTimer | undefined;
  private running = false;

  constructor(
    private readonly network: PeerNetwork,
    private readonly txs: TxService,
    private readonly log: (line: string) => void,
    private readonly clock: Clock = systemClock,
  ) {
    txs.onAdmitted((tx, origin) => {
      if (origin === "client" && this.running) this.add(tx);
    });
  }

  start(): void {
    this.running = true;
    this.regossip = this.clock.setInterval(() => this.passOnWaiting(), REGOSSIP_MS);
  }

  stop(): void {
    this.running = false;
    this.clock.clear(this.timer);
    this.clock.clear(this.regossip);
    this.batch = [];
    this.batchBytes = 0;
    this.again.clear();
  }

  receive(from: string, payload: Uint8Array): void {
    const garbage = (why: string) => {
      this.log(`gossip: ${from} ${why}`);
      this.network.penalize(from, "garbage");
    };
    let txs: SignedTransaction[];
    try {
      const envs = codecs.TxBatch.decode(payload).txs ?? [];
      // add() passes on at most BATCH_MAX per message: more is the sender's doing, and would cost a verification each.
      if (envs.length > BATCH_MAX) return garbage(`sent ${envs.length} transactions in one message (at most ${BATCH_MAX})`);
      txs = envs.map((env) => SignedTransaction.fromEnv(env));
    } catch (error) {
      return garbage(`sent transactions that do not decode: ${(error as Error).message}`);
    }
    const seen = new Set<string>();
    for (const tx of txs) {
      if (seen.has(tx.hashHex) || this.txs.pool.get(tx.hashHex)) continue;
      seen.add(tx.hashHex);
      try {
        this.txs.checkSignatures(tx);
      } catch (error) {
        // Honest validators verify a transaction before passing it on: a bad signature is the sender's doing, and
        // the rest of its message is dropped unverified (docs/networks.md, "Hostile peers").
        return garbage(`passed on transaction ${tx.hashHex}: ${(error as Error).message}`);
      }
      // Other refusals are expected (a transaction included meanwhile, a nonce passed): the client saw its own answer.
      void this.txs.submit(tx, "peer").catch(() => undefined);
    }
  }

  /** Passes on again the pooled transactions whose wait is over (`now`: ms since the epoch, as pool arrivals). */
  passOnWaiting(now = this.clock.now()): void {
    const { pool } = this.txs;
    for (const hashHex of this.again.keys()) if (!pool.get(hashHex)) this.again.delete(hashHex);
    for (const { tx, incomingTime } of pool.entries()) {
      const schedule = this.again.get(tx.hashHex) ?? { due: incomingTime + REGOSSIP_MS, wait: REGOSSIP_MS };
      if (now >= schedule.due) {
        this.add(tx);
        schedule.wait = Math.min(2 * schedule.wait, REGOSSIP_MAX_MS);
        schedule.due = now + schedule.wait;
      }
      this.again.set(tx.hashHex, schedule);
    }
  }

  private add(tx: SignedTransaction): void {
    if (this.batch.length > 0 && this.batchBytes + tx.envSize > BATCH_MAX_BYTES) this.flush();
    this.batch.push(tx);
    this.batchBytes += tx.envSize;
    if (this.batch.length >= BATCH_MAX) this.flush();
    else this.timer ??= this.clock.setTimeout(() => this.flush(), BATCH_MS);
  }

  private flush(): void {
    this.clock.clear(this.timer);
    this.timer = undefined;
    const txs = this.batch.splice(0);
    this.batchBytes = 0;
    if (txs.length === 0) return;
    try {
      this.network.broadcast(codecs.TxBatch.encode({ txs: txs.map((tx) => tx.env()) }), "txs");
    } catch (error) {
      // A transaction too large for a frame on its own is not passed on; the validator goes on.
      this.log(`gossip: ${txs.length} transactions could not be passed on: ${(error as Error).message}`);
    }
  }
}
