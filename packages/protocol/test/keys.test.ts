import { expect } from "chai";
import {
  BASE58_ALPHABET,
  ChainError,
  ErrorCode,
  base58,
  contractAddress,
  decodePrivateKey,
  decodePublicKey,
  fromHex,
  isAddress,
  toHex,
} from "../src/index.js";
import { KEY_VECTORS } from "../src/testing/index.js";

describe("base58 (compat.md §1)", () => {
  it("uses Bitcoin's alphabet with B/b and U/u swapped", () => {
    const bitcoin = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    const swapped = bitcoin.replace(/[BbUu]/g, (c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()));
    expect(BASE58_ALPHABET).to.equal(swapped);
  });

  it("encodes each leading zero byte as '1' and round-trips", () => {
    expect(base58.encode(Uint8Array.of(0, 0, 1))).to.equal("112");
    const bytes = fromHex("0000ff10203040");
    expect(toHex(base58.decode(base58.encode(bytes)))).to.equal("0000ff10203040");
  });
});

describe("keys and addresses (compat.md §2)", () => {
  for (const v of KEY_VECTORS) {
    it(`decodes the private and public key of seed ${v.seed.slice(0, 8)}…`, () => {
      expect(toHex(decodePrivateKey(v.privateKey))).to.equal(v.seed);
      expect(toHex(decodePublicKey(v.publicKey))).to.equal(v.publicKey.slice(6));
      expect(isAddress(v.address)).to.equal(true);
    });
  }

  it("refuses malformed keys with 91 and 90", () => {
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as ChainError).code;
      }
      return ErrorCode.SUCCESS;
    };
    expect(code(() => decodePrivateKey("priSPKnotbase58!!"))).to.equal(ErrorCode.INVALID_PRIVATE_KEY);
    expect(code(() => decodePrivateKey(KEY_VECTORS[0].privateKey.slice(0, -1)))).to.equal(ErrorCode.INVALID_PRIVATE_KEY);
    expect(code(() => decodePublicKey("b06566abcd"))).to.equal(ErrorCode.INVALID_PUBLIC_KEY);
    expect(code(() => decodePublicKey("zz"))).to.equal(ErrorCode.INVALID_PUBLIC_KEY);
  });

  it("validates addresses, accepting the chain-code form", () => {
    const good = KEY_VECTORS[2].address;
    expect(isAddress(good)).to.equal(true);
    expect(isAddress(good.replace("did:bid:", "did:bid:abc:"))).to.equal(true);
    expect(isAddress(good.replace("did:bid:ef", "did:bid:zf"))).to.equal(true);
    expect(isAddress(good.slice(0, -4))).to.equal(false);
    expect(isAddress(good.replace("did:bid:ef", "did:bid:xx"))).to.equal(false);
    expect(isAddress(good.replace("did:", "dod:"))).to.equal(false);
    expect(isAddress(good + "0")).to.equal(false);
    expect(isAddress(42)).to.equal(false);
  });

  it("derives contract addresses from '<source>-<nonce>-<index>' (compat.md §8)", () => {
    const a = contractAddress(KEY_VECTORS[0].address, 2n, 0);
    expect(isAddress(a)).to.equal(true);
    expect(a).to.not.equal(contractAddress(KEY_VECTORS[0].address, 2n, 1));
    expect(a).to.equal(contractAddress(KEY_VECTORS[0].address, 2n, 0));
  });
});
