import {
  CURVE_ORDER,
  PEDERSEN_H,
  RANGE_PROOF_BITS,
  RangeProofTranscript,
  encodeCommitment,
  encodeRangeProof,
  encodeTallySignature,
  generatorMsm,
  innerProduct,
  invertScalar,
  isTallyCount,
  isTallyMessage,
  modOrder,
  multiplySecret,
  pedersenCommit,
  randomScalar,
  scalarPowers,
  tallyChallenge,
  type EcPoint,
} from "@chainsim/protocol";

// The provers of docs/commitments.md. Generators, transcript order and encodings come from
// @chainsim/protocol, whose verifiers (Utils.bpRangeProofVerify, Utils.pedersenTallyVerify) check them.
// Secrets pass through non-constant-time multi-scalar multiplication (A, S, L, R): prove on a machine
// whose timing an attacker cannot measure.

const MAX_VALUE = 1n << BigInt(RANGE_PROOF_BITS);

function checkScalar(k: unknown, what: string): bigint {
  if (typeof k !== "bigint" || k < 0n || k >= CURVE_ORDER) throw new RangeError(`${what} should be a bigint in [0, n)`);
  return k;
}

/** The Pedersen commitment v·G + r·H as 66 lowercase hex characters. v and r are in [0, n), not both 0. */
export function commit(value: bigint, blinding: bigint): string {
  return encodeCommitment(pedersenCommit(checkScalar(value, "value"), checkScalar(blinding, "blinding")));
}

/** A uniform blinding factor in [1, n) (crypto.getRandomValues). */
export function randomBlinding(): bigint {
  return randomScalar();
}

/**
 * A Bulletproofs range proof (1376 hex characters) that commit(value, blinding) holds a value in [0, 2^64).
 * Takes a few hundred milliseconds in pure JS.
 */
export function proveRange(value: bigint, blinding: bigint): string {
  if (typeof value !== "bigint" || value < 0n || value >= MAX_VALUE) {
    throw new RangeError(`proveRange: value should be a bigint in [0, 2^${RANGE_PROOF_BITS})`);
  }
  checkScalar(blinding, "blinding");
  const n = RANGE_PROOF_BITS;
  const transcript = new RangeProofTranscript(pedersenCommit(value, blinding));

  // a_L: the bits of v, so ⟨a_L, 2ⁿ⟩ = v; a_R = a_L − 1ⁿ, so a_L ∘ a_R = 0. A commits to both, S to blinding vectors.
  const aL = Array.from({ length: n }, (_, i) => (value >> BigInt(i)) & 1n);
  const aR = aL.map((bit) => bit - 1n);
  const sL = Array.from({ length: n }, randomScalar);
  const sR = Array.from({ length: n }, randomScalar);
  const alpha = randomScalar();
  const rho = randomScalar();
  const A = generatorMsm({ g: aL, h: aR, H: alpha });
  const S = generatorMsm({ g: sL, h: sR, H: rho });
  const { y, z } = transcript.bitCommitments(A, S);

  // l(X) = (a_L − z·1ⁿ) + s_L·X and r(X) = yⁿ ∘ (a_R + z·1ⁿ + s_R·X) + z²·2ⁿ; t(X) = ⟨l(X), r(X)⟩ = t0 + t1·X + t2·X².
  const yPowers = scalarPowers(y, n);
  const twoPowers = scalarPowers(2n, n);
  const z2 = modOrder(z * z);
  const l0 = aL.map((bit) => modOrder(bit - z));
  const r0 = aR.map((bit, i) => modOrder(yPowers[i] * (bit + z) + z2 * twoPowers[i]));
  const r1 = sR.map((s, i) => modOrder(yPowers[i] * s));
  const t1 = modOrder(innerProduct(l0, r1) + innerProduct(sL, r0));
  const t2 = innerProduct(sL, r1);
  const tau1 = randomScalar();
  const tau2 = randomScalar();
  const T1 = pedersenCommit(t1, tau1);
  const T2 = pedersenCommit(t2, tau2);
  const x = transcript.polynomialCommitments(T1, T2);

  const l = l0.map((v, i) => modOrder(v + sL[i] * x));
  const r = r0.map((v, i) => modOrder(v + r1[i] * x));
  const t = innerProduct(l, r);
  const taux = modOrder(tau2 * x * x + tau1 * x + z2 * blinding);
  const mu = modOrder(alpha + rho * x);
  const w = transcript.opening(taux, mu, t);

  const yInverse = scalarPowers(invertScalar(y), n);
  return encodeRangeProof({ A, S, T1, T2, taux, mu, t, ...proveInnerProduct(transcript, l, r, yInverse, w) });
}

