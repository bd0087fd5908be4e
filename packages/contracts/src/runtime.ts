import type { ExecutionOutcome, ExecutionRequest } from "./js/js-runtime.js";

/**
 * What runs contracts, whichever way it is built: in this process (JsRuntime) or in a child process that
 * may die without taking the validator with it (ContractWorkerRuntime).
 */
export interface ContractRuntime {
  /**
   * Checks code before deployment; rejects with a ContractFailure (152 / 155). Asynchronous: the worker
   * runtime checks in its worker, since instrumenting 256 KB of source takes up to seconds of CPU
   * (docs/contracts.md §13, "Preparing a contract's code").
   */
  validate(code: string): Promise<void>;
  execute(request: ExecutionRequest): Promise<ExecutionOutcome>;
  dispose(): void;
}
