import type { ConsensusConfig } from "../config.js";
import type { TxService } from "../pool/tx-service.js";
import type { LedgerManager } from "./ledger-manager.js";

const TICK_MS = 25;

/**
 * Decides when a single validator closes a ledger: `close_interval_ms` after the last close while
 * transactions wait, `empty_close_interval_ms` otherwise. With several validators, PBFT takes this role.
 */
export class SoloSequencer {
  private timer: NodeJS.Timeout | undefined;
  private lastCloseWall: number;
  private running = false;
  private nextReadyCheck = 0;
  /** Failures of the last close attempt, for the log and status. */
  lastError: Error | undefined;

  constructor(
    private readonly ledgers: LedgerManager,
    private readonly txs: TxService,
    private readonly consensus: ConsensusConfig,
    private readonly proposer: string,
    private readonly log: (line: string) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.lastCloseWall = now();
  }

  start(): void {
    this.timer = setInterval(() => void this.step(), TICK_MS);
  }

  /** Stops proposing and waits for a close in progress. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    while (this.running) await new Promise((resolve) => setTimeout(resolve, TICK_MS));
  }

  /** One decision: close a ledger now or not. The timer calls it every few ms; tests call it with a fake clock. */
  async step(): Promise<void> {
    if (this.running) return;
    const now = this.now();
    const elapsed = now - this.lastCloseWall;
    const emptyDue = elapsed >= this.consensus.empty_close_interval_ms;
    // Waiting transactions bring the close forward only if one can go in now: a transaction whose nonce is
    // ahead of its account's waits without closing empty ledgers. Readiness is rechecked once per interval.
    const readyCheckDue = this.txs.pool.size > 0 && elapsed >= this.consensus.close_interval_ms && now >= this.nextReadyCheck;
    if (!emptyDue && !readyCheckDue) return;
    this.running = true;
    try {
      const txs = await this.txs.nextProposal(this.consensus.max_txs_per_ledger);
      if (txs.length === 0 && !emptyDue) {
        this.nextReadyCheck = now + this.consensus.close_interval_ms;
        return;
      }
      const previousClose = this.ledgers.lastHeader.close_time ?? 0n;
      const wallMicros = BigInt(this.now()) * 1000n;
      const closeTime = wallMicros > previousClose ? wallMicros : previousClose + 1n;
      const ledger = await this.ledgers.close({ closeTime, proposer: this.proposer, txs });
      this.lastCloseWall = this.now();
      this.lastError = undefined;
      this.log(`closed ledger ${ledger.header.seq} with ${ledger.included.length} transactions (${ledger.refused.length} left out)`);
    } catch (error) {
      this.lastError = error as Error;
      this.log(`closing a ledger failed: ${(error as Error).stack ?? error}`);
    } finally {
      this.running = false;
    }
  }
}
