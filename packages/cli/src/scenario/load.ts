import { addressFromPublicKey, codecs, devKeySeed, OperationType, signBlob, toHex, transactionHash, type Operation } from "@chainsim/protocol";
import { NodeEd25519Signer } from "@chainsim/protocol/node-crypto";
import type { Manifest } from "../manifest.js";
import type { History, SignedTx } from "@chainsim/sim";
import { failure, getJson, postJson } from "../node-http.js";

const FEE_LIMIT = 1_000_000n;
const SUBMIT_TIMEOUT_MS = 2000;

interface Sender {
  signer: NodeEd25519Signer;
  address: string;
  /** The nonce of the transaction this sender submits until a node accepts it. */
  nonce: bigint;
  current?: SignedTx;
  busy: boolean;
}

type Target = { name: string; http: string };

/**
 * The scenario's client: funded sender accounts pay 1 coin each at `tps` in total, each transaction signed
 * here and submitted to a live node (round robin). EVERY submission and its answer goes into the history.
 * A sender retries the same transaction (same hash) until a node accepts it, so its nonces never gap.
 */
export class LoadGenerator {
  readonly history: History = { txs: {}, submissions: [] };
  private readonly senders: Sender[];
  private turn = 0;
  private nodeTurn = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly manifest: Manifest,
    private readonly liveNodes: () => Target[],
    accounts: number,
  ) {
    this.senders = Array.from({ length: accounts }, (_, i) => {
      const signer = new NodeEd25519Signer(devKeySeed(manifest.name, `scenario-sender-${i}`));
      return { signer, address: addressFromPublicKey(signer.publicKey), nonce: 1n, busy: false };
    });
  }

  /** Creates and funds the senders with one genesis transaction, and waits until it is in a ledger. */
  async fund(node: Target, timeoutMs: number): Promise<void> {
    const genesis = this.manifest.genesis.account;
    const account = await getJson(node.http, `/getAccount?address=${genesis.address}`);
    const operations: Operation[] = this.senders.map((s) => ({
      type: OperationType.CREATE_ACCOUNT,
      create_account: { dest_address: s.address, init_balance: 10_000_000_000n, priv: { master_weight: 1n, thresholds: { tx_threshold: 1n } } },
    }));
    const signer = new NodeEd25519Signer(devKeySeed(this.manifest.name, "genesis"));
    const tx = await this.sign(genesis.address, BigInt(account.result?.nonce ?? 0) + 1n, operations, signer, "setup", 100_000_000n);
    const deadline = Date.now() + timeoutMs;
    while (!(await this.submit(tx, node)) || !(await committed(node, tx.hash))) {
      if (Date.now() > deadline) throw new Error(`funding the ${this.senders.length} scenario accounts did not commit within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  start(tps: number): void {
    this.timer = setInterval(() => this.tick(), Math.max(1, Math.round(1000 / tps)));
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.inFlight);
  }

  /** Hashes some node accepted (error_code 0). */
  accepted(): Set<string> {
    return new Set(this.history.submissions.filter((s) => s.error_code === 0).map((s) => s.hash));
  }

  /** Submits `hashes` again (a client retrying what it has not seen committed); answers are recorded too. */
  async resubmit(hashes: string[]): Promise<void> {
    const nodes = this.liveNodes();
    await Promise.all(hashes.map((hash, i) => this.submit(this.history.txs[hash], nodes[i % nodes.length])));
  }

  private tick(): void {
    const nodes = this.liveNodes();
    const count = this.senders.length;
    const index = Array.from({ length: count }, (_, k) => (this.turn + k) % count).find((i) => !this.senders[i].busy);
    if (index === undefined || nodes.length === 0) return; // every sender waits for an answer: the nodes are slow
    this.turn = index + 1;
    const sender = this.senders[index];
    const node = nodes[this.nodeTurn++ % nodes.length];
    sender.busy = true;
    const work = (async () => {
      const dest = this.senders[(this.senders.indexOf(sender) + 1) % this.senders.length].address;
      sender.current ??= await this.sign(sender.address, sender.nonce, [{ type: OperationType.PAY_COIN, pay_coin: { dest_address: dest, amount: 1n } }], sender.signer, "load", FEE_LIMIT);
      if (await this.submit(sender.current, node)) {
        sender.current = undefined;
        sender.nonce++;
      }
    })().finally(() => {
      sender.busy = false;
      this.inFlight.delete(work);
    });
    this.inFlight.add(work);
  }

  private async sign(source: string, nonce: bigint, operations: Operation[], signer: NodeEd25519Signer, origin: SignedTx["origin"], feeLimit: bigint): Promise<SignedTx> {
    const blob = codecs.Transaction.encode({ source_address: source, nonce, fee_limit: feeLimit, gas_price: this.manifest.genesis.gas_price, operations });
    const tx = { hash: toHex(transactionHash(blob)), blob: toHex(blob), signatures: [await signBlob(signer, blob)], origin };
    this.history.txs[tx.hash] = tx;
    return tx;
  }

  /** One submission, recorded; true when the node accepted it. */
  private async submit(tx: SignedTx, node: Target): Promise<boolean> {
    const sent_ms = Date.now();
    try {
      const answer = await postJson(node.http, "/submitTransaction", { items: [{ transaction_blob: tx.blob, signatures: tx.signatures }] }, SUBMIT_TIMEOUT_MS);
      const item = answer.results?.[0] ?? { error_code: answer.error_code, error_desc: answer.error_desc };
      this.history.submissions.push({ hash: tx.hash, node: node.name, sent_ms, error_code: Number(item.error_code), error_desc: item.error_desc || undefined });
      return Number(item.error_code) === 0;
    } catch (error) {
      this.history.submissions.push({ hash: tx.hash, node: node.name, sent_ms, error: failure(error) });
      return false;
    }
  }
}

async function committed(node: Target, hash: string): Promise<boolean> {
  try {
    return (await getJson(node.http, `/getTransactionHistory?hash=${hash}`)).error_code === 0;
  } catch {
    return false;
  }
}
