import { toHex } from "../bytes.js";
import { CURVE_ORDER, type EcPoint, POINT_BYTES, decodeCanonicalHex, decodePoint, encodePoint, multiplySecret } from "./curve.js";
import { PEDERSEN_G, PEDERSEN_H } from "./generators.js";

/** Length of a commitment in hex: a 33-byte compressed point. */
export const COMMITMENT_HEX_LENGTH = POINT_BYTES * 2;

/**
 * C = v·G + r·H. Hiding (r uniform makes C uniform) and binding (opening C two ways would give log_G H).
 * `value` and `blinding` are scalars in [0, n); v = r = 0 has no encoding (the identity) and throws.
 * Constant-time in both secrets (noble's multiply), except for whether each is zero.
 */
export function pedersenCommit(value: bigint, blinding: bigint): EcPoint {
  if (value < 0n || value >= CURVE_ORDER) throw new RangeError("the committed value should be in [0, n)");
  if (blinding < 0n || blinding >= CURVE_ORDER) throw new RangeError("the blinding factor should be in [0, n)");
  const commitment = multiplySecret(PEDERSEN_G, value).add(multiplySecret(PEDERSEN_H, blinding));
  if (commitment.is0()) throw new RangeError("value 0 with blinding 0 commits to the identity, which has no encoding");
  return commitment;
}

/** 66 lowercase hex characters: the compressed point. */
export function encodeCommitment(commitment: EcPoint): string {
  return toHex(encodePoint(commitment));
}

/** The point of a commitment string; ChainError(2) unless it is 66 lowercase hex characters of a curve point. */
export function decodeCommitment(hex: unknown): EcPoint {
  return decodePoint(decodeCanonicalHex(hex, POINT_BYTES, "commitment"), "commitment");
}
