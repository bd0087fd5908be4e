import { ContractEngines, JsRuntime, WasmRuntime, type ContractLanguage, type ContractLimits, type ContractRuntime, type ExecutionOutcome, type ExecutionRequest } from "@chainsim/contracts";
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
 * The contract engines of one incarnation of a simulated validator, as its contract worker has them: a
 * JavaScript and a WebAssembly runtime of its own, so that nothing one validator prepares (a metered
 * module, an isolate) serves another, and a restart starts cold. Runs are counted on `runs`, shared by the
 * whole simulation, so that the clock waits for each: a run's result arrives from another thread, and must
 * not race the next event.
 */
export class CountedRuntime implements ContractRuntime {
  private readonly inner: ContractRuntime;
  private pending = 0;
  private retired = false;

  constructor(
    limits: ContractLimits,
    private readonly runs: { pending: number },
  ) {
    this.inner = new ContractEngines(new JsRuntime(limits), new WasmRuntime(limits));
  }

  validate(code: string, language: ContractLanguage): Promise<void> {
    return this.count(() => this.inner.validate(code, language));
  }

  execute(request: ExecutionRequest): Promise<ExecutionOutcome> {
    return this.count(() => this.inner.execute(request));
  }

  dispose(): void {
    this.inner.dispose();
  }

  /** The incarnation died: the engines go once the runs it started have ended (disposing them would fail those runs). */
  retire(): void {
    this.retired = true;
    if (this.pending === 0) this.dispose();
  }

  private async count<T>(work: () => Promise<T>): Promise<T> {
    this.pending++;
    this.runs.pending++;
    try {
      return await work();
    } finally {
      this.pending--;
      this.runs.pending--;
      if (this.retired && this.pending === 0) this.dispose();
    }
  }
}
