import { ChainError, ErrorCode } from "@chainsim/protocol";

/**
 * Runs costly work `concurrency` at a time, first come first served, and refuses at once with 114 what
 * arrives when `maxWaiting` already wait. Two users: contract queries (callContract, testTransaction;
 * docs/contracts.md §13, "Queries": fifty full-budget queries at once starved each other past the clock
 * guard and the validators' ledger executions into view changes) and large request bodies parsed off the
 * event loop (docs/api.md, "Request bodies").
 */
export class WorkQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  /** `what` names the work in the refusal, e.g. "contract queries". */
  constructor(
    readonly concurrency: number,
    readonly maxWaiting: number,
    private readonly what: string,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.maxWaiting) {
        throw new ChainError(ErrorCode.TX_POOL_FULL, `this validator has ${this.maxWaiting} ${this.what} waiting: retry later`);
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await work();
    } finally {
      // The slot passes straight to the next waiting work, if any.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
