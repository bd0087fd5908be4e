import "./promise-with-resolvers.js";
import { generateKeyPairFromSeed, publicKeyFromRaw } from "@libp2p/crypto/keys";
import type { Ed25519PrivateKey } from "@libp2p/interface";
import { addressFromPublicKey, decodePrivateKey, decodePublicKey } from "@chainsim/protocol";

// A validator's libp2p identity is its chain key: the PeerId of every configured peer follows from the
// public key in the config, so a connection gater can tell validators from strangers without a handshake.

/** The libp2p private key of a `priSPK…` validator key, and the validator address it signs for. */
export async function libp2pIdentity(privateKey: string): Promise<{ key: Ed25519PrivateKey; address: string }> {
  const key = await generateKeyPairFromSeed("Ed25519", decodePrivateKey(privateKey));
  return { key, address: addressFromPublicKey(key.publicKey.raw) };
}

/** The PeerId text (base58btc multihash) of a `b06566…` public key. */
export function peerIdOfPublicKey(publicKey: string): string {
  return publicKeyFromRaw(decodePublicKey(publicKey)).toString();
}
