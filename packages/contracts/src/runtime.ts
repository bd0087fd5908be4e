import type { ExecutionOutcome, ExecutionRequest } from "./js/js-runtime.js";

/**
 * What runs contracts, whichever way it is built: in this process (JsRuntime) or in a child process that
 * may die without taking the validator with it (ContractWorkerRuntime).
 */
export interface ContractRuntime {
  /** Checks code before deployment; throws a ContractFailure (152 / 155). */
  validate(code: string): void;
  execute(request: ExecutionRequest): Promise<ExecutionOutcome>;
  dispose(): void;
}
