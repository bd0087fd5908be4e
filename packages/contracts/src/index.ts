export * from "./failure.js";
export * from "./host.js";
export * from "./limits.js";
export { JsRuntime, type EntryPoint, type ExecutionOutcome, type ExecutionRequest, type StepMeter } from "./js/js-runtime.js";
export type { ContractRuntime } from "./runtime.js";
export { ContractWorkerRuntime, type WorkerOptions } from "./worker/contract-worker-runtime.js";
