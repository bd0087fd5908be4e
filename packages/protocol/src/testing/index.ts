// The test vectors of compat.md, byte for byte, and the conformance suite every Ed25519Signer
// implementation must pass (node:crypto here, @noble/ed25519 in the client).
import { expect } from "chai";
import { fromHex, toHex } from "../bytes.js";
import { addressFromPublicKey, encodePrivateKey, encodePublicKey } from "../keys.js";
import { signBlob, type Ed25519Signer } from "../signing.js";

export * from "./commitment-vectors.js";

export const KEY_VECTORS = [
  {
    seed: "00".repeat(32),
    privateKey: "priSPKdNnPy1Z5g88vgtyeu1eaPngL7HNc3oaWpk1idHBY7Mzf",
    publicKey: "b065663b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29",
    address: "did:bid:efe9Go8grZgiMy2ZFDEYgAtEZUfsNaoy",
  },
  {
    seed: "07".repeat(32),
    privateKey: "priSPKdrDTy7p9pDDWfXjCX6w1Rv5fpPr1mFPFjBgK2wUjLhFc",
    publicKey: "b06566ea4a6c63e29c520abef5507b132ec5f9954776aebebe7b92421eea691446d22c",
    address: "did:bid:efrZXp2bfxJnd3Z17VxQg7xmwAfaz74C",
  },
  {
    seed: "4653ccd0f1af3f134c39665880ba50bac1af98400ce83159e258407fbc6fe932",
    privateKey: "priSPKi7K3nVAgtdCu9k9hVn4modxzFkd73JGsRrUYJR1T2RxM",
    publicKey: "b06566d8fb4a6dfbe0d5831e38f621391ad9191626f7e28c13d3a0482c52d5c9607b14",
    address: "did:bid:efQ69GRtQUDR9SngdFKAv4owYyx5Fnko",
  },
] as const;

/** compat.md §3: zero-seed source pays 12345 to the 0x07-seed address; nonce 1, fee_limit 1e6, gas_price 100. */
export const TRANSACTION_VECTOR = {
  json: {
    source_address: "did:bid:efe9Go8grZgiMy2ZFDEYgAtEZUfsNaoy",
    nonce: 1,
    fee_limit: 1000000,
    gas_price: 100,
    operations: [{ type: 7, pay_coin: { dest_address: "did:bid:efrZXp2bfxJnd3Z17VxQg7xmwAfaz74C", amount: 12345 } }],
  },
  blob:
    "0a286469643a6269643a65666539476f3867725a67694d79325a46444559674174455a5566734e616f79100122310807522d0a286469643a6269643a6566725a5870326266784a6e64335a31375678516737786d774166617a37344310b96030c0843d3864",
  hash: "da99be6ab0d1b577ab159181f27c81facc86148c83e24197caf3d51048cee8ff",
  signature:
    "162ea84e241289e79b0cfd940ddd7e742cf14a9ffcb83194197eb8837a57920aea13a7789b1846caf38ac8e109708f1fda4b23ac3151242545bae0a227d10204",
  publicKey: "b065663b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29",
} as const;

/** Registers the mocha tests an Ed25519Signer implementation must pass. */
export function describeSignerConformance(name: string, makeSigner: (seed: Uint8Array) => Ed25519Signer): void {
  describe(`Ed25519Signer conformance: ${name}`, () => {
    for (const v of KEY_VECTORS) {
      it(`derives the keys and address of seed ${v.seed.slice(0, 8)}…`, () => {
        const signer = makeSigner(fromHex(v.seed));
        expect(encodePrivateKey(fromHex(v.seed))).to.equal(v.privateKey);
        expect(encodePublicKey(signer.publicKey)).to.equal(v.publicKey);
        expect(addressFromPublicKey(signer.publicKey)).to.equal(v.address);
      });
    }

    it("reproduces the transaction signature of compat.md §3 byte for byte", async () => {
      const signer = makeSigner(fromHex(KEY_VECTORS[0].seed));
      const signature = await signBlob(signer, fromHex(TRANSACTION_VECTOR.blob));
      expect(signature).to.deep.equal({ public_key: TRANSACTION_VECTOR.publicKey, sign_data: TRANSACTION_VECTOR.signature });
    });

    it("signs different messages differently", async () => {
      const signer = makeSigner(fromHex(KEY_VECTORS[1].seed));
      const a = toHex(await signer.sign(Uint8Array.of(1)));
      const b = toHex(await signer.sign(Uint8Array.of(2)));
      expect(a).to.have.length(128);
      expect(a).to.not.equal(b);
    });
  });
}
