import { BYZANTINE_MODES, STORE_POINTS, type ByzantineMode, type StorePoint } from "@chainsim/node";

/**
 * What the simulation can do to a validator (docs/simulation.md, "Faults"): the process faults of
 * scenario manifests (kill, pause, wipe, partition, twin), the message faults of the fault plane (drop, delay,
 * duplicate, reorder, every Byzantine mode), and two that only a simulated disk allows: a power cut,
 * which loses writes that were not synced, and a crash at a point of a ledger's write.
 */
export const SIM_FAULT_KINDS = ["kill", "power-cut", "crash-at-write", "pause", "partition", "wipe", "twin", "drop", "delay", "duplicate", "reorder", "byzantine"] as const;
export type SimFaultKind = (typeof SIM_FAULT_KINDS)[number];

export interface SimFault {
  /** Virtual ms since the run began. */
  at_ms: number;
  node: string;
  kind: SimFaultKind;
  duration_ms: number;
  mode?: ByzantineMode;
  point?: StorePoint;
  /** A power cut's share of unsynced writes that still reach the disk. */
  kept?: number;
  /** A partition's side with `node` (the rest form the other side). */
  side?: string[];
}

/** How often a fault starts while the one before it is still on (on another validator). */
const OVERLAP_CHANCE = 0.3;

/** Faults that make their validator Byzantine: at most one at a time (a wipe, amnesia, overlaps nothing). */
const ADVERSARIAL: readonly SimFaultKind[] = ["byzantine", "twin"];

/**
 * A fault schedule drawn from `random`, from `startMs` until `endMs`: faults one after another, and now and
 * then one that starts while the one before it is still on, on another validator, so that at most two are
 * on at once. Two may stall the network (two of four validators down); safety must hold all the same, as
 * at most one of them is Byzantine (ADVERSARIAL), a wipe overlaps nothing, and the two are never both
 * partitions (the wire has one).
 */
export function drawSchedule(random: () => number, nodes: string[], startMs: number, endMs: number, kinds: readonly SimFaultKind[] = SIM_FAULT_KINDS): SimFault[] {
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const schedule: SimFault[] = [];
  if (kinds.length === 0) return schedule;
  let next = startMs + Math.floor(random() * 2_000);
  /** The fault a next one may overlap: none after an overlap (at most two at once). */
  let overlappable: SimFault | undefined;
  for (;;) {
    const kind = pick(kinds);
    // a split lasts long enough for a side to change views (view timers double from view_timeout_ms)
    const duration = kind === "partition" ? 2_000 + Math.floor(random() * 10_000) : 500 + Math.floor(random() * 4_500);
    const on = overlappable && random() < OVERLAP_CHANCE && compatible(overlappable, kind) ? overlappable : undefined;
    const at = on ? on.at_ms + Math.floor(random() * on.duration_ms) : next;
    // the last fault is cut to the run's end, if that leaves it its shortest length
    if (at + (kind === "partition" ? 2_000 : 500) > endMs) return schedule;
    const fault: SimFault = { at_ms: at, node: pick(on ? nodes.filter((n) => n !== on.node) : nodes), kind, duration_ms: Math.min(duration, endMs - at) };
    if (kind === "byzantine") fault.mode = pick(BYZANTINE_MODES);
    if (kind === "crash-at-write") fault.point = pick(STORE_POINTS);
    if (kind === "power-cut") fault.kept = Math.floor(random() * 100) / 100;
    // one validator cut off, or the network split in two halves (each below a quorum)
    if (kind === "partition") fault.side = random() < 0.5 ? [fault.node] : [fault.node, ...nodes.filter((n) => n !== fault.node && random() < 0.5)].slice(0, Math.floor(nodes.length / 2));
    schedule.push(fault);
    next = Math.max(next, at + fault.duration_ms + 500 + Math.floor(random() * 2_500));
    overlappable = on ? undefined : fault;
  }
}

/**
 * Whether a fault of `kind` may start while `on` is on. A wipe overlaps nothing: its validator forgets its
 * votes, and a slot it voted in that another fault keeps undecided would stay open to a second
 * equivocator after both heal.
 */
function compatible(on: SimFault, kind: SimFaultKind): boolean {
  if (on.kind === "wipe" || kind === "wipe") return false;
  if (on.kind === "partition" && kind === "partition") return false;
  return !(ADVERSARIAL.includes(on.kind) && ADVERSARIAL.includes(kind));
}

/** Whether `other` is on at some time from `fault`'s start until `afterMs` past its end. */
export function overlaps(fault: SimFault, other: SimFault, afterMs: number): boolean {
  return other.at_ms <= fault.at_ms + fault.duration_ms + afterMs && fault.at_ms <= other.at_ms + other.duration_ms;
}

/** A fault as the trace and the report show it. */
export function describeFault(fault: SimFault): string {
  const extra = fault.mode ?? fault.point ?? (fault.kept !== undefined ? `kept ${fault.kept}` : fault.side ? `{${fault.side.join(",")}} from the rest` : "");
  return `${fault.node} ${fault.kind}${extra ? ` ${extra}` : ""} for ${fault.duration_ms} ms`;
}

/**
 * The validators a fault may stop from closing ledgers: its own, or for a partition that leaves no side
 * a quorum (half the network cut off from the other half), all of them.
 */
export function stalled(fault: SimFault, nodes: string[]): string[] {
  if (fault.kind === "partition" && 2 * fault.side!.length >= nodes.length) return nodes;
  return fault.kind === "partition" ? fault.side! : [fault.node];
}
