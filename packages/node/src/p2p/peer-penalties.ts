// How a validator holds misbehaving peers to account (docs/networks.md, "Hostile peers"): each offence adds
// points to the peer's score, the score drains by one point a second, and a peer whose score reaches the
// threshold is banned (disconnected, refused) for the ban duration, after which it starts from zero.
import { DEFAULT_LIMITS, type LimitsConfig } from "../config.js";

/** Things a peer may do wrong, each worth its points: one honest slip now and then never adds up to a ban. */
export const OFFENCE_POINTS = {
  /** A frame header naming more than MAX_FRAME_BYTES (or 0): the stream is dropped. */
  oversized: 10,
  /** The stream ended in the middle of a frame. */
  truncated: 5,
  /** A frame or message that does not decode, a consensus message whose signature does not verify, a PRE-PREPARE not from its view's primary. */
  garbage: 5,
  /** A consensus message about a ledger a full window below the stable checkpoint: nothing can come of it. */
  replayed: 1,
  /** A consensus message beyond the far-future bound (docs/networks.md): never stored. */
  "far-future": 1,
} as const;

export type Offence = keyof typeof OFFENCE_POINTS;

export interface PenaltyPolicy {
  /** The score at which a peer is banned. */
  threshold: number;
  /** How long a ban lasts. */
  banMs: number;
}

/** A validator's penalty policy from its limits (docs/operations.md, "Limits"). */
export function penaltyPolicy(limits: LimitsConfig): PenaltyPolicy {
  return { threshold: limits.p2p_penalty_threshold, banMs: limits.p2p_ban_ms };
}

export const DEFAULT_PENALTY_POLICY: PenaltyPolicy = penaltyPolicy(DEFAULT_LIMITS);

const DRAIN_POINTS_PER_SECOND = 1;

/** What PeerStatus reports about one peer's conduct. */
export interface PeerConduct {
  /** Offences counted since the node started. */
  misbehaviour: number;
  /** The current score, 0 up to the threshold. */
  penaltyScore: number;
  /** When the current ban ends (ms since the epoch); null while not banned. */
  bannedUntil: number | null;
}

interface Record {
  offences: number;
  score: number;
  scoredAt: number;
  bannedUntil: number;
}

/** Scores for a fixed set of peers: memory is one record per configured peer, whatever they send. */
export class PeerPenalties {
  private readonly records = new Map<string, Record>();

  constructor(
    private readonly policy: PenaltyPolicy = DEFAULT_PENALTY_POLICY,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts `offence` against `peer`; true when this offence starts a ban. Offences during a ban only count. */
  penalize(peer: string, offence: Offence): boolean {
    const record = this.record(peer);
    const now = this.now();
    record.offences++;
    if (this.banned(peer)) return false;
    record.score = Math.min(this.policy.threshold, this.drained(record, now) + OFFENCE_POINTS[offence]);
    record.scoredAt = now;
    if (record.score < this.policy.threshold) return false;
    record.bannedUntil = now + this.policy.banMs;
    record.score = 0;
    return true;
  }

  banned(peer: string): boolean {
    return (this.records.get(peer)?.bannedUntil ?? 0) > this.now();
  }

  conduct(peer: string): PeerConduct {
    const record = this.records.get(peer);
    if (!record) return { misbehaviour: 0, penaltyScore: 0, bannedUntil: null };
    const now = this.now();
    return { misbehaviour: record.offences, penaltyScore: this.drained(record, now), bannedUntil: record.bannedUntil > now ? record.bannedUntil : null };
  }

  private drained(record: Record, now: number): number {
    return Math.max(0, record.score - ((now - record.scoredAt) / 1000) * DRAIN_POINTS_PER_SECOND);
  }

  private record(peer: string): Record {
    let record = this.records.get(peer);
    if (!record) {
      record = { offences: 0, score: 0, scoredAt: 0, bannedUntil: 0 };
      this.records.set(peer, record);
    }
    return record;
  }
}
