import { simulate, type SimulationOptions, type SimulationResult } from "@chainsim/sim";
import { formatTable } from "../output.js";

/** What `chainsim sim --seeds N --json` prints (docs/simulation.md). */
export interface SeedsReport {
  runs: number;
  failed: { seed: number; invariant: string; detail: string }[];
  seeds_per_minute: number;
  simulated_seconds_per_run: number;
}

/** Runs seeds `from` .. `from + count - 1` one after another; `onRun` hears each result as it comes. */
export async function runSeeds(options: Omit<SimulationOptions, "seed">, from: number, count: number, onRun: (result: SimulationResult, ms: number) => void): Promise<{ report: SeedsReport; results: SimulationResult[] }> {
  const started = performance.now();
  const results: SimulationResult[] = [];
  for (let seed = from; seed < from + count; seed++) {
    const runStarted = performance.now();
    const result = await simulate({ ...options, seed });
    results.push(result);
    onRun(result, performance.now() - runStarted);
  }
  const minutes = (performance.now() - started) / 60_000;
  const report: SeedsReport = {
    runs: results.length,
    failed: results.filter((r) => !r.ok).map((r) => ({ seed: r.seed, invariant: r.failures[0]!.invariant, detail: r.failures[0]!.detail })),
    seeds_per_minute: Math.round((results.length / minutes) * 10) / 10,
    simulated_seconds_per_run: Math.round(results.reduce((sum, r) => sum + r.simulated_ms, 0) / results.length / 100) / 10,
  };
  return { report, results };
}

/** One row per seed, then the totals. */
export function formatSeeds(results: SimulationResult[], report: SeedsReport): string {
  const rows = [["SEED", "VERDICT", "LEDGERS", "TXS", "FAULTS", "FIRST FAILURE"]];
  for (const r of results) {
    const failure = r.failures[0];
    rows.push([String(r.seed), r.ok ? "pass" : "FAIL", String(r.ledgers), String(r.accepted), String(r.schedule.length), failure ? `${failure.invariant}: ${failure.detail.split("\n")[0]!.slice(0, 100)}` : ""]);
  }
  const summary = `${report.runs} seeds, ${report.failed.length} failed; ${report.seeds_per_minute} seeds per minute, ${report.simulated_seconds_per_run} simulated seconds per run`;
  const replay = report.failed.length > 0 ? `\nreplay one with: chainsim sim --replay ${report.failed[0]!.seed} [--trace FILE] [--view] [--shrink]` : "";
  return `${formatTable(rows)}\n${summary}${replay}`;
}

/** A replayed run: its verdict, faults, failures and trace hash. */
export function formatReplay(result: SimulationResult, shrunkFrom?: SimulationResult): string {
  const lines = [
    `seed ${result.seed}: ${result.ok ? "pass" : "FAIL"}; ${result.events} events, ${result.simulated_ms} simulated ms, ${result.ledgers} ledgers, ${result.accepted} transactions accepted`,
    `trace hash ${result.trace_hash}`,
  ];
  if (shrunkFrom) lines.push(`shrunk from ${shrunkFrom.schedule.length} faults (${shrunkFrom.faults.join("; ") || "none"})`);
  lines.push(`faults: ${result.faults.join("; ") || "none"}`);
  for (const f of result.failures) lines.push(`${f.invariant}${f.at_ms !== undefined ? ` at ${f.at_ms} ms` : ""}: ${f.detail}`);
  return lines.join("\n");
}
