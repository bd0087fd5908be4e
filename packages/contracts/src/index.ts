export * from "./failure.js";
export * from "./host.js";
export * from "./limits.js";
export { JsRuntime, type EntryPoint, type ExecutionOutcome, type ExecutionRequest, type StepMeter } from "./js/js-runtime.js";
export { contractLanguage, type ContractLanguage, type ContractRuntime } from "./runtime.js";
export { stringToName } from "./wasm/abi.js";
export { meterWasmModule, WasmRuntime } from "./wasm/wasm-runtime.js";
export { ContractEngines } from "./engines.js";
export { ContractWorkerRuntime, type WorkerOptions } from "./worker/contract-worker-runtime.js";
