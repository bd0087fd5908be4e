// The dashboard page: polls the dashboard server's /api/state every second and redraws. Plain browser
// JavaScript, no build step; the server keeps the history, so a reload loses nothing.
"use strict";

const POLL_MS = 1000;
const COLORS = ["#1967d2", "#e8710a", "#188038", "#a142f4", "#d01884", "#12a4af", "#9e6a03", "#5f6368"];
const SVG = "http://www.w3.org/2000/svg";

/** An element with attributes and children (strings become text nodes, so node data is never parsed as HTML). */
function el(tag, attrs = {}, ...children) {
  const node = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) if (value !== undefined && value !== null) node.setAttribute(key, String(value));
  for (const child of children.flat()) if (child !== undefined && child !== null) node.append(child);
  return node;
}

const color = (i) => COLORS[i % COLORS.length];
const shortHash = (hash) => hash.slice(0, 10);

function renderSummary(state) {
  const down = state.nodes.filter((n) => n.error).length;
  const summary = document.getElementById("summary");
  const problems = [down > 0 ? `${down} of ${state.nodes.length} DOWN` : "", state.mismatch ? "hash MISMATCH" : ""].filter(Boolean);
  summary.textContent = problems.length ? problems.join(" · ") : `${state.nodes.length} nodes up, hashes agree`;
  summary.className = `badge ${problems.length ? "down" : "up"}`;
  document.getElementById("updated").textContent = state.updated_at ? `read ${new Date(state.updated_at).toLocaleTimeString()}` : "";
}

function renderNodes(state) {
  const rows = state.nodes.map((n, i) => {
    const name = el("td", {}, el("span", { class: "swatch", style: `background:${color(i)}` }), n.name);
    const endpoint = el("td", { class: "mono" }, n.http);
    if (n.error) {
      return el("tr", { "data-node": n.name, "data-state": "down", class: "is-down" }, name,
        el("td", {}, el("span", { class: "badge down" }, "DOWN")), el("td", { colspan: 8, class: "reason" }, n.error), endpoint);
    }
    const view = el("td", { class: "num" }, String(n.view), n.view_active ? "" : [" ", el("span", { class: "badge changing" }, "changing")]);
    return el("tr", { "data-node": n.name, "data-state": "up", "data-role": n.is_leader ? "leader" : "backup" }, name,
      el("td", {}, el("span", { class: "badge up" }, "UP")),
      el("td", { class: "role" }, n.is_leader ? el("span", { class: "badge leader" }, "leader") : "backup"),
      view,
      el("td", { class: "num seq" }, String(n.last_exe_seq)),
      el("td", { class: "mono" }, (n.phase || "").replace(/^PHASE_/, "")),
      el("td", { class: "num" }, String(n.peers)),
      // Pool, view changes and commit latency are the node's /metrics figures: what Prometheus sees.
      el("td", { class: "num pool" }, n.metrics ? String(n.metrics.pool) : "?"),
      el("td", { class: "num view-changes" }, n.metrics ? String(n.metrics.view_changes) : "?"),
      el("td", { class: "num commit-latency" }, n.metrics?.commit_latency_ms != null ? `${Math.round(n.metrics.commit_latency_ms)} ms` : "–"),
      endpoint);
  });
  document.querySelector("#nodes tbody").replaceChildren(...rows);
}

function renderHashes(state) {
  const { seqs, rows, mismatched } = state.hashes;
  const bad = new Set(mismatched);
  const head = el("tr", {}, el("th", {}, "seq"), seqs.map((s) => el("th", { class: bad.has(s) ? "mismatch" : "" }, String(s), bad.has(s) ? " MISMATCH" : "")));
  const body = state.nodes.map((n, i) =>
    el("tr", { "data-node": n.name }, el("td", {}, el("span", { class: "swatch", style: `background:${color(i)}` }), n.name),
      rows[i].map((hash, c) => hash === null
        ? el("td", { class: "missing" }, "·")
        : el("td", { class: `mono${bad.has(seqs[c]) ? " mismatch" : ""}`, title: hash }, shortHash(hash)))));
  document.getElementById("hashes").replaceChildren(el("thead", {}, head), el("tbody", {}, body));
}

