import { interleavedMSMUnsafe } from "@noble/curves/abstract/curve.js";
import { secp256k1_hasher } from "@noble/curves/secp256k1.js";
import { utf8 } from "../bytes.js";
import { EcPoint, modOrder } from "./curve.js";
import { RANGE_PROOF_BITS } from "./range-proof-encoding.js";

/**
 * Every generator other than G is hash-to-curve (RFC 9380, secp256k1_XMD:SHA-256_SSWU_RO_) of a public
 * label under this domain separation tag: nobody knows a discrete log between any two of them, and anyone
 * can recompute them. The labels below are part of the scheme; changing one changes every commitment.
 */
export const GENERATOR_DST = "chainsim/v1/secp256k1_XMD:SHA-256_SSWU_RO_";
export const PEDERSEN_H_LABEL = "chainsim/pedersen/H";
/** Followed by the decimal index 0…63. */
export const BULLETPROOF_G_LABEL = "chainsim/bulletproofs/G/";
/** Followed by the decimal index 0…63. */
export const BULLETPROOF_H_LABEL = "chainsim/bulletproofs/H/";
export const BULLETPROOF_U_LABEL = "chainsim/bulletproofs/U";

/** The nothing-up-my-sleeve point of a label. */
export function hashToGenerator(label: string): EcPoint {
  return secp256k1_hasher.hashToCurve(utf8(label), { DST: GENERATOR_DST });
}

/** G: the value generator, the secp256k1 base point. */
export const PEDERSEN_G: EcPoint = EcPoint.BASE;
/** H: the blinding generator, hash-to-curve of "chainsim/pedersen/H". */
export const PEDERSEN_H: EcPoint = hashToGenerator(PEDERSEN_H_LABEL);

/** The vector generators of the range proof and the inner-product point U. */
export interface BulletproofGenerators {
  readonly G: readonly EcPoint[];
  readonly H: readonly EcPoint[];
  readonly U: EcPoint;
}

/** Scalars for generatorMsm; an absent entry counts as 0. */
export interface GeneratorScalars {
  /** One per G_i (at most 64). */
  g?: readonly bigint[];
  /** One per H_i (at most 64). */
  h?: readonly bigint[];
  /** For the Pedersen G. */
  G?: bigint;
  /** For the Pedersen H. */
  H?: bigint;
  U?: bigint;
}

interface Tables extends BulletproofGenerators {
  msm(scalars: bigint[]): EcPoint;
}

let tables: Tables | undefined;

// 128 hash-to-curve calls and the wNAF tables cost ~100 ms: paid once, on the first range proof.
function load(): Tables {
  if (tables) return tables;
  const G = Array.from({ length: RANGE_PROOF_BITS }, (_, i) => hashToGenerator(BULLETPROOF_G_LABEL + i));
  const H = Array.from({ length: RANGE_PROOF_BITS }, (_, i) => hashToGenerator(BULLETPROOF_H_LABEL + i));
  const U = hashToGenerator(BULLETPROOF_U_LABEL);
  // Window 6 measured fastest for ~130 fixed points (wider windows cost more table than they save).
  const msm = interleavedMSMUnsafe(EcPoint, [...G, ...H, PEDERSEN_G, PEDERSEN_H, U], 6);
  tables = { G, H, U, msm };
  return tables;
}

export function bulletproofGenerators(): BulletproofGenerators {
  const { G, H, U } = load();
  return { G, H, U };
}

/**
 * Σ g_i·G_i + Σ h_i·H_i + G·PEDERSEN_G + H·PEDERSEN_H + U·U over precomputed tables: the fixed-base part of
 * every range-proof computation. Not constant-time (see docs/commitments.md).
 */
export function generatorMsm(scalars: GeneratorScalars): EcPoint {
  const { msm } = load();
  const n = RANGE_PROOF_BITS;
  const g = scalars.g ?? [];
  const h = scalars.h ?? [];
  if (g.length > n || h.length > n) throw new RangeError(`at most ${n} scalars per generator vector`);
  const all = new Array<bigint>(2 * n + 3).fill(0n);
  g.forEach((k, i) => (all[i] = modOrder(k)));
  h.forEach((k, i) => (all[n + i] = modOrder(k)));
  all[2 * n] = modOrder(scalars.G ?? 0n);
  all[2 * n + 1] = modOrder(scalars.H ?? 0n);
  all[2 * n + 2] = modOrder(scalars.U ?? 0n);
  return msm(all);
}
