/** Builds the Go contract in `dir` to `outFile` (docs/contracts-go.md). */
export function buildGoContract(dir: string, outFile: string): Promise<{ outFile: string; size: number; ms: number; goVersion: string }>;
