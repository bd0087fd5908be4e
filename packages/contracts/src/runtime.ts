import type { ExecutionOutcome, ExecutionRequest } from "./js/js-runtime.js";

/** The languages contracts run in: JavaScript (`contract.type` 0) and WebAssembly (2 and 3, docs/wasm-abi.md §1). */
export type ContractLanguage = "javascript" | "wasm";

/** The language of a `contract.type` (absent: 0, JavaScript); undefined for a type no engine runs (156). */
export function contractLanguage(type: number | undefined): ContractLanguage | undefined {
  if (type === undefined || type === 0) return "javascript";
  if (type === 2 || type === 3) return "wasm";
  return undefined;
}

/**
 * What runs contracts, whichever way it is built: in this process (JsRuntime) or in a child process that
 * may die without taking the validator with it (ContractWorkerRuntime).
 */
export interface ContractRuntime {
  /**
   * Checks code before deployment; rejects with a ContractFailure (152 / 155 / 156). Asynchronous: the worker
   * runtime checks in its worker, since instrumenting 256 KB of source takes up to seconds of CPU
   * (docs/contracts.md §13, "Preparing a contract's code").
   */
  validate(code: string, language: ContractLanguage): Promise<void>;
  execute(request: ExecutionRequest): Promise<ExecutionOutcome>;
  dispose(): void;
}
