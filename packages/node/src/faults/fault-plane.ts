import type { StorePoint } from "../ledger/ledger-manager.js";
import { parseFaultRule, type ByzantineMode, type FaultKind, type FaultRule } from "./rules.js";

export interface FaultStats {
  dropped: number;
  delayed: number;
  duplicated: number;
  reordered: number;
  partitioned: number;
  byzantine: number;
}

export interface FaultPlaneOptions {
  /** This validator's peers in config order (rules may name only these). */
  peers: readonly string[];
  /** Draws for the probabilities and jitter; seeded from debug.fault_seed so runs repeat. */
  random: () => number;
  seed: number;
  /** CHAINSIM_UNSAFE_QUORUM when set: reported so a scenario can see the node is broken on purpose. */
  unsafeQuorum: number | null;
  now?: () => number;
}

/**
 * The message fault rules of one validator and what they did: the HTTP routes add and remove rules, the
 * FaultyPeerNetwork asks which rules match a message. Expired rules are removed whenever rules are read,
 * so no timer is needed for expiry.
 */
export class FaultPlane {
  readonly stats: FaultStats = { dropped: 0, delayed: 0, duplicated: 0, reordered: 0, partitioned: 0, byzantine: 0 };
  readonly random: () => number;
  readonly peers: readonly string[];
  private rules: FaultRule[] = [];
  private nextId = 1;
  private readonly now: () => number;

  constructor(private readonly options: FaultPlaneOptions) {
    this.random = options.random;
    this.peers = options.peers;
    this.now = options.now ?? Date.now;
  }

  /** Validates a POST body (ChainError 2 when wrong) and activates it; returns its id. */
  add(body: unknown): number {
    const { params, peers, durationMs } = parseFaultRule(body, this.peers);
    const now = this.now();
    const rule = { ...params, id: this.nextId++, peers, created_at: now, expires_at: durationMs === null ? null : now + durationMs } as FaultRule;
    this.rules.push(rule);
    return rule.id;
  }

  /** Removes one rule; false when no active rule has that id. */
  remove(id: number): boolean {
    const before = this.active().length;
    this.rules = this.rules.filter((rule) => rule.id !== id);
    return this.rules.length < before;
  }

  clear(): void {
    this.rules = [];
  }

  active(): FaultRule[] {
    const now = this.now();
    this.rules = this.rules.filter((rule) => rule.expires_at === null || rule.expires_at > now);
    return this.rules;
  }

  /** The active rules of `kind` that apply to messages with `peer`. */
  matching<K extends FaultKind>(kind: K, peer: string): Extract<FaultRule, { kind: K }>[] {
    return this.active().filter((rule): rule is Extract<FaultRule, { kind: K }> => rule.kind === kind && (rule.peers === null || rule.peers.includes(peer)));
  }

  /** True when a rule of `kind` with probability p fires for `peer` (each rule draws once). */
  fires(kind: "drop" | "duplicate", peer: string): boolean {
    return this.matching(kind, peer).some((rule) => this.random() < rule.probability);
  }

  partitioned(peer: string): boolean {
    return this.matching("partition", peer).length > 0;
  }

  /**
   * The Byzantine modes that apply to consensus messages to `peer`. An `equivocate` rule without peers
   * targets the latter half of the peers: the others keep the value the primary itself holds.
   */
  byzantineModes(peer: string): ByzantineMode[] {
    const half = this.peers.slice(Math.ceil(this.peers.length / 2));
    return this.active()
      .filter((rule): rule is Extract<FaultRule, { kind: "byzantine" }> => rule.kind === "byzantine")
      .filter((rule) => (rule.peers ?? (rule.mode === "equivocate" ? half : this.peers)).includes(peer))
      .map((rule) => rule.mode);
  }

  /** Whether an active Byzantine rule has `mode` (for modes that act on this validator's own choices, not on its messages). */
  byzantine(mode: ByzantineMode): boolean {
    return this.active().some((rule) => rule.kind === "byzantine" && rule.mode === mode);
  }

  /** Whether an active crash rule names `point` (docs/faults.md, "Crashes during a ledger write"). */
  crashes(point: StorePoint): boolean {
    return this.active().some((rule) => rule.kind === "crash" && rule.point === point);
  }

  /** The GET /debug/faults result. */
  report(): { enabled: true; seed: number; unsafe_quorum: number | null; rules: FaultRule[]; stats: FaultStats } {
    return { enabled: true, seed: this.options.seed, unsafe_quorum: this.options.unsafeQuorum, rules: this.active().map((r) => ({ ...r })), stats: { ...this.stats } };
  }
}
