/**
 * What a scenario records and reads, as plain data: the checker (checker.ts) is a pure function of it, so
 * it can be tested on invented histories and ledgers. Times are epoch milliseconds.
 */

export interface SignatureJson {
  public_key: string;
  sign_data: string;
}

/** A transaction this scenario signed (setup funding or load), by hash. */
export interface SignedTx {
  hash: string;
  blob: string;
  signatures: SignatureJson[];
  origin: "setup" | "load";
}

/** One submitTransaction of one transaction and its answer (Jepsen's history: every call, also failed ones). */
export interface Submission {
  hash: string;
  node: string;
  sent_ms: number;
  /** The item's error_code (0 = accepted into the pool), absent when no answer came. */
  error_code?: number;
  error_desc?: string;
  /** Why no answer came (timeout, connection refused). */
  error?: string;
}

export interface History {
  txs: Record<string, SignedTx>;
  submissions: Submission[];
}

export interface CommittedTx {
  hash: string;
  signatures: SignatureJson[];
}

export interface LedgerData {
  seq: number;
  hash: string;
  /** close_time of the header, in ms. */
  close_ms: number;
  txs: CommittedTx[];
}

/** Every ledger one node has, read at the end over HTTP. */
export interface NodeChain {
  name: string;
  ledgers: LedgerData[];
}

/** One reading of one node's getConsensusInfo during the run; seq and view absent when it did not answer. */
export interface StatusSample {
  at_ms: number;
  node: string;
  seq?: number;
  view?: number;
}

/** A perturbation as it happened; `honest` are the nodes that must advance once it healed. */
export interface PerturbationRecord {
  node: string;
  kind: string;
  at_ms: number;
  healed_ms: number;
  honest: string[];
}
