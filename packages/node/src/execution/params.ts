/** The network-wide rules execution depends on; identical on every validator (from the genesis). */
export interface ChainParams {
  chainId: bigint;
  /** Minimum gas price; also what testTransaction assumes. */
  gasPrice: bigint;
  baseReserve: bigint;
}

/** Limits of compat.md §5–§8. */
export const LIMITS = {
  maxOperations: 100,
  /** A TransactionEnv must be smaller than this (146)... */
  maxTxEnvBytes: 1024 * 1024,
  /** ...unless it deploys a wasm contract: a Go module is about 2.5 MB of base64 (docs/wasm-abi.md §1). */
  maxWasmDeployTxEnvBytes: 6 * 1024 * 1024,
  metadataKeyBytes: 1024,
  metadataValueBytes: 256 * 1024,
  logTopicBytes: 128,
  logDataBytes: 1024,
  logDatas: 5,
  maxSigners: 100,
  assetCodeChars: 64,
  /** Weights are unsigned 32-bit in this family. */
  maxWeight: 2n ** 32n - 1n,
  /** Gas added for each contract creation or upgrade. */
  contractGas: 1_000_000n,
} as const;

export const LEDGER_VERSION = 1000n;
