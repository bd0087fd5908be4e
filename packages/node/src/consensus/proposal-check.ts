import { verifyCommitProof, type Verifier } from "@chainsim/consensus";
import { codecs, equalBytes, SignedTransaction } from "@chainsim/protocol";
import type { ExecutedLedger } from "../execution/executor.js";
import type { LedgerManager } from "../ledger/ledger-manager.js";
import { decisionDigest, decodeValue, valueDigest } from "./decided-values.js";

/** How far ahead of this validator's clock a proposed close time may be. */
export const MAX_CLOCK_AHEAD_MS = 5_000;

/** Why a proposed value is refused; the replica then asks for a view change. */
export class InvalidProposal extends Error {}

/**
 * A replica's check of a value the primary proposed for the ledger after the tip, before it PREPAREs:
 * the value follows the tip (seq, previous hash, a later close time not far in the future), names the
 * view's primary as proposer, carries a valid commit proof of the previous ledger, and executes with every one
 * of its transactions valid (signatures, nonces, fees: the executor's "verify" mode). Returns the executed
 * ledger, which the commit then stores without executing again.
 */
export async function checkProposal(
  ledgers: LedgerManager,
  verifier: Verifier,
  /** The address of the view's primary: the only validator that may propose (and collect the fees) in it. */
  primary: string,
  value: Uint8Array,
  digest: string,
  nowMs: number,
  pooled: (tx: SignedTransaction) => SignedTransaction | undefined = () => undefined,
): Promise<ExecutedLedger> {
  const parsed = decodeValue(value);
  if (!parsed) throw new InvalidProposal("the value does not decode");
  const tip = ledgers.lastHeader;
  const seq = tip.seq! + 1n;
  if (parsed.ledger_seq !== seq) throw new InvalidProposal(`the value is for ledger ${parsed.ledger_seq}, the next is ${seq}`);
  if (!equalBytes(parsed.previous_ledger_hash ?? new Uint8Array(0), tip.hash!)) throw new InvalidProposal("the value does not follow this validator's last ledger");
  if (!verifier.validators.includes(parsed.proposer ?? "")) throw new InvalidProposal(`the proposer ${parsed.proposer} is not a validator`);
  if (parsed.proposer !== primary) throw new InvalidProposal(`the proposer ${parsed.proposer} is not the primary of this view (${primary})`);
  const closeTime = parsed.close_time ?? 0n;
  if (closeTime > BigInt(nowMs + MAX_CLOCK_AHEAD_MS) * 1000n) throw new InvalidProposal(`the close time ${closeTime} is more than ${MAX_CLOCK_AHEAD_MS} ms ahead`);
  await checkPreviousProof(ledgers, verifier, parsed.previous_proof);
  let txs: SignedTransaction[];
  try {
    // The pooled twin of a transaction had its signatures verified at admission (SignatureChecker caches by object).
    txs = (parsed.txs ?? []).map((env) => {
      const tx = SignedTransaction.fromEnv(env);
      const twin = pooled(tx);
      return twin?.sameAs(tx) ? twin : tx;
    });
  } catch (error) {
    throw new InvalidProposal(`a transaction does not decode: ${(error as Error).message}`);
  }
  let executed: ExecutedLedger;
  try {
    executed = await ledgers.execute({ closeTime, proposer: parsed.proposer!, txs, previousProof: parsed.previous_proof }, "verify");
  } catch (error) {
    throw new InvalidProposal(`the value does not execute: ${(error as Error).message}`);
  }
  // The proposer built the value with the same executor: anything else in its bytes is not ours to sign.
  if (valueDigest(codecs.ConsensusValue.encode(executed.value)) !== digest) throw new InvalidProposal("the value is not in the form this validator's execution gives");
  return executed;
}

/** The previous ledger's commit proof, as carried in the value (none after the genesis). */
async function checkPreviousProof(ledgers: LedgerManager, verifier: Verifier, proof: Uint8Array | undefined): Promise<void> {
  const tip = ledgers.lastHeader.seq!;
  if (tip === 1n) return;
  const decision = await ledgers.ledgers.decision(tip);
  if (!decision) throw new InvalidProposal(`this validator has no decision for ledger ${tip} to check the proof against`);
  let parsed;
  try {
    parsed = codecs.PbftCommitProof.decode(proof ?? new Uint8Array(0));
  } catch {
    throw new InvalidProposal("the previous ledger's proof does not decode");
  }
  if (!verifyCommitProof(verifier, Number(tip), decisionDigest(decision), parsed)) throw new InvalidProposal(`the proof of ledger ${tip} is not a valid commit proof`);
}
