import { open, type SignedMessage, type Verifier } from "@chainsim/consensus";
import { codecs } from "@chainsim/protocol";
import type { Offence } from "../p2p/index.js";

/**
 * How far ahead a consensus message may be, in ledgers beyond the highest one known (this validator's or a
 * believed announcement) and in views beyond the current one, before it counts as far-future
 * (docs/networks.md, "Hostile peers"). Honest peers stay well inside it: ledgers are announced every second,
 * and each view change takes at least a view timeout.
 */
export const FAR_FUTURE_LEDGERS = 1000;
export const FAR_FUTURE_VIEWS = 1000;

/** What the screen compares a message with: the replica's view, stable checkpoint and window, the highest ledger known. */
export interface ScreenBounds {
  view: number;
  stableSeq: number;
  /** The replica's window (2 × ckp_interval): an honest peer at work on it sends nothing older. */
  windowSize: number;
  highestLedger: number;
}

/**
 * The replica would ignore these messages too; the screen names the offence so the sender is held to
 * account, and drops the message before the replica sees it. A VIEW-CHANGE for an older view is not an
 * offence: the sender missed a NEW-VIEW, which the replica sends it.
 */
export function screenConsensusMessage(verifier: Verifier, bounds: ScreenBounds, payload: Uint8Array): { message: SignedMessage } | { offence: Offence } {
  let message: SignedMessage;
  try {
    message = codecs.PbftSignedMessage.decode(payload);
  } catch {
    return { offence: "garbage" };
  }
  if (notFromPrimary(verifier, message)) return { offence: "garbage" };
  const signed = open(verifier, message);
  if (!signed) return { offence: "garbage" };
  const body = signed.body;
  if ("view" in body && body.view > bounds.view + FAR_FUTURE_VIEWS) return { offence: "far-future" };
  if ("seq" in body) {
    if (body.seq > bounds.highestLedger + FAR_FUTURE_LEDGERS) return { offence: "far-future" };
    // a late vote or CHECKPOINT just below the stable checkpoint is an honest slow peer's: only older counts
    if (body.seq + bounds.windowSize <= bounds.stableSeq) return { offence: "replayed" };
  }
  return { message };
}

/**
 * A PRE-PREPARE whose replica is not its view's primary: no honest validator sends one, and the replica would
 * drop it only after hashing its value and checking its signature (a second of CPU for 32 MiB; review of
 * 2026-11-27). Read from the unverified body, before that work: whoever sent it is the offender.
 */
function notFromPrimary(verifier: Verifier, message: SignedMessage): boolean {
  let body;
  try {
    body = codecs.PbftMessage.decode(message.message ?? new Uint8Array(0));
  } catch {
    return false; // open() refuses it as garbage
  }
  const pp = body.pre_prepare;
  return pp !== undefined && Number(pp.replica ?? 0) !== Number(BigInt(pp.view ?? 0n) % BigInt(verifier.validators.length));
}
