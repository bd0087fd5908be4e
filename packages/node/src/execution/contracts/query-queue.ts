import { ChainError, ErrorCode } from "@chainsim/protocol";

/**
 * Runs callContract and testTransaction queries `concurrency` at a time, first come first served (docs/contracts.md
 * §13, "Queries"). Each query has the same 1 s clock guard as a ledger's transaction, counted from when it
 * starts: fifty full-budget queries at once on two cores starved each other past that clock (and their worker
 * was killed with them), and starved the validators' ledger executions into view changes (twenty-third
 * review of 2026-11-26). A query arriving when `maxWaiting` already wait is refused at once with 114.
 */
export class QueryQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly concurrency: number,
    readonly maxWaiting: number,
  ) {}

  async run<T>(query: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.maxWaiting) {
        throw new ChainError(ErrorCode.TX_POOL_FULL, `this validator has ${this.maxWaiting} contract queries waiting to run: retry later`);
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await query();
    } finally {
      // The slot passes straight to the next waiting query, if any.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
