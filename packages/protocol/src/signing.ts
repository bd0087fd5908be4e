import { sha256 } from "@noble/hashes/sha2.js";
import { toHex } from "./bytes.js";
import { encodePublicKey } from "./keys.js";

/**
 * One way to sign, two implementations: node:crypto on the node (`@chainsim/protocol/node-crypto`) and
 * @noble/ed25519 in the browser-safe client. Both must pass the shared vectors of
 * describeSignerConformance in src/testing/index.ts.
 */
export interface Ed25519Signer {
  /** Raw 32-byte public key. */
  readonly publicKey: Uint8Array;
  sign(message: Uint8Array): Promise<Uint8Array>;
}

/** A signature as the HTTP API carries it. */
export interface SignatureJson {
  public_key: string;
  sign_data: string;
}

/** Signs the raw blob bytes (not the hash, compat.md §3). */
export async function signBlob(signer: Ed25519Signer, blob: Uint8Array): Promise<SignatureJson> {
  return { public_key: encodePublicKey(signer.publicKey), sign_data: toHex(await signer.sign(blob)) };
}

/** Transaction hash: sha256 of the blob bytes exactly as submitted. */
export function transactionHash(blob: Uint8Array): Uint8Array {
  return sha256(blob);
}

export { sha256 };
