import { ChainError, ErrorCode, type SignedTransaction } from "@chainsim/protocol";
import { keyOfLargest } from "../collections.js";
import { DEFAULT_LIMITS, type LimitsConfig } from "../config.js";

export interface PoolLimits {
  total: number;
  /** Bytes of the pooled transactions (their envelopes), all accounts together. */
  totalBytes: number;
  perAccount: number;
  expiryMs: number;
}

/**
 * 64 MiB of transactions at most: a client sent 40 transactions of 0.9 MB behind a nonce gap (never
 * executed, never charged) and validators held them for the ten minutes of expiry, passing them on again
 * and again. A full pool makes room by TxPool.makeRoom (docs/api.md, submitTransaction).
 */
export function poolLimits(limits: LimitsConfig): PoolLimits {
  return { total: limits.pool_transactions, totalBytes: limits.pool_bytes, perAccount: limits.pool_per_account, expiryMs: limits.pool_expiry_ms };
}

export const DEFAULT_POOL_LIMITS: PoolLimits = poolLimits(DEFAULT_LIMITS);

export interface PooledTx {
  tx: SignedTransaction;
  /** Arrival (ms since the epoch), for expiry and for the order of proposals. */
  incomingTime: number;
}

export type PoolInsert = "added" | "duplicate" | "replaced";

/**
 * Transactions waiting for a ledger (compat.md §5): per source account, ordered by nonce; one per
 * (source, nonce) unless a replacement pays ≥ 1.1 × the gas price; bounded in total and per account;
 * expired after `expiryMs`. Knows nothing of state: the caller checks nonces and balances first.
 */
export class TxPool {
  private readonly byHash = new Map<string, PooledTx>();
  /** source → nonce → entry */
  private readonly byAccount = new Map<string, Map<bigint, PooledTx>>();
  /** Sum of the pooled transactions' `envSize`, in all and per source account. */
  private bytes = 0;
  private readonly accountBytes = new Map<string, number>();
  /** Lifetime counters for getModulesStatus. */
  added = 0;
  removed = 0;

  constructor(readonly limits: PoolLimits = DEFAULT_POOL_LIMITS) {}

  get size(): number {
    return this.byHash.size;
  }
  get accountCount(): number {
    return this.byAccount.size;
  }

  sources(): string[] {
    return [...this.byAccount.keys()];
  }

  get(hashHex: string): PooledTx | undefined {
    return this.byHash.get(hashHex);
  }

  entries(): IterableIterator<PooledTx> {
    return this.byHash.values();
  }

  insert(tx: SignedTransaction, now: number): PoolInsert {
    if (this.byHash.has(tx.hashHex)) return "duplicate";
    const source = tx.transaction.source_address!;
    const nonce = tx.transaction.nonce!;
    const queue = this.byAccount.get(source);
    const existing = queue?.get(nonce);
    if (existing) {
      const oldPrice = existing.tx.transaction.gas_price ?? 0n;
      const newPrice = tx.transaction.gas_price ?? 0n;
      if (newPrice * 10n < oldPrice * 11n) {
        throw new ChainError(
          ErrorCode.POOL_INSERT_REFUSED,
          `a transaction with nonce ${nonce} from ${source} is already pooled; a replacement needs gas_price ≥ ${(oldPrice * 11n + 9n) / 10n}`,
        );
      }
      this.makeRoom(source, 0, tx.envSize - existing.tx.envSize);
      this.delete(existing);
      this.put(tx, now);
      return "replaced";
    }
    this.makeRoom(source, 1, tx.envSize);
    if (queue && queue.size >= this.limits.perAccount) {
      // A lower nonce pushes out the account's highest one: it goes into a ledger first, and a pool that
      // held only the later ones would never propose the account (validators with the lower one would wait).
      const highest = highestNonce(queue);
      if (nonce > highest) throw new ChainError(ErrorCode.TX_POOL_FULL, `${source} already has ${this.limits.perAccount} transactions waiting (limits.pool_per_account): wait for them to close`);
      this.delete(queue.get(highest)!);
    }
    this.put(tx, now);
    return "added";
  }

