import { type EcPoint, invertScalar, modOrder, multiScalarMul } from "./curve.js";
import { PEDERSEN_G, PEDERSEN_H, generatorMsm } from "./generators.js";
import { decodeCommitment } from "./pedersen.js";
import { RANGE_PROOF_BITS, type RangeProof, decodeRangeProof } from "./range-proof-encoding.js";
import { foldedGeneratorCoefficients, rangeProofDelta, scalarPowers } from "./range-proof-math.js";
import { RangeProofTranscript } from "./range-proof-transcript.js";

/**
 * Utils.bpRangeProofVerify: true iff `proofHex` proves that the commitment `commitHex` (66 lowercase hex
 * characters) opens to a value in [0, 2^64). Never throws: anything malformed (types, lengths, hex, points
 * off the curve, scalars ≥ n) is false.
 */
export function verifyRangeProof(commitHex: string, proofHex: string): boolean {
  try {
    return checkRangeProof(decodeCommitment(commitHex), decodeRangeProof(proofHex));
  } catch {
    return false;
  }
}

/**
 * The two verification equations of Bünz et al. 2018, each one multi-scalar multiplication that must be the
 * identity. With y⁻ⁱ for y^(−i), 2ⁱ the powers of two, s_i the folded-generator coefficients:
 *
 * 1. t̂ = t(x):  (t̂ − δ(y,z))·G + τ_x·H − z²·V − x·T1 − x²·T2 = O
 * 2. inner product (the §3.1 single multi-exponentiation form, with H'_i = y⁻ⁱ·H_i and u = w·U):
 *    Σ (a·s_i + z)·G_i + Σ (y⁻ⁱ·(b·s_i⁻¹ − z²·2ⁱ) − z)·H_i + μ·H + (a·b − t̂)·w·U
 *      − A − x·S − Σ_j (u_j²·L_j + u_j⁻²·R_j) = O
 */
export function checkRangeProof(V: EcPoint, proof: RangeProof): boolean {
  const transcript = new RangeProofTranscript(V);
  const { y, z } = transcript.bitCommitments(proof.A, proof.S);
  const x = transcript.polynomialCommitments(proof.T1, proof.T2);
  const w = transcript.opening(proof.taux, proof.mu, proof.t);
  const u = proof.L.map((L, j) => transcript.innerProductRound(L, proof.R[j]));
  const uInv = u.map(invertScalar);

  const z2 = modOrder(z * z);
  const x2 = modOrder(x * x);
  const polynomialCheck = multiScalarMul(
    [PEDERSEN_G, PEDERSEN_H, V, proof.T1, proof.T2],
    [proof.t - rangeProofDelta(y, z), proof.taux, -z2, -x, -x2],
  );
  if (!polynomialCheck.is0()) return false;

  const s = foldedGeneratorCoefficients(u, uInv);
  const sInv = foldedGeneratorCoefficients(uInv, u);
  const yInv = scalarPowers(invertScalar(y), RANGE_PROOF_BITS);
  const two = scalarPowers(2n, RANGE_PROOF_BITS);
  const fixed = generatorMsm({
    g: s.map((si) => proof.a * si + z),
    h: sInv.map((si, i) => yInv[i] * modOrder(proof.b * si - z2 * two[i]) - z),
    H: proof.mu,
    U: modOrder(proof.a * proof.b - proof.t) * w,
  });
  const variable = multiScalarMul(
    [proof.A, proof.S, ...proof.L, ...proof.R],
    [-1n, -x, ...u.map((uj) => -uj * uj), ...uInv.map((uj) => -uj * uj)],
  );
  return fixed.add(variable).is0();
}
