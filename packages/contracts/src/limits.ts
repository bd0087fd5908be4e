/** Limits of a contract execution (compat.md §8, contract-runtime.md §2). Steps are network settings. */
export interface ContractLimits {
  /** Steps per user transaction, shared by nested calls. */
  steps: number;
  /** Steps charged for one Chain.* / Utils.* call. */
  builtinSteps: number;
  /**
   * Extra steps for built-ins whose host work is heavy, so that the step limit (the same on every validator)
   * stops a contract long before the wall-clock guard (which is not) could.
   */
  costlyBuiltinSteps: Record<string, number>;
  /** Bytes a run may allocate in the deterministic memory model (docs/contracts.md §13); more fails with 155. */
  memoryBytes: number;
  /** V8's own heap limit per isolate (MiB): a guard far above the model, never what decides a result. */
  engineHeapMiB: number;
  /** Stack bytes a run may hold, in the deterministic model of instrument.ts (frameBytes). */
  stackBytes: number;
  /** Units of size-proportional work (code units, elements, bytes) that cost one step. */
  sizeUnit: number;
  /** Longest string a contract may make (UTF-16 code units); longer fails with 155 Memory exceeding limit. */
  maxStringLength: number;
  /** Longest string an entry point may return (code units); longer fails with 155 Return value exceeding limit. */
  maxReturnLength: number;
  /** Longest Utils.log message (code units); the rest is cut. */
  maxLogLength: number;
  /** Utils.log text kept per user transaction (code units); later lines are dropped. */
  maxLogPerTransaction: number;
  /** Wall-clock guard per user transaction (ms); steps are what keeps validators in agreement. */
  timeMs: number;
  codeBytes: number;
  /** Largest wasm module (bytes, decoded): a Go module is about 2 MB (docs/wasm-abi.md §1). */
  wasmCodeBytes: number;
  /** Pages of 64 KiB a wasm contract's memory may reach (docs/wasm-abi.md §7). */
  wasmMaxPages: number;
  /** Wasm instructions that cost one step. */
  wasmInstructionsPerStep: number;
  /** user → A → B → C → D is allowed; one level more fails with 153. */
  maxDepth: number;
  /** Contract-made (sub-)transactions per user transaction; more fail with 154. */
  maxContractTxs: number;
  /** Deployment refuses what the family's lint refuses (js/lint.ts) with 152. A network setting, off by default. */
  lint: boolean;
}

export const DEFAULT_CONTRACT_LIMITS: ContractLimits = {
  steps: 10_240,
  builtinSteps: 100,
  // A 64-bit range proof takes ~70 ms to verify: at most 4 fit in one transaction's 10,240 steps.
  costlyBuiltinSteps: { bpRangeProofVerify: 2_400, pedersenTallyVerify: 400 },
  memoryBytes: 30 * 1024 * 1024,
  engineHeapMiB: 128,
  stackBytes: 512 * 1024,
  sizeUnit: 4096,
  maxStringLength: 4 * 1024 * 1024,
  maxReturnLength: 256 * 1024,
  maxLogLength: 4096,
  maxLogPerTransaction: 64 * 1024,
  timeMs: 1_000,
  codeBytes: 256 * 1024,
  wasmCodeBytes: 4 * 1024 * 1024,
  wasmMaxPages: 480,
  wasmInstructionsPerStep: 1_000,
  maxDepth: 4,
  maxContractTxs: 512,
  lint: false,
};
