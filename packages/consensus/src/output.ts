import type { CommitProof } from "./certificates.js";
import type { SignedMessage } from "./messages.js";

/** A decided value, handed to the node in seq order, each seq once. */
export interface Commit {
  seq: number;
  view: number;
  /** null: a null request a new view filled a gap with; the seq still counts. */
  value: Uint8Array | null;
  /** Hex sha256 of the value; "" for null. */
  digest: string;
  proof: CommitProof;
}

/** The node asks to fetch ledgers: there is evidence that others are ahead of this replica. */
export interface SyncRequest {
  /** Fetch up to at least this seq, verifying each ledger's commit proof (verifyCommitProof). */
  targetSeq: number;
  /** The state digest a quorum checkpointed at targetSeq, when the evidence is a stable checkpoint. */
  stateDigest?: string;
  /** Replicas known to have targetSeq. */
  from: number[];
}

/** What the node must do after each call, in this order: persist, then send; validate, execute, sync. */
export interface Output {
  /** Messages to send; `to` is a replica index or every other validator. */
  send: { to: number | "all"; message: SignedMessage }[];
  /** Pre-prepared values to check (signatures, nonces, fees, close time); answer with valueChecked(). */
  validate: { view: number; seq: number; digest: string; value: Uint8Array }[];
  /** Values to execute, in seq order; answer each with executed(). */
  commits: Commit[];
  /** snapshot() must be stored durably BEFORE any message of `send` leaves the node. */
  persist: boolean;
  sync?: SyncRequest;
  /** Human-readable notes for the log, e.g. "view change to 3: no progress in 2000 ms". */
  events: string[];
}

export function emptyOutput(): Output {
  return { send: [], validate: [], commits: [], persist: false, events: [] };
}
