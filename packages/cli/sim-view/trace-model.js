// The trace view's data: a trace file, read by packages/sim/src/trace-file.ts itself (the page server serves
// its compiled module as ./trace-file.js), made into what the timeline draws, each kind sorted by time so
// that a frame finds what is in view by binary search.
export { parseTraceFile } from "./trace-file.js";

/** Message types by the first word of a trace entry's `what`, in legend order. */
export const MESSAGE_TYPES = [
  { name: "PRE-PREPARE", color: "#1a56db" },
  { name: "PREPARE", color: "#0e9aa7" },
  { name: "COMMIT", color: "#2f9e44" },
  { name: "CHECKPOINT", color: "#8c5bd6" },
  { name: "VIEW-CHANGE", color: "#f08c00" },
  { name: "NEW-VIEW", color: "#d6336c" },
  { name: "txs", color: "#a0703c" },
  { name: "sync", color: "#74a12e" },
  { name: "status", color: "#a8b0bd" },
  { name: "other", color: "#6c757d" },
];
const TYPE_INDEX = new Map(MESSAGE_TYPES.map((type, i) => [type.name, i]));
const typeOf = (what) => TYPE_INDEX.get(String(what).split(" ")[0]) ?? TYPE_INDEX.get("other");

/** Kinds that open a span on a lane, and the kind that closes it. */
const SPAN_CLOSERS = { fault: "heal", crash: "start", pause: "resume" };

/**
 * What the timeline draws, from a parsed trace: lanes, arrows (one per received copy), drops, timers per
 * lane, spans (fault to heal, crash to start, pause to resume), point marks, and violations.
 */
export function buildModel({ header, entries }) {
  const lanes = [...header.nodes];
  const laneOf = new Map(lanes.map((name, i) => [name, i]));
  const lane = (name) => {
    if (!laneOf.has(name)) laneOf.set(name, lanes.push(name) - 1); // a node the header did not list
    return laneOf.get(name);
  };
  const sends = new Map();
  const arrows = [];
  const drops = [];
  const timers = [];
  const spans = [];
  const marks = [];
  const violations = [];
  const open = new Map(); // `${kind} ${node}` (and the fault's text) to its span
  let end = header.simulated_ms ?? 0;
  for (const e of entries) {
    end = Math.max(end, e.t);
    switch (e.kind) {
      case "send":
        sends.set(e.id, e);
        break;
      case "recv":
      case "drop": {
        const sent = sends.get(e.id) ?? e;
        const item = { t0: sent.t, t1: e.t, from: lane(e.from), to: lane(e.to), type: typeOf(e.what), what: e.what, id: e.id, why: e.why };
        (e.kind === "recv" ? arrows : drops).push(item);
        break;
      }
      case "timer":
        (timers[lane(e.node)] ??= []).push(e.t);
        break;
      case "commit":
        marks.push({ t: e.t, lane: lane(e.node), kind: "commit", seq: e.seq, text: `${e.node} committed ledger ${e.seq} (${e.hash}, ${e.txs} tx)` });
        break;
      case "violation":
        violations.push(e);
        break;
      default: {
        if (typeof e.node !== "string") break; // a kind this page does not know
        const node = lane(e.node);
        marks.push({ t: e.t, lane: node, kind: e.kind, text: `${e.node} ${e.kind}: ${e.what}` });
        closeSpan(e);
        if (SPAN_CLOSERS[e.kind]) {
          const span = { t0: e.t, t1: undefined, kind: e.kind, what: e.what, lanes: spanLanes(e).map(lane) };
          spans.push(span);
          open.set(spanKey(e.kind, e), span);
        }
      }
    }
  }
  function closeSpan(e) {
    for (const [opener, closer] of Object.entries(SPAN_CLOSERS)) {
      if (closer !== e.kind) continue;
      const span = open.get(spanKey(opener, e));
      if (span) span.t1 = e.t;
      open.delete(spanKey(opener, e));
    }
  }
  for (const span of spans) span.t1 ??= end; // never healed: open to the end
  const byStart = (a, b) => a.t0 - b.t0;
  arrows.sort(byStart);
  drops.sort(byStart);
  const violationOf = (failure) => ({ t: failure.at_ms, invariant: failure.invariant, detail: failure.detail });
  // The trace holds each invariant's first violation seen during the run; a header failure with a time
  // stands in for a trace without one.
  const seen = violations.length > 0 ? violations : (header.failures ?? []).filter((f) => typeof f.at_ms === "number").map(violationOf);
  seen.sort((a, b) => a.t - b.t);
  return {
    header,
    lanes,
    end,
    arrows,
    drops,
    maxFlight: Math.max(0, ...arrows.map((a) => a.t1 - a.t0), ...drops.map((d) => d.t1 - d.t0)),
    timers: lanes.map((_, i) => timers[i] ?? []),
    spans,
    marks: marks.sort((a, b) => a.t - b.t),
    violations: seen,
  };
}

// A fault is healed by the heal with its own text; a crash or a pause ends on the same node.
const spanKey = (opener, e) => (opener === "fault" ? `fault ${e.node} ${e.what}` : `${opener} ${e.node}`);

/** The lanes a span covers: a partition's named side (`partition {v1,v2} ...`), else the node. */
function spanLanes(e) {
  const side = e.kind === "fault" ? /partition \{([^}]*)\}/.exec(e.what) : null;
  return side ? side[1].split(",").map((name) => name.trim()).filter(Boolean) : [e.node];
}

/** The first index of `items` (sorted by `key`) whose key is at least `value`. */
export function lowerBound(items, value, key = (x) => x) {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (key(items[mid]) < value) low = mid + 1;
    else high = mid;
  }
  return low;
}
