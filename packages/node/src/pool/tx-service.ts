import { ChainError, ErrorCode, type SignedTransaction } from "@chainsim/protocol";
import type { SignatureChecker } from "../execution/authorization.js";
import { checkState, checkStatic } from "../execution/checks.js";
import type { ExecutedLedger } from "../execution/executor.js";
import type { LedgerManager } from "../ledger/ledger-manager.js";
import { DEFAULT_POOL_LIMITS, TxPool, type PoolInsert, type PoolLimits } from "./tx-pool.js";

export type TxOrigin = "client" | "peer";

/** How many guard-tripped transaction hashes a validator remembers. */
const GUARD_TRIPPED_KEPT = 10_000;

/**
 * Between the HTTP API and the ledger: admits submitted transactions into the pool after every check
 * that can be made before execution, hands the pool's next transactions to whoever proposes a ledger,
 * and clears what each closed ledger included or made stale.
 */
export class TxService {
  readonly pool: TxPool;

  constructor(
    private readonly ledgers: LedgerManager,
    private readonly signatures: SignatureChecker,
    private readonly now: () => number = Date.now,
    limits: PoolLimits = DEFAULT_POOL_LIMITS,
  ) {
    this.pool = new TxPool(limits);
    ledgers.onClosed((ledger) => this.afterLedger(ledger));
  }

  /**
   * Hashes of transactions this validator left out because a guard ended their contract run (oldest first,
   * at most GUARD_TRIPPED_KEPT): not taken again, or peers re-gossiping one would cost the proposer the
   * guard's time on every ledger, for free.
   */
  private readonly guardTripped = new Set<string>();

  /** Where a submission came from: a client of this node, or another validator passing one on. */
  private readonly admittedListeners: ((tx: SignedTransaction, origin: TxOrigin) => void)[] = [];

  /** Called for every transaction the pool takes in (not for duplicates): the node gossips clients' ones. */
  onAdmitted(listener: (tx: SignedTransaction, origin: TxOrigin) => void): void {
    this.admittedListeners.push(listener);
  }

  /**
   * Verifies the transaction's signatures (remembered for the submit that follows); ChainError when one does
   * not verify or its key does not parse.
   */
  checkSignatures(tx: SignedTransaction): void {
    this.signatures.signerAddresses(tx);
  }

  /** Checks a transaction against the rules and the committed state, then pools it; ChainError if refused. */
  async submit(tx: SignedTransaction, origin: TxOrigin = "client"): Promise<PoolInsert> {
    if (this.pool.get(tx.hashHex)) return "duplicate";
    if (await this.ledgers.ledgers.record(tx.hashHex)) return "duplicate";
    if (this.guardTripped.has(tx.hashHex)) {
      throw new ChainError(ErrorCode.CONTRACT_LIMIT_EXCEEDED, "a contract run of this transaction ended on a guard on this validator (docs/contracts.md §13): it is not taken again");
    }
    const nextSeq = this.ledgers.lastHeader.seq! + 1n;
    checkStatic(tx, this.ledgers.params, nextSeq, this.signatures);
    await checkState(tx, this.ledgers.stateView(), this.ledgers.params, this.signatures, "not-behind");
    const inserted = this.pool.insert(tx, this.now());
    if (inserted !== "duplicate") for (const listener of this.admittedListeners) listener(tx, origin);
    return inserted;
  }

  /** Drops transactions a proposal left out (the executor said why); they would only be proposed again. */
  dropRefused(refused: { tx: SignedTransaction; guardTripped?: boolean }[]): void {
    for (const { tx, guardTripped } of refused) {
      this.pool.remove(tx);
      if (!guardTripped) continue;
      this.guardTripped.add(tx.hashHex);
      if (this.guardTripped.size > GUARD_TRIPPED_KEPT) this.guardTripped.delete(this.guardTripped.values().next().value!);
    }
  }

  /** The transactions of the next proposal, at most `max`, in ledger order. */
  async nextProposal(max: number): Promise<SignedTransaction[]> {
    this.pool.expire(this.now());
    const next = new Map<string, bigint>();
    for (const source of this.pool.sources()) {
      const account = await this.ledgers.accounts.account(source);
      if (!account) continue;
      const nonce = account.nonce ?? 0n;
      // A submission that raced a ledger close can be pooled behind its account's nonce: drop it here.
      this.pool.removeUpTo(source, nonce);
      next.set(source, nonce + 1n);
    }
    return this.pool.select(max, (source) => next.get(source));
  }

  /**
   * The transaction the next proposal should start with, if it waited `olderThanMs` and still passes every
   * check against the tip; one that no longer does (its fee became unaffordable) is dropped, since no
   * primary could include it.
   */
  async overdue(olderThanMs: number): Promise<{ hashHex: string; arrival: number } | undefined> {
    const before = this.now() - olderThanMs;
    let any = false;
    for (const entry of this.pool.entries()) {
      if (entry.incomingTime > before) continue;
      any = true;
      break;
    }
    if (!any) return undefined;
    const [tx] = await this.nextProposal(1);
    const entry = tx && this.pool.get(tx.hashHex);
    if (!entry || this.now() - entry.incomingTime < olderThanMs) return undefined;
    try {
      checkStatic(tx, this.ledgers.params, this.ledgers.lastHeader.seq! + 1n, this.signatures);
      await checkState(tx, this.ledgers.stateView(), this.ledgers.params, this.signatures, "next");
    } catch {
      this.pool.remove(tx);
      return undefined;
    }
    return { hashHex: tx.hashHex, arrival: entry.incomingTime };
  }

  private afterLedger(ledger: ExecutedLedger): void {
    this.dropRefused(ledger.refused);
    const lastNonce = new Map<string, bigint>();
    for (const tx of ledger.included) lastNonce.set(tx.transaction.source_address!, tx.transaction.nonce!);
    for (const [source, nonce] of lastNonce) this.pool.removeUpTo(source, nonce);
  }
}
