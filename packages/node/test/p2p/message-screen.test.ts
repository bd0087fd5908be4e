import { randomBytes } from "node:crypto";
import { sign, verifierOf, type Body } from "@chainsim/consensus";
import { codecs } from "@chainsim/protocol";
import { expect } from "chai";
import { FAR_FUTURE_LEDGERS, FAR_FUTURE_VIEWS, screenConsensusMessage } from "../../src/consensus/message-screen.js";
import { testCrypto } from "../faults/setup.js";
import { testValidator } from "./keys.js";
import { sha256, toHex } from "@chainsim/protocol";

/** The digest testCrypto uses for values. */
const testDigest = (value: Uint8Array) => toHex(sha256(value));

describe("screenConsensusMessage", () => {
  const bounds = { view: 5, stableSeq: 40, windowSize: 20, highestLedger: 45 };
  let screen: (payload: Uint8Array) => ReturnType<typeof screenConsensusMessage>;
  let signedBy1: (body: Body) => Uint8Array;

  before(async () => {
    const validators = await Promise.all(["a", "b", "c", "d"].map((name) => testValidator(name)));
    const addresses = validators.map((v) => v.address);
    const verifier = verifierOf({ validators: addresses, self: 0, ckpInterval: 10, viewTimeoutMs: 1000, crypto: testCrypto(validators, 0) });
    screen = (payload) => screenConsensusMessage(verifier, bounds, payload);
    const crypto = testCrypto(validators, 1);
    signedBy1 = (body) => codecs.PbftSignedMessage.encode(sign(crypto, body).wire);
  });

  const prepare = (view: number, seq: number): Body => ({ kind: "prepare", view, seq, replica: 1, digest: "ab".repeat(32) });

  it("passes a signed message inside the bounds", () => {
    expect(screen(signedBy1(prepare(3, 41)))).to.have.property("message");
    // a late vote just below the stable checkpoint comes from an honest slow peer
    expect(screen(signedBy1(prepare(3, 21)))).to.have.property("message");
  });

  it("names bytes that do not decode, and a bad signature, garbage", () => {
    expect(screen(randomBytes(64))).to.deep.equal({ offence: "garbage" });
    const forged = codecs.PbftSignedMessage.decode(signedBy1(prepare(3, 41)));
    forged.signature![0] ^= 1;
    expect(screen(codecs.PbftSignedMessage.encode(forged))).to.deep.equal({ offence: "garbage" });
  });

  it("names a message a full window below the stable checkpoint replayed", () => {
    expect(screen(signedBy1(prepare(0, 20)))).to.deep.equal({ offence: "replayed" });
    expect(screen(signedBy1({ kind: "checkpoint", seq: 10, stateDigest: "cd".repeat(32), replica: 1 }))).to.deep.equal({ offence: "replayed" });
  });

  it("names a message past the far-future bound far-future, in ledgers and in views", () => {
    expect(screen(signedBy1(prepare(3, 45 + FAR_FUTURE_LEDGERS)))).to.have.property("message");
    expect(screen(signedBy1(prepare(3, 46 + FAR_FUTURE_LEDGERS)))).to.deep.equal({ offence: "far-future" });
    expect(screen(signedBy1(prepare(6 + FAR_FUTURE_VIEWS, 41)))).to.deep.equal({ offence: "far-future" });
  });

  it("names a PRE-PREPARE from a replica that is not its view's primary garbage, before any hashing", () => {
    const value = new Uint8Array(1024);
    const prePrepare = (view: number): Body => ({ kind: "pre-prepare", view, seq: 41, replica: 1, value, digest: testDigest(value) });
    // replica 1 is the primary of views 1 and 5 of four validators, not of view 3
    expect(screen(signedBy1(prePrepare(5)))).to.have.property("message");
    expect(screen(signedBy1(prePrepare(3)))).to.deep.equal({ offence: "garbage" });
  });
});