  /**
   * Up to `max` transactions for the next ledger: accounts in order of their oldest waiting transaction,
   * each account's transactions in nonce order starting at `nextNonce(source)` without gaps.
   */
  select(max: number, nextNonce: (source: string) => bigint | undefined): SignedTransaction[] {
    const queues = [...this.byAccount.entries()]
      .map(([source, queue]) => ({ source, queue, oldest: Math.min(...[...queue.values()].map((e) => e.incomingTime)) }))
      .sort((a, b) => a.oldest - b.oldest || (a.source < b.source ? -1 : 1));
    const out: SignedTransaction[] = [];
    for (const { source, queue } of queues) {
      let nonce = nextNonce(source);
      if (nonce === undefined) continue;
      for (let entry = queue.get(nonce); entry && out.length < max; entry = queue.get(++nonce)) out.push(entry.tx);
      if (out.length >= max) break;
    }
    return out;
  }

  /** Drops what a closed ledger made stale: every pooled nonce of `source` up to `appliedNonce`. */
  removeUpTo(source: string, appliedNonce: bigint): SignedTransaction[] {
    const queue = this.byAccount.get(source);
    if (!queue) return [];
    const stale = [...queue.values()].filter((e) => e.tx.transaction.nonce! <= appliedNonce);
    stale.forEach((e) => this.delete(e));
    return stale.map((e) => e.tx);
  }

  remove(tx: SignedTransaction): void {
    const entry = this.byHash.get(tx.hashHex);
    if (entry) this.delete(entry);
  }

  /** Removes and returns transactions older than the expiry. */
  expire(now: number): SignedTransaction[] {
    const expired = [...this.byHash.values()].filter((e) => now - e.incomingTime >= this.limits.expiryMs);
    expired.forEach((e) => this.delete(e));
    return expired.map((e) => e.tx);
  }

  get byteSize(): number {
    return this.bytes;
  }

  /**
   * Room for `count` more transactions and `bytes` more bytes from `source`: when the pool is full, the
   * account holding the most (transactions for the count, bytes for the bytes) loses its last one, until
   * there is room, unless it is `source` (114). Transactions behind a nonce gap never run and pay nothing:
   * two accounts' sixty-four 1 MB transactions each, nonce 1 skipped, kept every honest payment out for the
   * ten minutes of expiry (review of 2026-11-27). Honest accounts hold few, so the hoarder is the one to lose.
   */
  private makeRoom(source: string, count: number, bytes: number): void {
    while (this.byHash.size + count > this.limits.total || this.bytes + bytes > this.limits.totalBytes) {
      const byBytes = this.bytes + bytes > this.limits.totalBytes;
      const hoarder = byBytes ? keyOfLargest(this.accountBytes) : keyOfLargest([...this.byAccount].map(([account, queue]) => [account, queue.size] as const));
      if (hoarder === undefined || hoarder === source) {
        const limit = byBytes ? `${this.limits.totalBytes} bytes of transactions, limits.pool_bytes` : `${this.limits.total} transactions, limits.pool_transactions`;
        throw new ChainError(ErrorCode.TX_POOL_FULL, `the transaction pool is full (${limit}), and ${source} holds the most of it: retry later`);
      }
      const queue = this.byAccount.get(hoarder)!;
      this.delete(queue.get(highestNonce(queue))!);
    }
  }

  private put(tx: SignedTransaction, now: number): void {
    const entry = { tx, incomingTime: now };
    const source = tx.transaction.source_address!;
    let queue = this.byAccount.get(source);
    if (!queue) this.byAccount.set(source, (queue = new Map()));
    queue.set(tx.transaction.nonce!, entry);
    this.byHash.set(tx.hashHex, entry);
    this.bytes += tx.envSize;
    this.accountBytes.set(source, (this.accountBytes.get(source) ?? 0) + tx.envSize);
    this.added++;
  }

  private delete(entry: PooledTx): void {
    const source = entry.tx.transaction.source_address!;
    const queue = this.byAccount.get(source)!;
    queue.delete(entry.tx.transaction.nonce!);
    if (queue.size === 0) this.byAccount.delete(source);
    this.byHash.delete(entry.tx.hashHex);
    this.bytes -= entry.tx.envSize;
    const held = this.accountBytes.get(source)! - entry.tx.envSize;
    if (held === 0) this.accountBytes.delete(source);
    else this.accountBytes.set(source, held);
    this.removed++;
  }
}

/** The highest nonce an account has pooled (its queue is never empty). */
function highestNonce(queue: Map<bigint, PooledTx>): bigint {
  let highest = -1n;
  for (const nonce of queue.keys()) if (nonce > highest) highest = nonce;
  return highest;
}
