/** Ledgers with room that a primary may close without an overdue transaction before it is suspected. */
export const CENSORSHIP_STRIKES = 3;

const ACCUSED_KEPT = 10_000;

/** What the watch is told about the oldest transaction this validator could see go into the next ledger. */
export interface OverdueTx {
  hashHex: string;
  /** When this validator admitted it (ms). */
  arrival: number;
}

/** What the watch is told about a decided ledger. */
export interface ClosedLedger {
  included: number;
  /** It spent the contract steps a ledger may: no room, whatever its count. */
  full: boolean;
}

/**
 * PBFT's per-request timer, for a primary that keeps proposing but leaves out a transaction it knows
 * (docs/consensus.md, "Censorship"). A transaction this validator holds, that passes every check against
 * the tip and has waited `patienceMs` (long enough to have been passed on to the primary more than once),
 * is overdue. Each ledger the primary of one view then closes without it while it had room (fewer than
 * `roomTxs` transactions, the least any proposal may hold, and contract steps left) is a strike; CENSORSHIP_STRIKES strikes in a view
 * are grounds for suspicion (the replica withholds its PREPAREs; f+1 suspecting replicas change the view).
 * A busy primary (full ledgers) is never suspected, and each transaction raises a suspicion once at most.
 */
export class CensorshipWatch {
  private strikes?: { view: number; hashHex: string; count: number };
  /** Transactions a suspicion was raised for: each raises one at most (one no primary can include stays out). */
  private readonly accused = new Set<string>();

  constructor(
    private readonly patienceMs: number,
    private readonly roomTxs: number,
  ) {}

  /**
   * A ledger decided in `view` closed with `closed.included` transactions, `closed.full` when it spent the
   * contract steps a ledger may (docs/contracts.md, "Steps per ledger"); answers a reason to suspect its primary.
   */
  ledgerClosed(view: number, closed: ClosedLedger, oldest: OverdueTx | undefined, nowMs: number): string | undefined {
    const hadRoom = !closed.full && closed.included < this.roomTxs;
    if (!oldest || nowMs - oldest.arrival < this.patienceMs || !hadRoom || this.accused.has(oldest.hashHex)) {
      this.strikes = undefined;
      return undefined;
    }
    if (this.strikes?.view !== view || this.strikes.hashHex !== oldest.hashHex) this.strikes = { view, hashHex: oldest.hashHex, count: 0 };
    if (++this.strikes.count < CENSORSHIP_STRIKES) return undefined;
    this.strikes = undefined;
    this.accused.add(oldest.hashHex);
    if (this.accused.size > ACCUSED_KEPT) this.accused.delete(this.accused.values().next().value!);
    return `the primary of view ${view} closed ${CENSORSHIP_STRIKES} ledgers with room without transaction ${oldest.hashHex.slice(0, 16)}…, waiting ${Math.round((nowMs - oldest.arrival) / 1000)} s`;
  }
}
