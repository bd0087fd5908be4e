import { modOrder } from "./curve.js";
import { RANGE_PROOF_BITS } from "./range-proof-encoding.js";

/** (1, base, base², …) mod n, `count` entries. */
export function scalarPowers(base: bigint, count: number): bigint[] {
  const out: bigint[] = [];
  let p = 1n;
  for (let i = 0; i < count; i++) {
    out.push(p);
    p = modOrder(p * base);
  }
  return out;
}

/** ⟨a, b⟩ mod n. */
export function innerProduct(a: readonly bigint[], b: readonly bigint[]): bigint {
  if (a.length !== b.length) throw new RangeError("inner product of vectors of different lengths");
  let sum = 0n;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return modOrder(sum);
}

/** δ(y, z) = (z − z²)·⟨1, yⁿ⟩ − z³·⟨1, 2ⁿ⟩: the part of t(x) that only depends on the challenges. */
export function rangeProofDelta(y: bigint, z: bigint): bigint {
  const sumY = scalarPowers(y, RANGE_PROOF_BITS).reduce((s, p) => s + p, 0n);
  const sumTwo = (1n << BigInt(RANGE_PROOF_BITS)) - 1n;
  const z2 = modOrder(z * z);
  return modOrder((z - z2) * sumY - z2 * z * sumTwo);
}

/**
 * The coefficient s_i of generator i after all inner-product rounds: the product over rounds j of u_j when
 * bit (rounds − j) of i is set (i was in the upper half that round), else u_j⁻¹. The final H coefficient is
 * its inverse. `challenges` and `inverses` are u_1…u_k and their inverses.
 */
export function foldedGeneratorCoefficients(challenges: readonly bigint[], inverses: readonly bigint[]): bigint[] {
  const rounds = challenges.length;
  const out: bigint[] = [];
  for (let i = 0; i < 1 << rounds; i++) {
    let s = 1n;
    for (let j = 0; j < rounds; j++) {
      const upper = (i >> (rounds - 1 - j)) & 1;
      s = modOrder(s * (upper ? challenges[j] : inverses[j]));
    }
    out.push(s);
  }
  return out;
}
