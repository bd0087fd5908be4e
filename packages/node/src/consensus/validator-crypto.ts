import type { ConsensusCrypto } from "@chainsim/consensus";
import { encodePublicKey, sha256, toHex } from "@chainsim/protocol";
import { Ed25519Verifier, type NodeEd25519Signer } from "@chainsim/protocol/node-crypto";
import type { NodeConfig } from "../config.js";

/**
 * Signing and checking consensus messages with the validators' Ed25519 keys: this validator's own key,
 * and the others' public keys from the peer list (replica i is config.validators[i]).
 */
export function validatorCrypto(config: NodeConfig, signer: NodeEd25519Signer, self: string): ConsensusCrypto {
  const publicKeys = new Map<string, string>(config.p2p.peers.map((peer) => [peer.address, peer.public_key]));
  publicKeys.set(self, encodePublicKey(signer.publicKey));
  const missing = config.validators.filter((address) => !publicKeys.has(address));
  if (missing.length > 0) throw new Error(`config: p2p.peers lacks the public key of validator(s) ${missing.join(", ")}`);
  const byReplica = config.validators.map((address) => publicKeys.get(address)!);
  const verifier = new Ed25519Verifier();
  return {
    sign: (bytes) => signer.signNow(bytes),
    verify: (replica, bytes, signature) => {
      const key = byReplica[replica];
      return key !== undefined && verifier.verify(key, bytes, signature);
    },
    digest: (value) => toHex(sha256(value)),
  };
}
