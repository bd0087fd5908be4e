import { addressFromPublicKey, devKeySeed, encodePrivateKey, encodePublicKey } from "@chainsim/protocol";
import { NodeEd25519Signer } from "@chainsim/protocol/node-crypto";

/** A key pair in the text forms users paste into SDKs and curl. */
export interface Account {
  address: string;
  public_key: string;
  private_key: string;
  /** The key file it was read from; absent for a dev key, which anyone can derive (insecure by design). */
  key_file?: string;
}

export function accountFromSeed(seed: Uint8Array): Account {
  const publicKey = new NodeEd25519Signer(seed).publicKey;
  return {
    address: addressFromPublicKey(publicKey),
    public_key: encodePublicKey(publicKey),
    private_key: encodePrivateKey(seed),
  };
}

/** The dev account `name` ("genesis" or a node name) of `network`: the same on every machine. */
export function devAccount(network: string, name: string): Account {
  return accountFromSeed(devKeySeed(network, name));
}
