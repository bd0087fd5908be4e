import { expect } from "chai";
import { secp256k1_hasher } from "@noble/curves/secp256k1.js";
import {
  CURVE_ORDER,
  EcPoint,
  GENERATOR_DST,
  PEDERSEN_G,
  PEDERSEN_H,
  PEDERSEN_H_LABEL,
  RANGE_PROOF_HEX_LENGTH,
  bulletproofGenerators,
  decodeCommitment,
  decodeRangeProof,
  decodeTallySignature,
  encodeCommitment,
  encodeRangeProof,
  encodeScalar,
  encodeTallySignature,
  multiplySecret,
  pedersenCommit,
  tallyChallenge,
  toHex,
  utf8,
  verifyPedersenTally,
  verifyRangeProof,
} from "../src/index.js";
import { RANGE_VECTORS, TALLY_VECTOR, repeatedByte } from "../src/testing/index.js";

/** Flips the lowest bit of byte `index` of a hex string. */
function flipByte(hex: string, index: number): string {
  const byte = (parseInt(hex.slice(2 * index, 2 * index + 2), 16) ^ 1).toString(16).padStart(2, "0");
  return hex.slice(0, 2 * index) + byte + hex.slice(2 * index + 2);
}

/** Replaces bytes [offset, offset + replacement/2) of a hex string. */
function overwrite(hex: string, offset: number, replacement: string): string {
  return hex.slice(0, 2 * offset) + replacement + hex.slice(2 * offset + replacement.length);
}

// A point encoding whose x has no y on the curve (x = 5: 5³ + 7 = 132 is not a square mod p).
const OFF_CURVE = "02" + "00".repeat(31) + "05";

describe("Pedersen commitments (docs/commitments.md)", () => {
  it("uses the base point as G and hash-to-curve of the documented label as H", () => {
    expect(PEDERSEN_G.equals(EcPoint.BASE)).to.equal(true);
    expect(PEDERSEN_H.equals(secp256k1_hasher.hashToCurve(utf8(PEDERSEN_H_LABEL), { DST: GENERATOR_DST }))).to.equal(true);
    expect(encodeCommitment(PEDERSEN_H)).to.equal("026cf995b9afe6cc41ae21aca5e9591e6711242aa0a267d917d0fb65d63a13aff9");
    const { G, H, U } = bulletproofGenerators();
    const all = [PEDERSEN_G, PEDERSEN_H, U, ...G, ...H].map(encodeCommitment);
    expect(new Set(all).size).to.equal(131);
  });

  it("commits v·G + r·H as 66 lowercase hex characters", () => {
    const c = encodeCommitment(pedersenCommit(1n, 1n));
    expect(c).to.equal("0387d2fb1e322e6814b56361c4b0d75e835b0287830dbc918cf9572c264e62bc04");
    expect(c).to.equal(encodeCommitment(PEDERSEN_G.add(PEDERSEN_H)));
    for (const v of RANGE_VECTORS) expect(encodeCommitment(pedersenCommit(v.value, v.blinding))).to.equal(v.commitment);
  });

  it("refuses scalars outside [0, n) and the identity (v = r = 0)", () => {
    expect(() => pedersenCommit(-1n, 1n)).to.throw(RangeError);
    expect(() => pedersenCommit(1n, CURVE_ORDER)).to.throw(RangeError);
    expect(() => pedersenCommit(0n, 0n)).to.throw(RangeError);
    expect(encodeCommitment(pedersenCommit(0n, 1n))).to.equal(encodeCommitment(PEDERSEN_H));
  });

  it("decodes only canonical commitments", () => {
    const good = RANGE_VECTORS[0].commitment;
    expect(encodeCommitment(decodeCommitment(good))).to.equal(good);
    const uncompressed = toHex(decodeCommitment(good).toBytes(false));
    for (const bad of [good.toUpperCase(), good.slice(0, 64), good + "00", "04" + good.slice(2), OFF_CURVE, uncompressed, "zz" + good.slice(2), 7]) {
      expect(() => decodeCommitment(bad), String(bad)).to.throw();
    }
  });
});

