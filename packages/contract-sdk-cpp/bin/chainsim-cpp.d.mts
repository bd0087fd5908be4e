/** Builds a C++ contract: `<name>.wasm` and `<name>.abi` in `outDir` (docs/contracts-cpp.md). */
export function buildCppContract(file: string, outDir?: string): Promise<{ wasm: string; abi: string }>;
