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
  heapMiB: number;
  /** Stack bytes a run may hold, in the deterministic model of instrument.ts (frameBytes). */
  stackBytes: number;
  /** Wall-clock guard per user transaction (ms); steps are what keeps validators in agreement. */
  timeMs: number;
  codeBytes: number;
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
  heapMiB: 30,
  stackBytes: 512 * 1024,
  timeMs: 1_000,
  codeBytes: 256 * 1024,
  maxDepth: 4,
  maxContractTxs: 512,
  lint: false,
};
