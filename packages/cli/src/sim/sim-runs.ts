import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { simulate, type SimulationOptions, type SimulationResult } from "@chainsim/sim";
import { formatTable } from "../output.js";

/** What `chainsim sim --seeds N --json` prints (docs/simulation.md). */
export interface SeedsReport {
  runs: number;
  failed: { seed: number; invariant: string; detail: string }[];
  seeds_per_minute: number;
  simulated_seconds_per_run: number;
}

const SEED_WORKER = fileURLToPath(new URL("./seed-worker.js", import.meta.url));

/**
 * Runs seeds `from` .. `from + count - 1`: one after another, or spread over `jobs` worker processes (each
 * seed's run is the same wherever it runs). `onRun` hears each result as it comes; the results come back in
 * seed order.
 */
export async function runSeeds(
  options: Omit<SimulationOptions, "seed">,
  from: number,
  count: number,
  onRun: (result: SimulationResult, ms: number) => void,
  jobs = 1,
): Promise<{ report: SeedsReport; results: SimulationResult[] }> {
  const started = performance.now();
  const seeds = Array.from({ length: count }, (_, i) => from + i);
  const results: SimulationResult[] = [];
  const take = (result: SimulationResult, ms: number) => {
    results.push(result);
    onRun(result, ms);
  };
  if (jobs <= 1) {
    for (const seed of seeds) {
      const runStarted = performance.now();
      take(await simulate({ ...options, seed }), performance.now() - runStarted);
    }
  } else {
    const shares = Array.from({ length: jobs }, (_, j) => seeds.filter((_, i) => i % jobs === j)).filter((share) => share.length > 0);
    await Promise.all(shares.map((share) => inWorker(options, share, take)));
  }
  results.sort((a, b) => a.seed - b.seed);
  const minutes = (performance.now() - started) / 60_000;
  const report: SeedsReport = {
    runs: results.length,
    failed: results.filter((r) => !r.ok).map((r) => ({ seed: r.seed, invariant: r.failures[0]!.invariant, detail: r.failures[0]!.detail })),
    seeds_per_minute: Math.round((results.length / minutes) * 10) / 10,
    simulated_seconds_per_run: Math.round(results.reduce((sum, r) => sum + r.simulated_ms, 0) / results.length / 100) / 10,
  };
  return { report, results };
}

/** Runs `seeds` in a worker process (seed-worker.ts), handing each result to `take`. */
function inWorker(options: Omit<SimulationOptions, "seed">, seeds: number[], take: (result: SimulationResult, ms: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    // "advanced" serialization carries the configs' bigints
    const child = fork(SEED_WORKER, [], { serialization: "advanced", execArgv: ["--no-node-snapshot"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
    let received = 0;
    child.on("message", ({ result, ms }: { result: SimulationResult; ms: number }) => {
      received++;
      take(result, ms);
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (received === seeds.length) resolve();
      else reject(new Error(`a seed worker ended (${signal ?? `exit code ${code}`}) after ${received} of its ${seeds.length} seeds`));
    });
    child.send({ options, seeds });
  });
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
