/**
 * The simulation's trace view (docs/simulation.md, "The trace view"): the page of packages/cli/sim-view/ and the trace
 * it shows first, `GET /trace.jsonl`.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { startPageServer } from "../page-server.js";

export interface TraceViewOptions {
  /** 0 (the default): any free port. */
  port?: number;
  /** The default, 127.0.0.1, keeps the page on this machine. */
  host?: string;
}

/** Serves the trace view of `traceText` (a trace file, parseTraceFile's format); resolves once it listens. */
export async function serveTraceView(traceText: string, options: TraceViewOptions = {}): Promise<{ url: string; close(): Promise<void> }> {
  // The page reads trace files with the simulation's own reader: its compiled module, which imports nothing
  // at run time, is served beside the page's scripts.
  const traceFileModule = await readFile(fileURLToPath(new URL("./trace-file.js", import.meta.resolve("@chainsim/sim"))), "utf8");
  return startPageServer({
    assets: "sim-view",
    routes: {
      "/trace.jsonl": () => ({ type: "application/x-ndjson; charset=utf-8", body: traceText }),
      "/trace-file.js": () => ({ type: "text/javascript; charset=utf-8", body: traceFileModule }),
    },
    port: options.port ?? 0,
    host: options.host ?? "127.0.0.1",
  });
}