describe("verifyRangeProof (Utils.bpRangeProofVerify)", () => {
  for (const v of RANGE_VECTORS) {
    it(`accepts the proof for ${v.value}`, () => {
      expect(v.proof).to.have.length(RANGE_PROOF_HEX_LENGTH);
      expect(verifyRangeProof(v.commitment, v.proof)).to.equal(true);
    });
  }

  it("rejects a proof against another commitment", () => {
    const [a, b] = RANGE_VECTORS;
    expect(verifyRangeProof(b.commitment, a.proof)).to.equal(false);
    expect(verifyRangeProof(encodeCommitment(pedersenCommit(a.value + 1n, a.blinding)), a.proof)).to.equal(false);
    expect(verifyRangeProof(encodeCommitment(pedersenCommit(a.value, a.blinding + 1n)), a.proof)).to.equal(false);
  });

  it("rejects a proof with any one of a sample of bytes changed", () => {
    const { commitment, proof } = RANGE_VECTORS[3];
    // The first and last byte of every field (A, S, T1, T2, τx, μ, t̂, L1, R1, L6, R6, a, b) and a few inside.
    const positions = [0, 32, 33, 65, 66, 99, 131, 132, 163, 164, 195, 196, 227, 228, 240, 261, 293, 560, 590, 623, 624, 655, 656, 687];
    for (const position of positions) {
      expect(verifyRangeProof(commitment, flipByte(proof, position)), `byte ${position}`).to.equal(false);
    }
  });

  it("rejects truncated, extended, uppercase and garbage input without throwing", () => {
    const { commitment, proof } = RANGE_VECTORS[1];
    const cases: [unknown, unknown][] = [
      [commitment, proof.slice(0, -2)],
      [commitment, proof.slice(0, -1)],
      [commitment, proof + "00"],
      [commitment, proof + proof],
      [commitment, ""],
      [commitment, proof.toUpperCase()],
      [commitment.toUpperCase(), proof],
      [commitment, "zz" + proof.slice(2)],
      [commitment, "0x" + proof.slice(2)],
      [commitment, "g".repeat(RANGE_PROOF_HEX_LENGTH)],
      [commitment.slice(2), proof],
      [OFF_CURVE, proof],
      ["", ""],
      [undefined, proof],
      [commitment, null],
      [commitment, 12],
      [{}, []],
    ];
    for (const [c, p] of cases) expect(verifyRangeProof(c as string, p as string), `${String(c).slice(0, 8)} / ${String(p).slice(0, 8)}`).to.equal(false);
  });

  it("rejects scalars ≥ n and points off the curve instead of reducing or repairing them", () => {
    const { commitment, proof } = RANGE_VECTORS[2];
    const decoded = decodeRangeProof(proof);
    expect(encodeRangeProof(decoded)).to.equal(proof);
    // A scalar ≥ n could stand for a smaller one mod n: accepting it would make proofs malleable.
    const n = CURVE_ORDER.toString(16);
    expect(() => decodeRangeProof(overwrite(proof, 132, n))).to.throw("taux");
    expect(verifyRangeProof(commitment, overwrite(proof, 132, n))).to.equal(false);
    expect(verifyRangeProof(commitment, overwrite(proof, 196, "ff".repeat(32)))).to.equal(false);
    expect(verifyRangeProof(commitment, overwrite(proof, 656, n))).to.equal(false);
    expect(verifyRangeProof(commitment, overwrite(proof, 0, OFF_CURVE))).to.equal(false);
    expect(verifyRangeProof(commitment, overwrite(proof, 228, "04" + proof.slice(2 * 229, 2 * 261)))).to.equal(false);
  });
});

/** A test-only excess signature for commitments built here (the real prover is the client's signTally). */
function signExcess(secret: bigint, msg: string): string {
  const nonce = 0x1234567n;
  const R = multiplySecret(PEDERSEN_H, nonce);
  const e = tallyChallenge(R, multiplySecret(PEDERSEN_H, secret), msg);
  return encodeTallySignature({ R, s: (nonce + e * secret) % CURVE_ORDER });
}

