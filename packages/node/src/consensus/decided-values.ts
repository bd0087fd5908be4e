import { createHash } from "node:crypto";
import { codecs, equalBytes, SignedTransaction, type ConsensusValue, type LedgerDecision, type LedgerHeader } from "@chainsim/protocol";
import type { LedgerProposal } from "../execution/executor.js";

/** Hex sha256 of a consensus value's bytes: what PBFT agrees on. node:crypto, as values can be megabytes. */
export function valueDigest(value: Uint8Array): string {
  return createHash("sha256").update(value).digest("hex");
}

/** The digest a decision's commit proof is over: "" for a null request (an empty value). */
export function decisionDigest(decision: LedgerDecision): string {
  const value = decision.value ?? new Uint8Array(0);
  return value.length === 0 ? "" : valueDigest(value);
}

export function decodeValue(value: Uint8Array): ConsensusValue | undefined {
  try {
    return codecs.ConsensusValue.decode(value);
  } catch {
    return undefined;
  }
}

/**
 * The proposal a decided value stands for, executed alike by every validator (after a commit and during
 * state sync). A null request, or a value that does not follow the tip (possible only when a view change
 * re-proposed around it), becomes an empty ledger one microsecond after the tip: still the same everywhere.
 * Undecodable transactions are left out, as the executor leaves out invalid ones.
 */
export function decidedProposal(value: Uint8Array | null, tip: LedgerHeader): LedgerProposal {
  const parsed = value && value.length > 0 ? decodeValue(value) : undefined;
  const previousClose = tip.close_time ?? 0n;
  const follows =
    parsed !== undefined &&
    parsed.ledger_seq === tip.seq! + 1n &&
    equalBytes(parsed.previous_ledger_hash ?? new Uint8Array(0), tip.hash!) &&
    (parsed.close_time ?? 0n) > previousClose;
  if (!follows) return { closeTime: previousClose + 1n, proposer: "", txs: [] };
  const txs: SignedTransaction[] = [];
  for (const env of parsed.txs ?? []) {
    try {
      txs.push(SignedTransaction.fromEnv(env));
    } catch {
      // a transaction that does not decode is left out, on every validator alike
    }
  }
  return { closeTime: parsed.close_time!, proposer: parsed.proposer ?? "", txs, previousProof: parsed.previous_proof };
}
