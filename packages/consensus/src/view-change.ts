import { isCheckpointProof, isPreparedCertificate } from "./certificates.js";
import { primaryOf, type Verifier } from "./config.js";
import type { Checkpoint, NewView, PreparedCertificate, Signed, ViewChange } from "./messages.js";

/** The rules every replica applies to VIEW-CHANGE and NEW-VIEW messages (pure functions of their content). */
export interface ViewChangeRules {
  verifier: Verifier;
  genesis: { seq: number; stateDigest: string };
  /** Seqs a replica may have in flight above its stable checkpoint. */
  windowSize: number;
}

/** What a new view starts from: the highest stable checkpoint, and one pre-prepare per seq above it. */
export interface NewViewPlan {
  stable: { seq: number; digest: string; proof: Signed<Checkpoint>[] };
  /** Consecutive seqs from stable.seq + 1; value null (digest "") where no prepared value exists, else only its digest. */
  entries: { seq: number; digest: string; value: null | undefined }[];
  /** The last seq the NEW-VIEW assigns; fresh proposals in the view start above it. */
  maxSeq: number;
}

export function isValidViewChange(rules: ViewChangeRules, vc: ViewChange): boolean {
  const { verifier } = rules;
  if (!isCheckpointProof(verifier, rules.genesis, vc.stableSeq, vc.stableDigest, vc.checkpointProof)) return false;
  const seqs = new Set<number>();
  return vc.prepared.every((cert) => {
    const { seq, view } = cert.prePrepare.body;
    const fresh = !seqs.has(seq);
    seqs.add(seq);
    return fresh && seq > vc.stableSeq && seq <= vc.stableSeq + rules.windowSize && view < vc.view && isPreparedCertificate(verifier, cert);
  });
}

/**
 * The new primary's choice, recomputed by every replica from the same VIEW-CHANGEs: start from the highest
 * stable checkpoint; for each seq above it re-propose the value prepared in the highest view (a value
 * that may have committed is prepared at f+1 honest replicas, so at least one of any 2f+1 VIEW-CHANGEs
 * reports it); fill seqs nobody prepared with null requests.
 */
export function planNewView(viewChanges: Signed<ViewChange>[]): NewViewPlan {
  const top = viewChanges.reduce((a, b) => (b.body.stableSeq > a.body.stableSeq ? b : a)).body;
  const stable = { seq: top.stableSeq, digest: top.stableDigest, proof: top.checkpointProof };
  const best = new Map<number, PreparedCertificate>();
  for (const { body } of viewChanges) {
    for (const cert of body.prepared) {
      const { seq, view } = cert.prePrepare.body;
      const held = best.get(seq);
      if (seq > stable.seq && (!held || view > held.prePrepare.body.view)) best.set(seq, cert);
    }
  }
  const maxSeq = Math.max(stable.seq, ...best.keys());
  const entries: NewViewPlan["entries"] = [];
  for (let seq = stable.seq + 1; seq <= maxSeq; seq++) {
    const pp = best.get(seq)?.prePrepare.body;
    entries.push({ seq, digest: pp?.digest ?? "", value: pp ? undefined : null });
  }
  return { stable, entries, maxSeq };
}

/** The plan a NEW-VIEW must follow, or undefined when it is not justified by its VIEW-CHANGEs. */
export function checkNewView(rules: ViewChangeRules, nv: NewView): NewViewPlan | undefined {
  const { verifier } = rules;
  const senders = new Set(nv.viewChanges.map((v) => v.body.replica));
  const justified =
    nv.replica === primaryOf(nv.view, verifier.validators.length) &&
    nv.viewChanges.length >= verifier.quorum &&
    senders.size === nv.viewChanges.length &&
    nv.viewChanges.every((v) => v.body.view === nv.view && isValidViewChange(rules, v.body));
  if (!justified) return undefined;
  const plan = planNewView(nv.viewChanges);
  const matches =
    nv.prePrepares.length === plan.entries.length &&
    plan.entries.every((e, i) => {
      const pp = nv.prePrepares[i].body;
      return pp.replica === nv.replica && pp.view === nv.view && pp.seq === e.seq && pp.digest === e.digest;
    });
  return matches ? plan : undefined;
}