/**
 * Protocol 2 of the paper on generators G_i, H'_i = y⁻ⁱ·H_i and u = w·U, proving ⟨l, G⟩ + ⟨r, H'⟩ + ⟨l, r⟩·u.
 * Instead of folding the generator points every round (two scalar multiplications per point), it keeps
 * each original generator's folded coefficient, so every L and R is one fixed-base MSM: the current
 * generator i of a round with m generators is Σ coefficient_k·G_k over the k with k mod m = i.
 */
function proveInnerProduct(
  transcript: RangeProofTranscript,
  l: bigint[],
  r: bigint[],
  yInverse: bigint[],
  w: bigint,
): { L: EcPoint[]; R: EcPoint[]; a: bigint; b: bigint } {
  const n = l.length;
  const gCoefficient = new Array<bigint>(n).fill(1n);
  const hCoefficient = [...yInverse];
  let a = l;
  let b = r;
  const L: EcPoint[] = [];
  const R: EcPoint[] = [];
  for (let m = n; m > 1; m /= 2) {
    const half = m / 2;
    const cL = innerProduct(a.slice(0, half), b.slice(half));
    const cR = innerProduct(a.slice(half), b.slice(0, half));
    // L = ⟨a_lo, G_hi⟩ + ⟨b_hi, H_lo⟩ + c_L·u ;  R = ⟨a_hi, G_lo⟩ + ⟨b_lo, H_hi⟩ + c_R·u
    const gL = new Array<bigint>(n).fill(0n);
    const hL = new Array<bigint>(n).fill(0n);
    const gR = new Array<bigint>(n).fill(0n);
    const hR = new Array<bigint>(n).fill(0n);
    for (let k = 0; k < n; k++) {
      const i = k % m;
      if (i < half) {
        gR[k] = a[i + half] * gCoefficient[k];
        hL[k] = b[i + half] * hCoefficient[k];
      } else {
        gL[k] = a[i - half] * gCoefficient[k];
        hR[k] = b[i - half] * hCoefficient[k];
      }
    }
    const Lj = generatorMsm({ g: gL, h: hL, U: cL * w });
    const Rj = generatorMsm({ g: gR, h: hR, U: cR * w });
    L.push(Lj);
    R.push(Rj);
    const u = transcript.innerProductRound(Lj, Rj);
    const uInv = invertScalar(u);
    // a' = u·a_lo + u⁻¹·a_hi, b' = u⁻¹·b_lo + u·b_hi; G' = u⁻¹·G_lo + u·G_hi, H' = u·H_lo + u⁻¹·H_hi.
    a = a.slice(0, half).map((v, i) => modOrder(v * u + a[i + half] * uInv));
    b = b.slice(0, half).map((v, i) => modOrder(v * uInv + b[i + half] * u));
    for (let k = 0; k < n; k++) {
      const lower = k % m < half;
      gCoefficient[k] = modOrder(gCoefficient[k] * (lower ? uInv : u));
      hCoefficient[k] = modOrder(hCoefficient[k] * (lower ? u : uInv));
    }
  }
  return { L, R, a: a[0], b: b[0] };
}

/**
 * The excess signature of a tally (130 hex characters): a Schnorr signature on H by the key
 * E = (Σr_in − Σr_out)·H over `msg` (exactly 32 characters). With it, Utils.pedersenTallyVerify accepts
 * the input and output commitments iff their values balance. 1 to 100 blindings per side; throws
 * RangeError when the blindings cancel (E would be the identity, which the verifier refuses).
 */
export function signTally(inputBlindings: bigint[], outputBlindings: bigint[], msg: string): string {
  if (!isTallyCount(inputBlindings.length) || !isTallyCount(outputBlindings.length)) {
    throw new RangeError("signTally: 1 to 100 input and output blindings");
  }
  if (!isTallyMessage(msg)) throw new RangeError("signTally: the message should be exactly 32 characters");
  const sum = (list: bigint[]) => list.reduce((s, k) => s + checkScalar(k, "blinding"), 0n);
  const secret = modOrder(sum(inputBlindings) - sum(outputBlindings));
  if (secret === 0n) throw new RangeError("signTally: the blindings cancel out, so the excess has no key; choose other blindings");
  const excess = multiplySecret(PEDERSEN_H, secret);
  const nonce = randomScalar();
  const R = multiplySecret(PEDERSEN_H, nonce);
  const e = tallyChallenge(R, excess, msg);
  return encodeTallySignature({ R, s: modOrder(nonce + e * secret) });
}
