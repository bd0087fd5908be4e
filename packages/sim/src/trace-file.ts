import type { SimulationResult } from "./simulation.js";
import type { TraceEntry } from "./trace.js";
import type { SimulationFailure } from "./watchers.js";

/** The first line's `format`: a reader refuses any other. */
export const TRACE_FILE_FORMAT = "chainsim-sim-trace/1";

/** The first line of a trace file: what the run was and how it ended. */
export interface TraceFileHeader {
  format: typeof TRACE_FILE_FORMAT;
  seed: number;
  /** The validators' names, in lane order. */
  nodes: string[];
  trace_hash: string;
  failures: SimulationFailure[];
  simulated_ms: number;
}

/**
 * A run as a trace file (docs/simulation.md, "The trace view"): JSON lines, a header, then one TraceEntry a line.
 * The run must have kept its trace (`keepTrace`).
 */
export function traceFileText(result: SimulationResult, nodes: string[]): string {
  if (!result.trace) throw new Error("the simulation kept no trace: run it with keepTrace");
  const header: TraceFileHeader = {
    format: TRACE_FILE_FORMAT,
    seed: result.seed,
    nodes,
    trace_hash: result.trace_hash,
    failures: result.failures,
    simulated_ms: result.simulated_ms,
  };
  return [header, ...result.trace].map((line) => JSON.stringify(line)).join("\n") + "\n";
}

/** Reads a trace file back; throws an Error naming the line that is not one. */
export function parseTraceFile(text: string): { header: TraceFileHeader; entries: TraceEntry[] } {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  if (lines.length === 0) throw new Error("not a trace file: it is empty");
  const header = parseLine(lines[0]!, 1) as Partial<TraceFileHeader>;
  if (header.format !== TRACE_FILE_FORMAT) throw new Error(`not a trace file: line 1 has format ${JSON.stringify(header.format)}, expected "${TRACE_FILE_FORMAT}"`);
  if (!Array.isArray(header.nodes) || typeof header.seed !== "number") throw new Error("not a trace file: line 1 lacks seed or nodes");
  const entries = lines.slice(1).map((line, i) => {
    const entry = parseLine(line, i + 2) as Partial<TraceEntry>;
    if (typeof entry.t !== "number" || typeof entry.kind !== "string") throw new Error(`bad trace file: line ${i + 2} has no t or kind`);
    return entry as TraceEntry;
  });
  return { header: header as TraceFileHeader, entries };
}

function parseLine(line: string, number: number): object {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw new Error(`bad trace file: line ${number} is not JSON (${(error as Error).message})`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`bad trace file: line ${number} is not a JSON object`);
  return value;
}
