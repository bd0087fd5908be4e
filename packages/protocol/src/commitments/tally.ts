import { concatBytes, toHex, utf8 } from "../bytes.js";
import {
  EcPoint,
  POINT_BYTES,
  SCALAR_BYTES,
  decodeCanonicalHex,
  decodePoint,
  decodeScalar,
  encodePoint,
  encodeScalar,
  multiScalarMul,
} from "./curve.js";
import { PEDERSEN_H } from "./generators.js";
import { decodeCommitment } from "./pedersen.js";
import { Transcript } from "./transcript.js";

/** Domain of the excess-signature challenge. */
export const TALLY_DOMAIN = "chainsim/pedersen-tally/v1";
/** Inputs and outputs: each 1 to 100 commitments (the family's limits). */
export const MAX_TALLY_COMMITMENTS = 100;
/** The excess message is exactly 32 characters. */
export const TALLY_MESSAGE_LENGTH = 32;
/** R (33-byte compressed point) ‖ s (32-byte big-endian scalar). */
export const TALLY_SIGNATURE_BYTES = POINT_BYTES + SCALAR_BYTES;
export const TALLY_SIGNATURE_HEX_LENGTH = TALLY_SIGNATURE_BYTES * 2;

/** A Schnorr signature over the generator H: s·H = R + e·E. */
export interface TallySignature {
  R: EcPoint;
  s: bigint;
}

export function isTallyMessage(msg: unknown): msg is string {
  return typeof msg === "string" && msg.length === TALLY_MESSAGE_LENGTH;
}

/** How many commitments one side of a tally may have. */
export function isTallyCount(count: number): boolean {
  return Number.isInteger(count) && count >= 1 && count <= MAX_TALLY_COMMITMENTS;
}

/**
 * E = Σ inputs − Σ outputs. When the values balance, E = (Σr_in − Σr_out)·H: a public key on H whose secret
 * only the owner of the blindings knows. Were the values unbalanced, E would have a G component and no one
 * could sign for it (that would need log_H G).
 */
export function tallyExcess(inputs: readonly EcPoint[], outputs: readonly EcPoint[]): EcPoint {
  let excess = inputs.reduce((sum, c) => sum.add(c), EcPoint.ZERO);
  for (const c of outputs) excess = excess.subtract(c);
  return excess;
}

/** e = sha256 transcript over (R, E, msg as UTF-8) under TALLY_DOMAIN, mod n. */
export function tallyChallenge(R: EcPoint, excess: EcPoint, msg: string): bigint {
  const transcript = new Transcript(TALLY_DOMAIN);
  transcript.appendPoint("R", R);
  transcript.appendPoint("E", excess);
  transcript.appendBytes("msg", utf8(msg));
  return transcript.challenge("e");
}

/** 130 lowercase hex characters: R ‖ s. */
export function encodeTallySignature(signature: TallySignature): string {
  return toHex(concatBytes(encodePoint(signature.R), encodeScalar(signature.s)));
}

/** Strict inverse of encodeTallySignature; ChainError(2) when malformed. */
export function decodeTallySignature(hex: unknown): TallySignature {
  const bytes = decodeCanonicalHex(hex, TALLY_SIGNATURE_BYTES, "excess signature");
  return {
    R: decodePoint(bytes.subarray(0, POINT_BYTES), "excess signature R"),
    s: decodeScalar(bytes.subarray(POINT_BYTES), "excess signature s"),
  };
}

function decodeCommitmentList(list: unknown): EcPoint[] | undefined {
  if (!Array.isArray(list) || !isTallyCount(list.length)) return undefined;
  const points: EcPoint[] = [];
  for (let i = 0; i < list.length; i++) points.push(decodeCommitment(list[i]));
  return points;
}

/**
 * Utils.pedersenTallyVerify: true iff Σinputs − Σoutputs = E and `excessSig` is a Schnorr signature by E
 * (on H) over `excessMsg`, i.e. the outputs commit to the same total as the inputs and the signer knows the
 * blinding difference. False for 0 or more than 100 commitments on either side, a message that is not 32
 * characters, E = identity (a key anyone could sign for), or anything malformed. Never throws.
 */
export function verifyPedersenTally(inputs: string[], outputs: string[], excessMsg: string, excessSig: string): boolean {
  try {
    const ins = decodeCommitmentList(inputs);
    const outs = decodeCommitmentList(outputs);
    if (!ins || !outs || !isTallyMessage(excessMsg)) return false;
    const excess = tallyExcess(ins, outs);
    if (excess.is0()) return false;
    const { R, s } = decodeTallySignature(excessSig);
    const e = tallyChallenge(R, excess, excessMsg);
    return multiScalarMul([PEDERSEN_H, excess, R], [s, -e, -1n]).is0();
  } catch {
    return false;
  }
}
