import { concatBytes, toHex } from "../bytes.js";
import { type EcPoint, POINT_BYTES, SCALAR_BYTES, decodeCanonicalHex, decodePoint, decodeScalar, encodePoint, encodeScalar } from "./curve.js";

/** Range proofs show 0 ≤ v < 2^64. */
export const RANGE_PROOF_BITS = 64;
/** log2(64) halvings of the inner-product argument, each sending one (L, R) pair. */
export const RANGE_PROOF_ROUNDS = 6;
/** 4 points + 3 scalars + 6 × 2 points + 2 scalars. */
export const RANGE_PROOF_BYTES = 4 * POINT_BYTES + 3 * SCALAR_BYTES + 2 * RANGE_PROOF_ROUNDS * POINT_BYTES + 2 * SCALAR_BYTES;
export const RANGE_PROOF_HEX_LENGTH = RANGE_PROOF_BYTES * 2;

/** A Bulletproofs range proof (Bünz et al. 2018, §4.2 with the inner-product argument of §3). */
export interface RangeProof {
  /** Commitment to the bits a_L and a_R = a_L − 1. */
  A: EcPoint;
  /** Commitment to the blinding vectors s_L, s_R. */
  S: EcPoint;
  /** Commitments to the coefficients t1, t2 of t(X). */
  T1: EcPoint;
  T2: EcPoint;
  /** Blinding of t(x): τ_x = τ2·x² + τ1·x + z²·γ. */
  taux: bigint;
  /** Blinding of A + x·S: μ = α + ρ·x. */
  mu: bigint;
  /** t̂ = ⟨l, r⟩ = t(x). */
  t: bigint;
  /** The inner-product rounds, first round first (6 each). */
  L: EcPoint[];
  R: EcPoint[];
  /** The final one-element vectors of the inner-product argument. */
  a: bigint;
  b: bigint;
}

/**
 * A ‖ S ‖ T1 ‖ T2 ‖ τ_x ‖ μ ‖ t̂ ‖ L_1 ‖ R_1 ‖ … ‖ L_6 ‖ R_6 ‖ a ‖ b: points 33-byte compressed, scalars
 * 32-byte big-endian; 688 bytes, as 1376 lowercase hex characters.
 */
export function encodeRangeProof(proof: RangeProof): string {
  if (proof.L.length !== RANGE_PROOF_ROUNDS || proof.R.length !== RANGE_PROOF_ROUNDS) {
    throw new RangeError(`a range proof has ${RANGE_PROOF_ROUNDS} L and R points`);
  }
  return toHex(
    concatBytes(
      ...[proof.A, proof.S, proof.T1, proof.T2].map(encodePoint),
      ...[proof.taux, proof.mu, proof.t].map(encodeScalar),
      ...proof.L.flatMap((L, i) => [encodePoint(L), encodePoint(proof.R[i])]),
      encodeScalar(proof.a),
      encodeScalar(proof.b),
    ),
  );
}

/** Strict inverse of encodeRangeProof; ChainError(2) on a wrong length, bad hex, a non-point or a scalar ≥ n. */
export function decodeRangeProof(hex: unknown): RangeProof {
  const bytes = decodeCanonicalHex(hex, RANGE_PROOF_BYTES, "range proof");
  let offset = 0;
  const take = (length: number) => bytes.subarray(offset, (offset += length));
  const point = (what: string) => decodePoint(take(POINT_BYTES), `range proof ${what}`);
  const scalar = (what: string) => decodeScalar(take(SCALAR_BYTES), `range proof ${what}`);

  const A = point("A");
  const S = point("S");
  const T1 = point("T1");
  const T2 = point("T2");
  const taux = scalar("taux");
  const mu = scalar("mu");
  const t = scalar("t");
  const L: EcPoint[] = [];
  const R: EcPoint[] = [];
  for (let round = 0; round < RANGE_PROOF_ROUNDS; round++) {
    L.push(point(`L${round + 1}`));
    R.push(point(`R${round + 1}`));
  }
  const a = scalar("a");
  const b = scalar("b");
  return { A, S, T1, T2, taux, mu, t, L, R, a, b };
}
