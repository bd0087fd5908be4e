export * from "./invariants/checker.js";
export type * from "./invariants/history.js";
export { simulate, type SimulationOptions, type SimulationResult } from "./simulation.js";
export type { SimulationFailure } from "./watchers.js";
export { SIM_FAULT_KINDS, type SimFault, type SimFaultKind } from "./faults.js";
export type { TraceEntry } from "./trace.js";
export { DEFAULT_WIRE, type WireModel } from "./sim-network.js";
export { shrink, type ShrinkStep } from "./shrink.js";
export { parseTraceFile, TRACE_FILE_FORMAT, traceFileText, type TraceFileHeader } from "./trace-file.js";
