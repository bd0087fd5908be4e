import type { ConsensusCrypto } from "@chainsim/consensus";
import { encodePublicKey, toHex } from "@chainsim/protocol";
import { Ed25519Verifier, sha256, type NodeEd25519Signer } from "@chainsim/protocol/node-crypto";
import type { NodeConfig } from "../config.js";

/**
 * Consensus signatures found valid that a verifier keeps: a message is checked when screened and again
 * when the replica opens it, and the second check then costs a comparison.
 */
const REMEMBERED_SIGNATURES = 4096;

/**
 * Signing and checking consensus messages with the validators' Ed25519 keys: this validator's own key,
 * and the others' public keys from the peer list (replica i is config.validators[i]). The simulation gives
 * every validator one shared `verifier` (docs/simulation.md).
 */
export function validatorCrypto(config: NodeConfig, signer: NodeEd25519Signer, self: string, verifier = new Ed25519Verifier(undefined, REMEMBERED_SIGNATURES)): ConsensusCrypto {
  const publicKeys = new Map<string, string>(config.p2p.peers.map((peer) => [peer.address, peer.public_key]));
  publicKeys.set(self, encodePublicKey(signer.publicKey));
  const missing = config.validators.filter((address) => !publicKeys.has(address));
  if (missing.length > 0) throw new Error(`config: p2p.peers lacks the public key of validator(s) ${missing.join(", ")}`);
  const byReplica = config.validators.map((address) => publicKeys.get(address)!);
  return {
    sign: (bytes) => signer.signNow(bytes),
    verify: (replica, bytes, signature) => {
      const key = byReplica[replica];
      return key !== undefined && verifier.verify(key, bytes, signature);
    },
    digest: (value) => toHex(sha256(value)),
  };
}
