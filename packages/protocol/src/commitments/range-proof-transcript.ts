import { type EcPoint } from "./curve.js";
import { Transcript } from "./transcript.js";

/** Domain of the range-proof transcript; it names the statement (one 64-bit value) and the version. */
export const RANGE_PROOF_DOMAIN = "chainsim/bulletproofs/v1/range64";

/**
 * The Fiat–Shamir order of a range proof, as methods both sides call in this order: V; A, S → y, z;
 * T1, T2 → x; τ_x, μ, t̂ → w; then per inner-product round L, R → u. Sharing it keeps prover and verifier
 * from drifting apart.
 */
export class RangeProofTranscript {
  readonly #transcript = new Transcript(RANGE_PROOF_DOMAIN);

  constructor(commitment: EcPoint) {
    this.#transcript.appendPoint("V", commitment);
  }

  /** After A and S: the challenges y and z. */
  bitCommitments(A: EcPoint, S: EcPoint): { y: bigint; z: bigint } {
    this.#transcript.appendPoint("A", A);
    this.#transcript.appendPoint("S", S);
    const y = this.#transcript.challenge("y");
    const z = this.#transcript.challenge("z");
    return { y, z };
  }

  /** After T1 and T2: the evaluation point x. */
  polynomialCommitments(T1: EcPoint, T2: EcPoint): bigint {
    this.#transcript.appendPoint("T1", T1);
    this.#transcript.appendPoint("T2", T2);
    return this.#transcript.challenge("x");
  }

  /** After τ_x, μ, t̂: w, which scales U into the inner-product point u = w·U (Protocol 1 of the paper). */
  opening(taux: bigint, mu: bigint, t: bigint): bigint {
    this.#transcript.appendScalar("taux", taux);
    this.#transcript.appendScalar("mu", mu);
    this.#transcript.appendScalar("t", t);
    return this.#transcript.challenge("w");
  }

  /** After one round's L and R: that round's folding challenge u_j. */
  innerProductRound(L: EcPoint, R: EcPoint): bigint {
    this.#transcript.appendPoint("L", L);
    this.#transcript.appendPoint("R", R);
    return this.#transcript.challenge("u");
  }
}
