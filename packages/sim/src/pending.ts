import type { ContractLanguage, ContractRuntime, ExecutionOutcome, ExecutionRequest } from "@chainsim/contracts";
import type { PendingWork } from "./scheduler.js";

/** Counts asynchronous work the simulation started outside the scheduler (restarts, submissions). */
export class PendingTasks implements PendingWork {
  pending = 0;

  /** Runs `task`, counted until it settles; its failure is handed to `onError`. */
  track(task: () => Promise<unknown>, onError: (error: unknown) => void): void {
    this.pending++;
    void task()
      .catch(onError)
      .finally(() => this.pending--);
  }
}

/**
 * The contract runtime of every simulated validator: runs contracts in process (isolated-vm), counted, so
 * that the clock waits for each run: a run's result arrives from another thread, and must not race the
 * next event.
 */
export class CountedRuntime implements ContractRuntime, PendingWork {
  pending = 0;

  constructor(private readonly inner: ContractRuntime) {}

  validate(code: string, language: ContractLanguage): Promise<void> {
    return this.count(() => this.inner.validate(code, language));
  }

  execute(request: ExecutionRequest): Promise<ExecutionOutcome> {
    return this.count(() => this.inner.execute(request));
  }

  dispose(): void {
    this.inner.dispose();
  }

  private async count<T>(work: () => Promise<T>): Promise<T> {
    this.pending++;
    try {
      return await work();
    } finally {
      this.pending--;
    }
  }
}
