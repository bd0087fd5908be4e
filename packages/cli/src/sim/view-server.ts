/**
 * The simulation's trace view (docs/simulation.md, "The trace view"): the page of packages/cli/sim-view/ and the trace
 * it shows first, `GET /trace.jsonl`.
 */
import { startPageServer } from "../page-server.js";

export interface TraceViewOptions {
  /** 0 (the default): any free port. */
  port?: number;
  /** The default, 127.0.0.1, keeps the page on this machine. */
  host?: string;
}

/** Serves the trace view of `traceText` (a trace file, parseTraceFile's format); resolves once it listens. */
export async function serveTraceView(traceText: string, options: TraceViewOptions = {}): Promise<{ url: string; close(): Promise<void> }> {
  return startPageServer({
    assets: "sim-view",
    routes: { "/trace.jsonl": () => ({ type: "application/x-ndjson; charset=utf-8", body: traceText }) },
    port: options.port ?? 0,
    host: options.host ?? "127.0.0.1",
  });
}
