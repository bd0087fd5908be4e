import { formatTable } from "../output.js";
import type { InvariantResult } from "@chainsim/sim";
import type { CrashCounts } from "./crashes.js";

/** `chainsim scenario --json` (product.md §4: this shape is a contract). */
export interface ScenarioReport {
  verdict: "pass" | "fail";
  invariants: { agreement: InvariantResult; validity: InvariantResult; no_loss: InvariantResult; liveness: InvariantResult };
  /** at_ms and healed_ms from the start of the load; recovery_ms null when not within the liveness bound. */
  perturbations: { node: string; kind: string; at_ms: number; healed_ms: number; recovery_ms: number | null }[];
  tps: number;
  latency_ms: { p50: number; p99: number };
  view_changes: number;
  seed: number;
  /** Accepted (error_code 0) transactions, those of them found in a ledger, and ledgers read over all nodes. */
  counts: { accepted: number; committed: number; ledgers_checked: number };
  /** Only when the manifest has a crash series (`[scenario] crashes`). */
  crashes?: CrashCounts;
}

/** The verdict as tables: invariants, then perturbations with recovery times, then the figures. */
export function formatReport(report: ScenarioReport): string {
  const invariants = Object.entries(report.invariants).map(([name, r]) => [name, r.ok ? "ok" : "FAIL", r.detail]);
  const perturbations = report.perturbations.map((p) => [p.node, p.kind, String(p.at_ms), String(p.healed_ms), p.recovery_ms === null ? "NOT RECOVERED" : String(p.recovery_ms)]);
  return [
    formatTable([["invariant", "", "detail"], ...invariants]),
    "",
    perturbations.length > 0 ? formatTable([["node", "perturbation", "at_ms", "healed_ms", "recovery_ms"], ...perturbations]) : "no perturbations",
    "",
    `transactions ${report.counts.accepted} accepted, ${report.counts.committed} committed; ${report.counts.ledgers_checked} ledgers checked over all nodes`,
    ...(report.crashes ? [formatCrashes(report.crashes)] : []),
    `throughput ${report.tps} tx/s, commit latency p50 ${report.latency_ms.p50} ms, p99 ${report.latency_ms.p99} ms, view changes ${report.view_changes}`,
    `verdict: ${report.verdict.toUpperCase()} (seed ${report.seed}; run again with --seed ${report.seed} for the same schedule)`,
  ].join("\n");
}

function formatCrashes(crashes: CrashCounts): string {
  const points = Object.entries(crashes.by_point).map(([point, n]) => `${point} ${n}`).join(", ");
  const failed = crashes.restarts_failed.length > 0 ? `, ${crashes.restarts_failed.length} FAILED` : "";
  return `crashes ${crashes.kills} SIGKILLs, ${crashes.kills_during_writes} while storing a ledger (${points}); ${crashes.restarts} restarts${failed}`;
}
