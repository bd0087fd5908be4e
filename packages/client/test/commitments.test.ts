import { expect } from "chai";
import {
  CURVE_ORDER,
  PEDERSEN_G,
  PEDERSEN_H,
  decodeCommitment,
  encodeCommitment,
  verifyPedersenTally,
  verifyRangeProof,
} from "@chainsim/protocol";
import { commit, proveRange, randomBlinding, signTally } from "../src/index.js";

// A pure-JS prover takes a few hundred ms per proof: the suite keeps to a handful of them.

const MSG = "0123456789abcdef0123456789abcdef";

describe("commit and randomBlinding", () => {
  it("commits v·G + r·H as 66 lowercase hex characters", () => {
    expect(commit(1n, 1n)).to.equal("0387d2fb1e322e6814b56361c4b0d75e835b0287830dbc918cf9572c264e62bc04");
    const r = randomBlinding();
    const c = commit(42n, r);
    expect(c).to.match(/^0[23][0-9a-f]{64}$/);
    expect(decodeCommitment(c).equals(PEDERSEN_G.multiply(42n).add(PEDERSEN_H.multiply(r)))).to.equal(true);
  });

  it("draws distinct blindings in [1, n)", () => {
    const blindings = Array.from({ length: 20 }, randomBlinding);
    expect(new Set(blindings).size).to.equal(20);
    for (const r of blindings) expect(r > 0n && r < CURVE_ORDER).to.equal(true);
  });

  it("refuses values and blindings outside [0, n)", () => {
    expect(() => commit(-1n, 1n)).to.throw(RangeError);
    expect(() => commit(1n, CURVE_ORDER)).to.throw(RangeError);
    expect(() => commit(0n, 0n)).to.throw(RangeError);
    expect(() => commit(1 as unknown as bigint, 1n)).to.throw(RangeError);
  });
});

describe("proveRange", () => {
  const random64 = () => BigInt.asUintN(64, randomBlinding());
  for (const [name, value] of [
    ["0", 0n],
    ["1", 1n],
    ["2^64 − 1", 2n ** 64n - 1n],
    ["a random 64-bit value", random64()],
  ] as const) {
    it(`proves ${name}, and only for its own commitment`, () => {
      const r = randomBlinding();
      const proof = proveRange(value, r);
      expect(proof).to.match(/^[0-9a-f]{1376}$/);
      expect(verifyRangeProof(commit(value, r), proof)).to.equal(true);
      expect(verifyRangeProof(commit(value, (r + 1n) % CURVE_ORDER), proof)).to.equal(false);
      expect(verifyRangeProof(commit(value === 0n ? 1n : value - 1n, r), proof)).to.equal(false);
    });
  }

  it("randomizes proofs: two proofs of one commitment differ and both verify", () => {
    const r = randomBlinding();
    const [a, b] = [proveRange(7n, r), proveRange(7n, r)];
    expect(a).to.not.equal(b);
    expect(verifyRangeProof(commit(7n, r), b)).to.equal(true);
  });

  it("refuses values outside [0, 2^64) and bad blindings", () => {
    expect(() => proveRange(-1n, 1n)).to.throw(RangeError);
    expect(() => proveRange(2n ** 64n, 1n)).to.throw(RangeError);
    expect(() => proveRange(5 as unknown as bigint, 1n)).to.throw(RangeError);
    expect(() => proveRange(5n, CURVE_ORDER)).to.throw(RangeError);
  });
});

describe("signTally", () => {
  const rIn = [randomBlinding(), randomBlinding()];
  const rOut = [randomBlinding(), randomBlinding()];
  const inputs = [commit(30n, rIn[0]), commit(12n, rIn[1])];
  const outputs = [commit(40n, rOut[0]), commit(2n, rOut[1])];

  it("signs a tally that verifies when the values balance", () => {
    const sig = signTally(rIn, rOut, MSG);
    expect(sig).to.match(/^0[23][0-9a-f]{128}$/);
    expect(verifyPedersenTally(inputs, outputs, MSG, sig)).to.equal(true);
  });

  it("cannot make unbalanced values, another message or other blindings verify", () => {
    const sig = signTally(rIn, rOut, MSG);
    expect(verifyPedersenTally(inputs, [commit(41n, rOut[0]), outputs[1]], MSG, sig)).to.equal(false);
    expect(verifyPedersenTally(inputs, [commit(41n, rOut[0]), outputs[1]], MSG, signTally(rIn, rOut, MSG))).to.equal(false);
    expect(verifyPedersenTally(inputs, outputs, MSG.toUpperCase(), sig)).to.equal(false);
    expect(verifyPedersenTally(inputs, outputs, MSG, signTally(rIn, [rOut[0], rOut[1] + 1n], MSG))).to.equal(false);
  });

  it("refuses more than 100 blindings a side, empty sides, a message that is not 32 characters and cancelling blindings", () => {
    const many = Array.from({ length: 101 }, (_, i) => BigInt(i + 1));
    expect(() => signTally(many, rOut, MSG)).to.throw(RangeError);
    expect(() => signTally(rIn, many, MSG)).to.throw(RangeError);
    expect(() => signTally([], rOut, MSG)).to.throw(RangeError);
    expect(() => signTally(rIn, rOut, MSG.slice(1))).to.throw(RangeError);
    expect(() => signTally([5n, 6n], [11n], MSG)).to.throw(RangeError);
    expect(() => signTally([CURVE_ORDER], [1n], MSG)).to.throw(RangeError);
  });

  it("supports a confidential transfer: range-proven outputs that balance the inputs", () => {
    // Alice spends 30 + 12 and pays Bob 40, keeping 2 as change.
    const bobBlinding = randomBlinding();
    const changeBlinding = randomBlinding();
    const transfer = {
      inputs,
      outputs: [commit(40n, bobBlinding), commit(2n, changeBlinding)],
      proofs: [proveRange(40n, bobBlinding), proveRange(2n, changeBlinding)],
      sig: signTally(rIn, [bobBlinding, changeBlinding], MSG),
    };
    expect(transfer.outputs.every((c, i) => verifyRangeProof(c, transfer.proofs[i]))).to.equal(true);
    expect(verifyPedersenTally(transfer.inputs, transfer.outputs, MSG, transfer.sig)).to.equal(true);
    expect(encodeCommitment(decodeCommitment(transfer.outputs[0]))).to.equal(transfer.outputs[0]);
  });
});
