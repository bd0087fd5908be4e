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

const repeatedByte = (byte: string) => BigInt("0x" + byte.repeat(32));

// Produced once by the client prover (packages/client/src/commitments.ts) from the blindings shown; they pin
// the transcript and the encoding: a change to either makes these proofs fail.
const RANGE_VECTORS = [
  {
    value: 0n,
    blinding: repeatedByte("11"),
    commitment: "036e04331a372d9918d132c79f9a48481d4e576e490431af594b02181892c5fe10",
    proof:
      "038e79b8c48397f23510eb57dc58d5a21dcaf5ddb396806f5243d8f50c8381b0a1028ece74971b6747dff639b613fbc4" +
      "71a7c62649a0cfb3014cb213a8a593f29c8303fdbd49cebbf32537f778e5c91ad962062f9694fd68d7bca18b08a97b2b" +
      "5e81b0039054b35b90d19fba11723fba65c5124bbed165ce880ae6f23d4503aa69a830e9825a85fcbc0786b1a72a2b3b" +
      "19c15121e3f69c5a22ef34316f6b948b8738b649015a0733e10499e061f7d3da8a890877c0e07e53ef5d18dd6461649d" +
      "86f1fb563e540e99b1b4044f8ea343709fa664707c46d9bafabcf46fdb8ca8176c2df83d03594801e756f8e33d1a134b" +
      "f6adee2844b0433222887d68e3034b143c6d533f66037ae684caaa7bd6718189b7ac79c4baf4b4dad8aa29aaae49b9dc" +
      "bcf2925c55a703e5ec70583cc4a5d10d4bedb4abdc2d8174dd0074aa22d6528b0b2d9b1e553827032b5d6aed249be0e4" +
      "b1aab6e75b53269ada38d7f4ccc4eb00b81ac73ea984bcfa034bd4ecb5a7a70c76e4e684a7c4a8a4aaafff6f881839f4" +
      "0c6feb01cc0f5fd9d502f2650c9439bec674f0b1441d273ca2e149801447cf9d6451b2a944a897b149d603c68d605699" +
      "ef0d4a715aa1c02f2b1f44ba6ce7857aa5089f026c5ad248f5f4b1038ea12f417f58ea0b39dfc80a693a30675137c0cc" +
      "b5cd6e8926834a6addbf2c5903c5ee4ab8315b622a1ded67960f68f16d0546bfb07b3e8d9f0459f89d0a25f962022fa4" +
      "6ac00a850ecbb755ad554a3f874fcdbd66451618ce01f32e07adc1698a9203cf783a9ce6db092f0243b91932a810efe5" +
      "bc3aca378c2fd9a6c62360255f3cb403869df3116db69ac9e2f27c92450c152f377d0550a3bf8307ff492346b7105846" +
      "ae1739981f0c6e4e24a522d1572c0448b5be82bf407c2fb2843b1a3b6b73869a00739c1e7d11ee283dd649a0558f02c1" +
      "0ed9fd29198943cd62c9bd350386f976",
  },
  {
    value: 1n,
    blinding: repeatedByte("22"),
    commitment: "02fe71826f89c3e14ca09648cc894a397628cfc596f11c7b2c65f6f2592a06021b",
    proof:
      "02f39aed0c80763b8102e45f0d357fd45cb1e015ccb377ce427ae4a8b247a44e6103118b06c858cc1415f373b8e7dc21" +
      "7ff9d74dcce0577345a828c3737ec5fbf39002c9d881ee7333879c4728d5e6e1d622d8b1cc2462066d44badcefd0fe4b" +
      "800e3f02adb3d26d6bedbfccc24f7134780ef67fce78ee02bc3c8489d81bd953f794d93d1616a95dbbb41d9adef3fe52" +
      "a90f7f2532fcb25b936c4abc9cb635be12348b082f945608033216daf0c54c4192f9d2d4000e2eda61421ff66e9a18bc" +
      "e042418b427d6ebb00279fbebfdd111e71f7194b734c40281fa8c7ea5850ca110fcb89de0210e59ce7baea4a9d93d80a" +
      "d08200ed78e399c42b8f8ae99acfacb48167f9396a02f60877688b43b6758d644db9df231fe76537aa50c4803e52538b" +
      "b61bc944a011036143b5ffed9e939bd55c4536cacd89f50b65083f7e5a888d51b3d8345ee9e843024e330ebcb0c0d42e" +
      "74acd3f25310ebdf65baca2aff5f0ef7f134a30ed9dfc813034b0c7c2beae04757d11ee457dc29c9aab44e85b9deebea" +
      "dda3469a8a6fc9be2f0367dbb19b26ecc4b5386f72a38ecc04de0c5460439a3c1bfcbc46c4684fe9ee0d026032f99a6f" +
      "784534da3b275bc7c3824a9e6c51a7398212e1ab102c9b8f90243203e4ced556396fafd20937576ecec16186ce8f25a0" +
      "4da375bae1c98a2d02e2be6602fbc1333fed554ff6197c3e6be7af9bf536eac0065d2b4943bcd0a6fa5f8d83e803dabd" +
      "7a97b2fd2356f62b4fedc570256d35fdd1decb77adda75266874d934bffc02ef39a5f87186e0d9cbe29151212ba3395e" +
      "0ee576a166bd5190a27bcdef5d9f4f0225926020ef6dff717c2fed81e7778b15675c1c47cd65e184e3a0e19688dfdb91" +
      "e2b06414ab63b80c3ec62c0b4d4d4bb68476158c688cf8c173d7c4dc188bf56a1f657b96424524bcd5bb619d2bbfc3fd" +
      "3d06d30d9a13271627f1de7fec9b8045",
  },
  {
    value: 2n ** 64n - 1n,
    blinding: repeatedByte("33"),
    commitment: "022be8954c5f1e549f1ab37f16afc9db25342a4a8d0721d427254d5705225095fc",
    proof:
      "02f0df03f216e612fe944e6f981ef48b07e469dafea965226f489db99b68c7d72a038433df8f51febdcedc0a992a191f" +
      "23ad8954d2c3ca3a3380cd9c0acba31cdf5102ff7013845f6c09cb27253320483eb07c8599941c3ca5d91cf79f576430" +
      "e2a519026dcb510e6f87222ded38d07e82a13d3ec942c79179d004d78e1a923ffadc79d8a3c17f24987a5346d1fa5882" +
      "a883bd2f6296c6b0b68dd912e68aebcf39ba4d2d1d8141ac6372e318dc4b1cc5690a838cb955d8863949aa02528af1a7" +
      "48566373108fa9af9dba2711624c819d18eb86a45350cbaeffee7d6c503a94de8d29b03002e0837253f105f97a383915" +
      "4c9523b0200f9e2b999f73abc481614bd21ad43ce402846d81554277bbb593b02c54674fe46f7d5cd1f1cde0a1106d5c" +
      "fd3d4e0490b202595aae9d3ca7822f5914640e13fcf19ed215a90188b94d77204e271a29d974e4034c659dde386cdd44" +
      "5ce468f46bafe1b4b50a292248518f33fb2f8c5f529361cb02fca776e39bd7af29957555a8c0026348b54a42a2cd96a9" +
      "1a751aa05716a94b8103caeb0100504777b8bec05188b7d9621c30cea85fbb72952cc1c20a5554697a4903a03e239e41" +
      "c50b6ef0fcf16adaef4c9e5dd4af0a5d6aed8d9a549e56df2d47b402c93bbf2177cc5d831030c933142e2448d19985e9" +
      "60a8134d18056ac97bd8d941035dd5dbc495f0a4a0f701842cac2952ae1fdf1cec585bf463808fb368dee23e58022f33" +
      "b0a806573b46bead296bb067183e9142d87b649899b9a01ef7dbee5022db03ea52e2d645e69ee247d92ff5b4c8db8f2e" +
      "6117c06bc8c10b081e35e6628fce750373a0d0ac87fcbbc3b2f44e1e25a4ab24241478ef00f434fb1e51af9668ca36d6" +
      "c1c46e128b48cf69146ec9a1b2e3eee0f1fab79ad9371d36b7720102eb70a53a48551d58dfcd8b07281cd23c32a997ff" +
      "e23b38521a4150abbe6e20772ed216f8",
  },
  {
    value: 0x1d2a7f3c90b4e685n,
    blinding: repeatedByte("44"),
    commitment: "022682548cf94607156ef325016afc9abda649eaa85393354c1259798750c2a4b5",
    proof:
      "02d6536e4a9ae1487b5eaeeef5fff5506f86539f23f37e32170ab55409fb62198603e920a5db10a0007f8df38096a5d1" +
      "adbde5b0d9621e988cbb0fdbab979cef19a902cff0ec65f05e9c52cf7e27f23ed7efd2684981a5315be8465c41e04904" +
      "e66dc2034e93e3dc832b6425a0d5f84374252b6db5f65d836cd904d8073587ed32e964957f7ddbf99d54429af8d8c39d" +
      "0965c6bec69359a8ef3859638a202752e580fef0c4079609ef4d382a43fad5303852b677e20fed9f8b913bab4aaa9725" +
      "02043f1cf9b6955cc6ac21e567da6be32ba96554b4370165b6be795b2df9f62fec5e24d102fb217b9df853762c055b62" +
      "a153171bd9eb3ecc500de44c8fc9e97edbd888a3a403db19e56c5412c2550849cb4e15f1a748876d5d5ae05d302d7186" +
      "ba9c9230f0d7029ebe41763e558967ba6c79750fdcce4cfd08bbe3177409394a70c64d00d25b94021d6ccc26cea17569" +
      "67fe25f43fcd58c5354a002a70acfc8bdf2086e4841e394d02c43fa22ee080411c7fb0fcd7992e8d17c7c77e0b24194e" +
      "03dd61b9aaed723ccd02c3bf4eb8a2ab8f32d958af493904de95ac3c7bdff0c88059da5baf3386cb5e130288627b3478" +
      "ca75f1e3a669f6b9f030d64bb17b8f7245ae413e9b640cbc4eedee026c1c1742058165e501f31a99293fbac412f7cc0d" +
      "2f7ce844a02785ecf86407a202370caa3b5ab425bb48a69d5121820bed5a9abeccf7325aa2590661062b67e42d020ad7" +
      "6d96e8ceb845cd3340f10998e4c4d8564cae253142be1095666c52f06114033d0bd89ea75a2a86cffcca5012763e655e" +
      "7fdf9394073c3f45adee7b3b672d9f0222a14767c63ddc046a5d5965ea5c3c7f9abcf2db5fdeb569f11429016a449515" +
      "e8ebf4958c57d8d104759f8782e42e658b28ca586294c7ea9cf3b562e03a3b9f29f3cad64a97b63dfe6094895d3762e8" +
      "f57cc57050b799fb4a567a2d7440e550",
  },
];

// 30 + 12 → 40 + 2, blindings 0x55…55 and 0x66…66 in, 0x77…77 and 0x08…08 out.
const TALLY_VECTOR = {
  inputs: [
    "025a639a6535fc0436ff74a59c2595dbf3a00a66df71951f4ca31953a3eb4b69ec",
    "0211c8327c125578a9aebc474ce1aa1b7e97a6485f9bc31c5cf54c6508bb1feebc",
  ],
  outputs: [
    "02fe36cefcb55939265d311076a29d6346bed905da0b27c1ab485ba649df7e2fb7",
    "0312b2c005ab437fc171d30fd9724b67b081084c6e2390a004be0819a2872109f3",
  ],
  msg: "b649bd965a5126984cc785cbeb1ef053",
  sig: "02ac36674ee99df72d321837c7e9f26fe5efa51821948278bea063203de88ec5ac" + "fcf279cc5e115536ed586c842f889feaab419aa8f24884af16b1600f5346d1aa",
};

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
