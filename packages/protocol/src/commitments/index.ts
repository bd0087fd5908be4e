// Pedersen commitments, Bulletproofs range proofs and excess-signed tallies on secp256k1 (docs/commitments.md).
// The verifiers back Utils.bpRangeProofVerify / Utils.pedersenTallyVerify; the rest is shared with the
// client's prover so that both sides use one transcript and one encoding.
export * from "./curve.js";
export * from "./generators.js";
export * from "./pedersen.js";
export * from "./range-proof-encoding.js";
export * from "./range-proof-math.js";
export * from "./range-proof-transcript.js";
export * from "./range-proof-verify.js";
export * from "./tally.js";
export * from "./transcript.js";
