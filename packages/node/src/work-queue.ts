import { ChainError, ErrorCode } from "@chainsim/protocol";

/** Work whose client went away before its turn (WorkQueue.run's `abandoned`): nobody to answer. */
export class AbandonedWork extends Error {}

/**
 * Runs costly work `concurrency` at a time, first come first served, and refuses at once with 114 what
 * arrives when `maxWaiting` already wait. Two users: contract queries (callContract, testTransaction;
 * docs/contracts.md §13, "Queries": fifty full-budget queries at once starved each other past the clock
 * guard and the validators' ledger executions into view changes) and large request bodies parsed off the
 * event loop (docs/api.md, "Request bodies").
 */
export class WorkQueue {
  private running = 0;
  private readonly waiting: { start: () => void; cancel: (error: Error) => void }[] = [];

  /** `what` names the work in the refusal, e.g. "contract queries". */
  constructor(
    readonly concurrency: number,
    readonly maxWaiting: number,
    private readonly what: string,
  ) {}

  /**
   * Runs `work` in its turn. Work whose `abandoned` signal fires while it waits (its client went away) leaves
   * the line and never runs: a client that sent 65 costly queries and left held the query worker seven
   * minutes after it stopped (review of 2026-11-27).
   */
  async run<T>(work: () => Promise<T>, abandoned?: AbortSignal): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.maxWaiting) {
        throw new ChainError(ErrorCode.TX_POOL_FULL, `this validator has ${this.maxWaiting} ${this.what} waiting: retry later`);
      }
      await new Promise<void>((start, cancel) => {
        const entry = { start, cancel };
        this.waiting.push(entry);
        abandoned?.addEventListener("abort", () => {
          const at = this.waiting.indexOf(entry);
          if (at < 0) return;
          this.waiting.splice(at, 1);
          cancel(new AbandonedWork(`abandoned while waiting among the ${this.what}`));
        });
      });
    } else {
      this.running++;
    }
    try {
      return await work();
    } finally {
      // The slot passes straight to the next waiting work, if any.
      const next = this.waiting.shift();
      if (next) next.start();
      else this.running--;
    }
  }
}
