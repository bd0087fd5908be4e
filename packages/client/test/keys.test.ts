import { expect } from "chai";
import { ChainError, ErrorCode, fromHex, isAddress, toHex } from "@chainsim/protocol";
import { Ed25519Verifier } from "@chainsim/protocol/node-crypto";
import { KEY_VECTORS, describeSignerConformance } from "@chainsim/protocol/testing";
import { Keypair, NobleEd25519Signer } from "../src/index.js";

describeSignerConformance("@noble/ed25519", (seed) => new NobleEd25519Signer(seed));

describe("Keypair", () => {
  it("derives every text form of the compat.md key vectors from the seed", () => {
    for (const v of KEY_VECTORS) {
      const keypair = Keypair.fromSeed(fromHex(v.seed));
      expect({ privateKey: keypair.privateKey, publicKey: keypair.publicKey, address: keypair.address }).to.deep.equal({
        privateKey: v.privateKey,
        publicKey: v.publicKey,
        address: v.address,
      });
    }
  });

  it("round-trips through the priSPK private key", () => {
    for (const v of KEY_VECTORS) {
      const keypair = Keypair.fromPrivateKey(v.privateKey);
      expect(keypair.address).to.equal(v.address);
      expect(Keypair.fromPrivateKey(keypair.privateKey).publicKey).to.equal(v.publicKey);
    }
  });

  it("generates distinct valid keys whose signatures node:crypto accepts", async () => {
    const a = Keypair.generate();
    const b = Keypair.generate();
    expect(a.privateKey).to.not.equal(b.privateKey);
    expect(isAddress(a.address)).to.equal(true);
    expect(Keypair.fromPrivateKey(a.privateKey).address).to.equal(a.address);
    const message = Uint8Array.of(1, 2, 3);
    const signature = await a.signer.sign(message);
    expect(new Ed25519Verifier().verify(a.publicKey, message, signature)).to.equal(true);
    expect(new Ed25519Verifier().verify(b.publicKey, message, signature)).to.equal(false);
  });

  it("refuses malformed private keys and seeds with 91", () => {
    for (const make of [
      () => Keypair.fromPrivateKey("priSPKnotakey"),
      () => Keypair.fromPrivateKey("b065663b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29"),
      () => Keypair.fromSeed(new Uint8Array(31)),
    ]) {
      expect(make).to.throw(ChainError).with.property("code", ErrorCode.INVALID_PRIVATE_KEY);
    }
  });

  it("keeps its own copy of the seed", async () => {
    const seed = fromHex(KEY_VECTORS[1].seed);
    const signer = new NobleEd25519Signer(seed);
    const before = toHex(await signer.sign(Uint8Array.of(9)));
    seed.fill(0);
    expect(toHex(await signer.sign(Uint8Array.of(9)))).to.equal(before);
  });
});
