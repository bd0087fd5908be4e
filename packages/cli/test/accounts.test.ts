import { expect } from "chai";
import { addressFromPublicKey, decodePrivateKey, decodePublicKey, devKeySeed, isAddress } from "@chainsim/protocol";
import { NodeEd25519Signer } from "@chainsim/protocol/node-crypto";
import { accountFromSeed, devAccount } from "../src/accounts.js";

describe("dev accounts", () => {
  it("derive the same keys every time", () => {
    expect(devAccount("local-4", "v1")).to.deep.equal(devAccount("local-4", "v1"));
  });

  it("differ per network and per account name", () => {
    const addresses = [devAccount("a", "v1"), devAccount("b", "v1"), devAccount("a", "v2"), devAccount("a", "genesis")].map((a) => a.address);
    expect(new Set(addresses).size).to.equal(4);
  });

  it("are consistent key pairs in the wire text forms", () => {
    const account = devAccount("single", "genesis");
    const seed = decodePrivateKey(account.private_key);
    expect(seed).to.deep.equal(devKeySeed("single", "genesis"));
    const publicKey = new NodeEd25519Signer(seed).publicKey;
    expect(decodePublicKey(account.public_key)).to.deep.equal(publicKey);
    expect(account.address).to.equal(addressFromPublicKey(publicKey));
    expect(isAddress(account.address)).to.equal(true);
    expect(account.private_key).to.match(/^priSPK/);
    expect(account.public_key).to.match(/^b06566[0-9a-f]{64}$/);
    expect(account).to.not.have.property("key_file");
  });

  it("accountFromSeed matches devAccount for the dev seed", () => {
    expect(accountFromSeed(devKeySeed("n", "x"))).to.deep.equal(devAccount("n", "x"));
  });
});
