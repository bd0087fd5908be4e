import type { PbftCommitProof } from "@chainsim/protocol";
import { primaryOf, type Verifier } from "./config.js";
import { open, type Checkpoint, type PreparedCertificate, type Signed, type Vote } from "./messages.js";

/** 2f+1 signed COMMITs of one view and digest: the proof that a value was committed at a seq. */
export type CommitProof = PbftCommitProof;

/** The first group of `quorum` messages from distinct replicas that agree on `key`, if any. */
export function findQuorum<T extends Signed>(messages: Iterable<T>, key: (message: T) => string, quorum: number): T[] | undefined {
  const groups = new Map<string, Map<number, T>>();
  for (const message of messages) {
    const k = key(message);
    const group = groups.get(k) ?? new Map<number, T>();
    groups.set(k, group);
    group.set(message.body.replica, message);
    if (group.size >= quorum) return [...group.values()];
  }
  return undefined;
}

function distinctSigners(messages: Signed[]): boolean {
  return new Set(messages.map((m) => m.body.replica)).size === messages.length;
}

/** A pre-prepare from its view's primary and quorum−1 matching PREPAREs from other replicas. */
export function isPreparedCertificate(verifier: Verifier, cert: PreparedCertificate): boolean {
  const pp = cert.prePrepare.body;
  const primary = primaryOf(pp.view, verifier.validators.length);
  return (
    pp.replica === primary &&
    cert.prepares.length >= verifier.quorum - 1 &&
    distinctSigners(cert.prepares) &&
    cert.prepares.every(({ body: v }) => v.replica !== primary && v.view === pp.view && v.seq === pp.seq && v.digest === pp.digest)
  );
}

/** `quorum` matching CHECKPOINTs for (seq, digest), or nothing at all for the genesis checkpoint. */
export function isCheckpointProof(
  verifier: Verifier,
  genesis: { seq: number; stateDigest: string },
  seq: number,
  digest: string,
  proof: Signed<Checkpoint>[],
): boolean {
  if (seq === genesis.seq && digest === genesis.stateDigest) return true;
  return (
    proof.length >= verifier.quorum &&
    distinctSigners(proof) &&
    proof.every(({ body: c }) => c.seq === seq && c.stateDigest === digest)
  );
}

/**
 * Checks a commit proof: `quorum` validly signed COMMITs from distinct validators, all for `seq` and
 * `digest` ("" for a null request) in one view. The node calls it on ledgers fetched during state sync
 * and on the previous ledger's proof inside a proposed value.
 */
export function verifyCommitProof(verifier: Verifier, seq: number, digest: string, proof: CommitProof): boolean {
  const commits: Signed<Vote>[] = [];
  for (const wire of proof.commits ?? []) {
    const signed = open(verifier, wire);
    if (!signed || signed.body.kind !== "commit") return false;
    commits.push(signed as Signed<Vote>);
  }
  return (
    commits.length >= verifier.quorum &&
    distinctSigners(commits) &&
    commits.every(({ body: c }) => c.seq === seq && c.digest === digest && c.view === commits[0].body.view)
  );
}

export function commitProofOf(commits: Signed<Vote>[]): CommitProof {
  return { commits: commits.map((c) => c.wire) };
}
