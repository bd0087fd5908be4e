/** Transactions a proposal may hold before this validator has timed any execution. */
const FIRST_PROPOSAL_TXS = 100;
/**
 * At least this many per proposal, however slow execution gets: the network must still make progress. At 50,
 * ledgers of contract calls (16 ms each, on each of four validators sharing two cores) took longer than the
 * view timeout, and local-4 changed view at every ledger: 7 calls a second (2026-11-27, docs/benchmarks.md).
 */
export const MIN_PROPOSAL_TXS = 10;
/** Executions of fewer transactions say little about the cost of one (and no more than the least proposal). */
const MIN_SAMPLE_TXS = MIN_PROPOSAL_TXS;
/** Weight of the newest sample in the running average. */
const SMOOTHING = 0.3;

/**
 * How many transactions the primary puts into one proposal. Every backup executes a proposal before it
 * votes, so a ledger whose execution takes longer than the view timeout would make the validators replace
 * an honest primary that is merely busy. The primary therefore caps its proposals at what this validator
 * executes in a quarter of view_timeout_ms, by a running average of the time per transaction it measured
 * while proposing and checking (max_txs_per_ledger still applies). Only the primary's choice depends on
 * it, never a ledger's validity.
 */
export class ProposalSize {
  private msPerTx: number | undefined;

  constructor(
    private readonly viewTimeoutMs: number,
    private readonly maxTxs: number,
  ) {}

  /** One execution of `txs` transactions that took `ms`. */
  record(txs: number, ms: number): void {
    if (txs < MIN_SAMPLE_TXS) return;
    const sample = ms / txs;
    this.msPerTx = this.msPerTx === undefined ? sample : this.msPerTx + SMOOTHING * (sample - this.msPerTx);
  }

  get limit(): number {
    const affordable = this.msPerTx === undefined ? FIRST_PROPOSAL_TXS : Math.floor(this.viewTimeoutMs / 4 / this.msPerTx);
    return Math.min(this.maxTxs, Math.max(MIN_PROPOSAL_TXS, affordable));
  }
}
