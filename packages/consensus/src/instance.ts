import { findQuorum } from "./certificates.js";
import type { PrePrepare, PreparedCertificate, Signed, Vote } from "./messages.js";

/** What this replica knows about one seq: the pre-prepare of the view it is in, the votes, the certificates. */
export class Instance {
  /** View of the accepted pre-prepare; -1 before any. */
  view = -1;
  prePrepare?: Signed<PrePrepare>;
  /** The node found the pre-prepare's value fine (or it needs no check: our own, or carried by a NEW-VIEW). */
  validated = false;
  /** Per replica, its vote of the highest view seen: an honest replica votes again only in a later view. */
  readonly prepares = new Map<number, Signed<Vote>>();
  readonly commits = new Map<number, Signed<Vote>>();
  /** The certificate of the highest view in which this replica prepared; carried into VIEW-CHANGEs. */
  prepared?: PreparedCertificate;
  /** A quorum of matching COMMITs: the value is decided, whatever view this replica is in. */
  committed?: Signed<Vote>[];
  /**
   * Values seen in pre-prepares, by digest ("" → null request), so a commit certificate can be delivered.
   * A value decided here but never seen is fetched with its ledger by state transfer.
   */
  readonly values = new Map<string, Uint8Array | null>();
  lastProposeMs?: number;
  endMs?: number;

  constructor(
    readonly seq: number,
    readonly startMs: number,
  ) {}

  accept(prePrepare: Signed<PrePrepare>, validated: boolean, nowMs: number): void {
    const { digest, value } = prePrepare.body;
    const known = this.values.get(digest);
    this.view = prePrepare.body.view;
    // A pre-prepare without its value (a NEW-VIEW's) gets the one we know attached, outside its signature,
    // so that the snapshot keeps the value.
    this.prePrepare = value === undefined && known ? { body: { ...prePrepare.body, value: known }, wire: { ...prePrepare.wire, value: known } } : prePrepare;
    this.validated = validated;
    if (value !== undefined) this.values.set(digest, value);
    this.lastProposeMs = nowMs;
  }

  /** Keeps the vote unless the sender already voted in this or a later view. */
  addVote(vote: Signed<Vote>): boolean {
    const votes = vote.body.kind === "prepare" ? this.prepares : this.commits;
    const held = votes.get(vote.body.replica);
    if (held && held.body.view >= vote.body.view) return false;
    votes.set(vote.body.replica, vote);
    return true;
  }

  /** How many replicas sent a PREPARE or COMMIT of `view` here. */
  votersIn(view: number): number {
    const voters = new Set<number>();
    for (const votes of [this.prepares, this.commits]) for (const [replica, vote] of votes) if (vote.body.view === view) voters.add(replica);
    return voters.size;
  }

  /** PREPAREs matching the accepted pre-prepare (never the primary's: its pre-prepare stands for its prepare). */
  matchingPrepares(): Signed<Vote>[] {
    const pp = this.prePrepare?.body;
    if (!pp) return [];
    return [...this.prepares.values()].filter((p) => p.body.view === pp.view && p.body.digest === pp.digest && p.body.replica !== pp.replica);
  }

  /** A quorum of COMMITs of one view and digest, if there is one. */
  commitCertificate(quorum: number): Signed<Vote>[] | undefined {
    return findQuorum(this.commits.values(), (c) => `${c.body.view}/${c.body.digest}`, quorum);
  }

  committedDigest(): string | undefined {
    return this.committed?.[0].body.digest;
  }

  /** Committed and the value known: ready to hand to the node. */
  deliverable(): boolean {
    const digest = this.committedDigest();
    return digest !== undefined && this.values.has(digest);
  }
}
