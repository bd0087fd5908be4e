import { codecs, SignedTransaction } from "@chainsim/protocol";
import type { PeerNetwork } from "../p2p/index.js";
import type { TxService } from "../pool/tx-service.js";

/** Transactions collected this long are passed on in one message (one frame per peer instead of one per transaction). */
const BATCH_MS = 5;
const BATCH_MAX = 1000;
/**
 * Transactions still pooled after this long are passed on again, every this long: a validator that was
 * down (or a message lost) when they were first passed on would otherwise never see them, and if it is
 * the primary, never propose them.
 */
const REGOSSIP_MS = 2000;

/**
 * Passes every transaction a client submits to this validator on to the others, so that whichever
 * validator is primary can propose it. Transactions from peers are admitted with the same checks and not
 * passed on again at once (every validator is connected to every other); any transaction still waiting
 * after REGOSSIP_MS is passed on again.
 */
export class TxGossip {
  private batch: SignedTransaction[] = [];
  private timer: NodeJS.Timeout | undefined;
  private regossip: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    private readonly network: PeerNetwork,
    private readonly txs: TxService,
    private readonly log: (line: string) => void,
  ) {
    txs.onAdmitted((tx, origin) => {
      if (origin === "client" && this.running) this.add(tx);
    });
  }

  start(): void {
    this.running = true;
    this.regossip = setInterval(() => this.passOnWaiting(), REGOSSIP_MS);
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
    clearInterval(this.regossip);
    this.batch = [];
  }

  receive(from: string, payload: Uint8Array): void {
    let txs: SignedTransaction[];
    try {
      txs = (codecs.TxBatch.decode(payload).txs ?? []).map((env) => SignedTransaction.fromEnv(env));
    } catch (error) {
      this.log(`gossip: ${from} sent transactions that do not decode: ${(error as Error).message}`);
      return;
    }
    // Refusals are expected (a transaction included meanwhile, a nonce passed): the client saw its own answer.
    for (const tx of txs) void this.txs.submit(tx, "peer").catch(() => undefined);
  }

  private passOnWaiting(): void {
    const before = Date.now() - REGOSSIP_MS;
    for (const { tx, incomingTime } of this.txs.pool.entries()) if (incomingTime <= before) this.add(tx);
  }

  private add(tx: SignedTransaction): void {
    this.batch.push(tx);
    if (this.batch.length >= BATCH_MAX) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), BATCH_MS);
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const txs = this.batch.splice(0);
    if (txs.length > 0) this.network.broadcast(codecs.TxBatch.encode({ txs: txs.map((tx) => tx.env()) }), "txs");
  }
}
