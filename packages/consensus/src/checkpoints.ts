import { findQuorum } from "./certificates.js";
import type { Checkpoint, Signed } from "./messages.js";

export interface StableCheckpoint { seq: number; digest: string; proof: Signed<Checkpoint>[] }

// A replica's CHECKPOINTs are kept for its few latest seqs only: enough to see one become stable while
// executing normally, and memory stays bounded whatever a faulty replica sends. A replica further
// behind sees a later checkpoint become stable and catches up by state transfer.
const KEPT_PER_REPLICA = 3;

/** CHECKPOINT messages above the stable checkpoint, and the ones a quorum agrees on. */
export class CheckpointStore {
  private readonly byReplica = new Map<number, Signed<Checkpoint>[]>();

  constructor(private readonly quorum: number) {}

  add(checkpoint: Signed<Checkpoint>): void {
    const held = this.byReplica.get(checkpoint.body.replica) ?? [];
    if (held.some((c) => c.body.seq === checkpoint.body.seq)) return;
    const kept = [...held, checkpoint].sort((a, b) => b.body.seq - a.body.seq).slice(0, KEPT_PER_REPLICA);
    this.byReplica.set(checkpoint.body.replica, kept);
  }

  /** Forgets checkpoints at or below a stable seq. */
  prune(stableSeq: number): void {
    for (const [replica, held] of this.byReplica) {
      const kept = held.filter((c) => c.body.seq > stableSeq);
      if (kept.length > 0) this.byReplica.set(replica, kept);
      else this.byReplica.delete(replica);
    }
  }

  /** Every (seq, digest) a quorum signed, highest seq first. */
  stable(): StableCheckpoint[] {
    const bySeq = new Map<number, Signed<Checkpoint>[]>();
    for (const held of this.byReplica.values()) {
      for (const c of held) bySeq.set(c.body.seq, [...(bySeq.get(c.body.seq) ?? []), c]);
    }
    const found: StableCheckpoint[] = [];
    for (const [seq, checkpoints] of bySeq) {
      const proof = findQuorum(checkpoints, (c) => c.body.stateDigest, this.quorum);
      if (proof) found.push({ seq, digest: proof[0].body.stateDigest, proof });
    }
    return found.sort((a, b) => b.seq - a.seq);
  }

  /** Every checkpoint held, for the snapshot. */
  all(): Signed<Checkpoint>[] {
    return [...this.byReplica.values()].flat();
  }

  /** The latest checkpoint `replica` made that is held here (above the stable seq). */
  latestOf(replica: number): Signed<Checkpoint> | undefined {
    return this.byReplica.get(replica)?.[0];
  }

  /** This replica's own checkpoints are kept here too; their digest tells whether our state matches. */
  digestOf(replica: number, seq: number): string | undefined {
    return this.byReplica.get(replica)?.find((c) => c.body.seq === seq)?.body.stateDigest;
  }
}