/** Height per node over the server's history: one polyline per stretch the node answered, dashed lines at view changes. */
function renderChart(state) {
  const svg = document.getElementById("chart");
  const [W, H, left, right, top, bottom] = [960, 280, 50, 16, 14, 28];
  const history = state.history;
  if (history.length === 0) return void svg.replaceChildren();
  const t1 = history[history.length - 1].t, t0 = Math.min(history[0].t, t1 - 10_000);
  const seqs = history.flatMap((h) => h.seq.filter((s) => s !== null));
  const lo = seqs.length ? Math.min(...seqs) : 0, hi = Math.max(seqs.length ? Math.max(...seqs) : 1, lo + 1);
  const x = (t) => left + ((t - t0) / (t1 - t0)) * (W - left - right);
  const y = (s) => H - bottom - ((s - lo) / (hi - lo)) * (H - top - bottom);
  const parts = [];
  for (const s of niceTicks(lo, hi, 5)) {
    parts.push(el("svg:line", { class: "grid", x1: left, x2: W - right, y1: y(s), y2: y(s) }), el("svg:text", { x: left - 6, y: y(s) + 4, "text-anchor": "end" }, String(s)));
  }
  for (let k = 0; k <= 4; k++) {
    const t = t0 + ((t1 - t0) * k) / 4;
    parts.push(el("svg:text", { x: x(t), y: H - 8, "text-anchor": "middle" }, k === 4 ? "now" : `-${Math.round((t1 - t) / 1000)} s`));
  }
  for (const change of state.view_changes) {
    parts.push(el("svg:line", { class: "view-change", x1: x(change.t), x2: x(change.t), y1: top, y2: H - bottom }),
      // Near the right edge the label goes to the left of its line, so it is not cut off.
      x(change.t) > W - 60
        ? el("svg:text", { class: "view-change-label", x: x(change.t) - 3, y: top + 10, "text-anchor": "end" }, `view ${change.view}`)
        : el("svg:text", { class: "view-change-label", x: x(change.t) + 3, y: top + 10 }, `view ${change.view}`));
  }
  // Heights are steps; nodes that agree would draw one line over another, so each is nudged by 2 px.
  state.nodes.forEach((n, i) => {
    const nudge = (i - (state.nodes.length - 1) / 2) * 2;
    let run = [];
    const flush = () => {
      if (run.length) parts.push(el("svg:polyline", { points: run.join(" "), fill: "none", stroke: color(i), "stroke-width": 2, "data-node": n.name }));
      run = [];
    };
    for (const h of history) {
      if (h.seq[i] === null) {
        flush();
        continue;
      }
      const py = (y(h.seq[i]) + nudge).toFixed(1);
      if (run.length) run.push(`${x(h.t).toFixed(1)},${run[run.length - 1].split(",")[1]}`);
      run.push(`${x(h.t).toFixed(1)},${py}`);
    }
    flush();
  });
  svg.replaceChildren(...parts);
  document.getElementById("legend").replaceChildren(
    ...state.nodes.map((n, i) => el("span", {}, el("span", { class: "swatch", style: `background:${color(i)}` }), n.name, n.error ? " (down)" : "")),
    el("span", {}, el("span", { class: "swatch", style: "background:#b06000" }), "view change"));
}

function niceTicks(lo, hi, count) {
  const step = Math.max(1, Math.ceil((hi - lo) / count));
  const ticks = [];
  for (let s = Math.ceil(lo / step) * step; s <= hi; s += step) ticks.push(s);
  return ticks;
}

function renderFaults(state) {
  const names = new Map(state.nodes.filter((n) => n.address).map((n) => [n.address, n.name]));
  const items = state.nodes.flatMap((n) => {
    const f = n.faults;
    if (!f.available) return [el("li", { class: "faults-none" }, `${n.name}: ${f.note || "unavailable"}`)];
    if (!f.rules.length) return [el("li", { class: "faults-none" }, `${n.name}: ${f.enabled === false ? "fault plane off" : "none"}`)];
    return f.rules.map((rule) => el("li", { "data-node": n.name }, el("b", {}, `${n.name}: ${rule.kind}`), " ", describeRule(rule, names)));
  });
  document.getElementById("faults").replaceChildren(el("ul", {}, items));
}

/**
 * A rule's parameters, its peers (validator addresses, shown by node name where known; null: every peer)
 * and the seconds left before it expires (null: never).
 */
function describeRule(rule, names) {
  const params = Object.entries(rule)
    .filter(([key]) => !["id", "kind", "peers", "created_at", "expires_at"].includes(key))
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`);
  const peers = `peers: ${rule.peers ? rule.peers.map((a) => names.get(a) ?? a).join(", ") : "all"}`;
  const expiry = rule.expires_at ? `expires in ${Math.max(0, Math.round((rule.expires_at - Date.now()) / 1000))} s` : "until removed";
  return [...params, peers, expiry].join(" · ");
}

async function refresh() {
  try {
    const response = await fetch("api/state", { cache: "no-store" });
    const state = await response.json();
    renderSummary(state);
    renderNodes(state);
    renderHashes(state);
    renderChart(state);
    renderFaults(state);
  } catch (error) {
    const summary = document.getElementById("summary");
    summary.textContent = `dashboard server not answering (${error.message}); is \`chainsim dashboard\` still running?`;
    summary.className = "badge down";
  } finally {
    setTimeout(refresh, POLL_MS);
  }
}

refresh();