describe("verifyPedersenTally (Utils.pedersenTallyVerify)", () => {
  const { inputs, outputs, msg, sig } = TALLY_VECTOR;

  it("accepts balanced commitments with the excess signature", () => {
    expect(verifyPedersenTally(inputs, outputs, msg, sig)).to.equal(true);
    // The order of commitments within a side does not matter.
    expect(verifyPedersenTally([...inputs].reverse(), [...outputs].reverse(), msg, sig)).to.equal(true);
  });

  it("rejects unequal sums", () => {
    const more = encodeCommitment(pedersenCommit(3n, repeatedByte("08")));
    expect(verifyPedersenTally(inputs, [outputs[0], more], msg, sig)).to.equal(false);
    expect(verifyPedersenTally(inputs, outputs.slice(0, 1), msg, sig)).to.equal(false);
    expect(verifyPedersenTally(outputs, inputs, msg, sig)).to.equal(false);
  });

  it("rejects another message and messages that are not 32 characters", () => {
    expect(verifyPedersenTally(inputs, outputs, msg.replace("b", "c"), sig)).to.equal(false);
    expect(verifyPedersenTally(inputs, outputs, msg.slice(1), sig)).to.equal(false);
    expect(verifyPedersenTally(inputs, outputs, msg + "0", sig)).to.equal(false);
  });

  it("rejects a wrong or malformed signature", () => {
    for (const position of [0, 1, 20, 32, 33, 50, 64]) {
      expect(verifyPedersenTally(inputs, outputs, msg, flipByte(sig, position)), `byte ${position}`).to.equal(false);
    }
    expect(verifyPedersenTally(inputs, outputs, msg, signExcess(repeatedByte("01"), msg))).to.equal(false);
    expect(verifyPedersenTally(inputs, outputs, msg, overwrite(sig, 33, CURVE_ORDER.toString(16)))).to.equal(false);
    for (const bad of [sig.slice(0, -2), sig + "00", sig.toUpperCase(), "", OFF_CURVE + sig.slice(66)]) {
      expect(verifyPedersenTally(inputs, outputs, msg, bad)).to.equal(false);
    }
  });

  it("accepts 100 commitments a side and rejects 101", () => {
    // Commitments to 5 with blindings first, first + 1, …: consecutive ones differ by H.
    const side = (count: number, first: bigint) => {
      const list = [pedersenCommit(5n, first)];
      while (list.length < count) list.push(list[list.length - 1].add(PEDERSEN_H));
      return list.map(encodeCommitment);
    };
    const blindingSum = (count: number, first: bigint) => BigInt(count) * first + BigInt((count * (count - 1)) / 2);
    const m = "0123456789abcdef0123456789abcdef";
    const ok = signExcess(blindingSum(100, 1n) - blindingSum(100, 1000n), m);
    expect(verifyPedersenTally(side(100, 1n), side(100, 1000n), m, ok)).to.equal(true);
    const tooMany = signExcess(blindingSum(101, 1n) - blindingSum(101, 1000n), m);
    expect(verifyPedersenTally(side(101, 1n), side(101, 1000n), m, tooMany)).to.equal(false);
    const oneOutput = [encodeCommitment(pedersenCommit(505n, 1000n))];
    expect(verifyPedersenTally(side(101, 1n), oneOutput, m, signExcess(blindingSum(101, 1n) - 1000n, m))).to.equal(false);
    expect(verifyPedersenTally(oneOutput, side(101, 1n), m, signExcess(1000n - blindingSum(101, 1n), m))).to.equal(false);
  });

  it("rejects empty sides, an identity excess and malformed lists without throwing", () => {
    const c = inputs[0];
    expect(verifyPedersenTally([], outputs, msg, sig)).to.equal(false);
    expect(verifyPedersenTally(inputs, [], msg, sig)).to.equal(false);
    // Σin = Σout as points: E is the identity, a key anyone could sign for.
    expect(verifyPedersenTally([c], [c], msg, encodeTallySignature({ R: PEDERSEN_H, s: 1n }))).to.equal(false);
    const cases: unknown[][] = [
      [c, outputs, msg, sig],
      [inputs, [outputs[0], 5], msg, sig],
      [inputs, [outputs[0], outputs[1].toUpperCase()], msg, sig],
      [inputs, [outputs[0], OFF_CURVE], msg, sig],
      [inputs, outputs, 12345, sig],
      [inputs, outputs, msg, undefined],
      [null, null, null, null],
    ];
    for (const [i, o, m, s] of cases) {
      expect(verifyPedersenTally(i as string[], o as string[], m as string, s as string)).to.equal(false);
    }
  });

  it("uses the documented signature encoding: R (33 bytes) ‖ s (32 bytes)", () => {
    expect(sig).to.have.length(130);
    const decoded = decodeTallySignature(sig);
    expect(encodeCommitment(decoded.R)).to.equal(sig.slice(0, 66));
    expect(toHex(encodeScalar(decoded.s))).to.equal(sig.slice(66));
    expect(encodeTallySignature(decoded)).to.equal(sig);
  });
});
