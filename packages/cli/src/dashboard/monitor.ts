/**
 * What the dashboard shows, gathered once a second in the dashboard server (not in the browser), so every
 * page and every reload sees the same height history: node status (readNetworkStatus), the figures of each
 * node's GET /metrics (the numbers Prometheus scrapes), the ledger hashes of the last HASH_WINDOW seqs on
 * every node, each node's active faults, and height samples over time.
 */
import { readNetworkStatus, type NetworkStatus, type NodeStatus } from "../network-status.js";
import { failure, getJson } from "../node-http.js";
import { parsePrometheusText, type MetricFamily } from "./prometheus-text.js";

export interface NodeRef {
  name: string;
  http: string;
}

/** A node's fault plane as `GET /debug/faults` reports it, or why it could not be read. */
export interface FaultsView {
  available: boolean;
  enabled?: boolean;
  rules?: Record<string, unknown>[];
  stats?: unknown;
  /** Why no rules are shown: the route is missing, the plane is off, the node is down. */
  note?: string;
}

/** A node's figures from its GET /metrics (docs/operations.md, "Metrics"); absent while it cannot be read. */
export interface MetricsView {
  pool: number;
  view_changes: number;
  /** Mean of chainsim_commit_latency_seconds since the node started, in ms; null before any commit. */
  commit_latency_ms: number | null;
}

export interface DashboardState {
  updated_at: number | undefined;
  poll_ms: number;
  common_seq: number | undefined;
  mismatch: boolean;
  nodes: (NodeStatus & { faults: FaultsView; metrics?: MetricsView })[];
  /** Hashes of the last seqs, one row per node in `nodes` order; null where the node has no such ledger (yet). */
  hashes: { seqs: number[]; rows: (string | null)[][]; mismatched: number[] };
  /** Height of each node (in `nodes` order) over time; null while it did not answer. */
  history: { t: number; seq: (number | null)[] }[];
  /** The first time any node reported each new view: the chart marks these. */
  view_changes: { t: number; view: number; node: string }[];
}

const HASH_WINDOW = 10;
/** Five minutes of one-second samples. */
const HISTORY_LIMIT = 300;
const READ_TIMEOUT_MS = 1000;

export class NetworkMonitor {
  readonly pollMs: number;
  private readonly nodes: NodeRef[];
  private statuses: NetworkStatus | undefined;
  private faults: FaultsView[] = [];
  private metrics: (MetricsView | undefined)[] = [];
  private updatedAt: number | undefined;
  /** Closed ledgers never change, so each (node, seq) hash is read once. */
  private readonly hashCache = new Map<string, Map<number, string>>();
  private readonly history: DashboardState["history"] = [];
  private readonly viewChanges: DashboardState["view_changes"] = [];
  private highestView: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(nodes: NodeRef[], pollMs = 1000) {
    this.nodes = nodes;
    this.pollMs = pollMs;
    for (const node of nodes) this.hashCache.set(node.name, new Map());
  }

