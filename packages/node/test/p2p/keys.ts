import { generateKeyPairFromSeed } from "@libp2p/crypto/keys";
import { addressFromPublicKey, devKeySeed, encodePrivateKey, encodePublicKey } from "@chainsim/protocol";

export interface TestValidator {
  address: string;
  publicKey: string;
  privateKey: string;
}

/** A validator key derived from `name`, in the chain's text forms. */
export async function testValidator(name: string): Promise<TestValidator> {
  const seed = devKeySeed("p2p-test", name);
  const key = await generateKeyPairFromSeed("Ed25519", seed);
  return { address: addressFromPublicKey(key.publicKey.raw), publicKey: encodePublicKey(key.publicKey.raw), privateKey: encodePrivateKey(seed) };
}
