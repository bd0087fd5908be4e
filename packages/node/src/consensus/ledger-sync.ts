import { verifyCommitProof, type Verifier } from "@chainsim/consensus";
import { codecs, type LedgerDecision } from "@chainsim/protocol";
import type { ExecutedLedger } from "../execution/executor.js";
import type { LedgerManager } from "../ledger/ledger-manager.js";
import { decidedProposal, decisionDigest } from "./decided-values.js";

/** Ledgers one sync request asks for, and the bytes an answer may hold (a few large ledgers fill it). */
export const SYNC_BATCH_LEDGERS = 100;
const SYNC_ANSWER_BYTES = 4 * 1024 * 1024;

/** The answer to a peer's SyncRequest: this validator's decided ledgers from `from_seq` on. */
export async function answerSyncRequest(ledgers: LedgerManager, request: Uint8Array): Promise<Uint8Array> {
  const { from_seq = 0n, max_ledgers = SYNC_BATCH_LEDGERS } = codecs.SyncRequest.decode(request);
  const decisions: LedgerDecision[] = [];
  let bytes = 0;
  const last = ledgers.lastHeader.seq!;
  for (let seq = from_seq < 2n ? 2n : from_seq; seq <= last && decisions.length < Math.min(max_ledgers, SYNC_BATCH_LEDGERS); seq++) {
    const decision = await ledgers.ledgers.decision(seq);
    if (!decision) break;
    bytes += decision.value?.length ?? 0;
    if (decisions.length > 0 && bytes > SYNC_ANSWER_BYTES) break;
    decisions.push(decision);
  }
  return codecs.SyncResponse.encode({ decisions });
}

export function syncRequest(fromSeq: bigint): Uint8Array {
  return codecs.SyncRequest.encode({ from_seq: fromSeq, max_ledgers: SYNC_BATCH_LEDGERS });
}

/**
 * Applies decided ledgers fetched from a peer, in order from the tip: each commit proof is checked against
 * the validator set before its value is executed (as a commit would execute it), so a peer can delay a
 * sync but never make this validator accept a ledger the validators did not decide. Returns the ledgers
 * applied; stops at the first decision that does not follow or does not prove itself.
 */
export async function applyDecisions(
  ledgers: LedgerManager,
  verifier: Verifier,
  answer: Uint8Array,
  onApplied: (ledger: ExecutedLedger) => void,
): Promise<{ applied: number; refused?: string }> {
  const { decisions = [] } = codecs.SyncResponse.decode(answer);
  let applied = 0;
  for (const decision of decisions) {
    const seq = ledgers.lastHeader.seq! + 1n;
    if (decision.seq !== seq) return { applied, refused: `the peer sent ledger ${decision.seq} where ${seq} was next` };
    if (!verifyCommitProof(verifier, Number(seq), decisionDigest(decision), decision.proof ?? {})) {
      return { applied, refused: `the commit proof of ledger ${seq} does not verify` };
    }
    const value = decision.value && decision.value.length > 0 ? decision.value : null;
    onApplied(await ledgers.close(decidedProposal(value, ledgers.lastHeader), decision));
    applied++;
  }
  return { applied };
}