  /**
   * Polls until stop(), one poll at a time so a slow (paused) node never piles requests up; resolves after
   * the first reading.
   */
  start(): Promise<void> {
    const loop = async () => {
      const started = Date.now();
      await this.poll();
      if (!this.stopped) this.timer = setTimeout(loop, Math.max(0, this.pollMs - (Date.now() - started)));
    };
    return loop();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** One reading of every node; never throws (a node that fails is shown DOWN). */
  private async poll(): Promise<void> {
    const [status, faults, metrics] = await Promise.all([readNetworkStatus(this.nodes), Promise.all(this.nodes.map(readFaults)), Promise.all(this.nodes.map(readMetrics))]);
    await this.readHashes(status.nodes);
    const t = Date.now();
    this.statuses = status;
    this.metrics = metrics;
    this.faults = faults.map((f, i) => (status.nodes[i].error && !f.available ? { available: false, note: "node down" } : f));
    this.updatedAt = t;
    this.history.push({ t, seq: status.nodes.map((n) => (n.error ? null : n.last_exe_seq ?? null)) });
    if (this.history.length > HISTORY_LIMIT) this.history.shift();
    for (const node of status.nodes) {
      if (node.error || node.view === undefined) continue;
      if (this.highestView !== undefined && node.view > this.highestView) this.viewChanges.push({ t, view: node.view, node: node.name });
      this.highestView = Math.max(this.highestView ?? node.view, node.view);
    }
    while (this.viewChanges.length > 0 && this.viewChanges[0].t < this.history[0].t) this.viewChanges.shift();
  }

  private async readHashes(statuses: NodeStatus[]): Promise<void> {
    const top = Math.max(0, ...statuses.map((s) => s.last_exe_seq ?? 0));
    await Promise.all(
      statuses.map(async (s) => {
        const cache = this.hashCache.get(s.name)!;
        if (s.error || s.last_exe_seq === undefined) return;
        // A wiped and restarted node closes its ledgers again: forget what it had.
        if (Math.max(0, ...cache.keys()) > s.last_exe_seq) cache.clear();
        for (const seq of cache.keys()) if (seq <= top - 2 * HASH_WINDOW) cache.delete(seq);
        for (let seq = Math.max(1, top - HASH_WINDOW + 1); seq <= s.last_exe_seq; seq++) {
          if (cache.has(seq)) continue;
          const hash = await readLedgerHash(s.http, seq);
          if (hash === undefined) return;
          cache.set(seq, hash);
        }
      }),
    );
  }

  state(): DashboardState {
    const nodes = this.statuses?.nodes ?? this.nodes.map((n) => ({ ...n, error: "not read yet" }));
    const top = Math.max(0, ...[...this.hashCache.values()].flatMap((cache) => [...cache.keys()]));
    const seqs = Array.from({ length: Math.min(HASH_WINDOW, top) }, (_, i) => top - Math.min(HASH_WINDOW, top) + 1 + i);
    const rows = this.nodes.map((n) => seqs.map((seq) => this.hashCache.get(n.name)!.get(seq) ?? null));
    const mismatched = seqs.filter((_, column) => new Set(rows.map((row) => row[column]).filter((h) => h !== null)).size > 1);
    return {
      updated_at: this.updatedAt,
      poll_ms: this.pollMs,
      common_seq: this.statuses?.common_seq,
      mismatch: (this.statuses?.mismatch ?? false) || mismatched.length > 0,
      nodes: nodes.map((n, i) => ({ ...n, faults: this.faults[i] ?? { available: false, note: "not read yet" }, metrics: this.metrics[i] })),
      hashes: { seqs, rows, mismatched },
      history: this.history,
      view_changes: this.viewChanges,
    };
  }
}

async function readLedgerHash(http: string, seq: number): Promise<string | undefined> {
  try {
    const body = await getJson(http, `/getLedger?seq=${seq}`, READ_TIMEOUT_MS);
    return body.error_code ? undefined : body.result?.header?.hash;
  } catch {
    return undefined;
  }
}

/** `GET /debug/faults`: absent on nodes built without a fault plane, refused when it is turned off. */
async function readFaults(node: NodeRef): Promise<FaultsView> {
  try {
    const body = await getJson(node.http, "/debug/faults", READ_TIMEOUT_MS);
    if (body.error_code) return { available: false, note: body.error_desc || `error ${body.error_code}` };
    return { available: true, enabled: body.result?.enabled, rules: body.result?.rules ?? [], stats: body.result?.stats };
  } catch (error) {
    const why = failure(error);
    if (/HTTP 404/.test(why)) return { available: false, note: "no fault plane on this node" };
    return { available: false, note: why === "timeout" ? "no answer" : why };
  }
}

/** The dashboard's figures from a node's GET /metrics; undefined when it does not answer or lacks them. */
async function readMetrics(node: NodeRef): Promise<MetricsView | undefined> {
  try {
    const response = await fetch(`${node.http}/metrics`, { signal: AbortSignal.timeout(READ_TIMEOUT_MS) });
    if (!response.ok) return undefined;
    const families = parsePrometheusText(await response.text());
    const value = (name: string, sample = name) => families.get(name)?.samples.find((s) => s.name === sample)?.value;
    const pool = value("chainsim_pool_transactions");
    const viewChanges = value("chainsim_consensus_view_changes_total");
    if (pool === undefined || viewChanges === undefined) return undefined;
    return { pool, view_changes: viewChanges, commit_latency_ms: meanMs(families.get("chainsim_commit_latency_seconds")) };
  } catch {
    return undefined;
  }
}

function meanMs(histogram: MetricFamily | undefined): number | null {
  const sum = histogram?.samples.find((s) => s.name.endsWith("_sum"))?.value;
  const count = histogram?.samples.find((s) => s.name.endsWith("_count"))?.value;
  return sum === undefined || !count ? null : (sum / count) * 1000;
}
