// Node-only: Ed25519 through node:crypto, the fast path for the validator (OpenSSL verifies about 13×
// faster than pure JS). Not exported from the package root, which must stay browser-safe.
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from "node:crypto";
import { concatBytes, fromHex } from "./bytes.js";
import { decodePublicKey } from "./keys.js";
import type { Ed25519Signer, SignatureJson } from "./signing.js";

const PKCS8_ED25519_PREFIX = fromHex("302e020100300506032b657004220420");
const SPKI_ED25519_PREFIX = fromHex("302a300506032b6570032100");

export class NodeEd25519Signer implements Ed25519Signer {
  readonly publicKey: Uint8Array;
  private readonly key: KeyObject;

  constructor(seed: Uint8Array) {
    this.key = createPrivateKey({ key: Buffer.from(concatBytes(PKCS8_ED25519_PREFIX, seed)), format: "der", type: "pkcs8" });
    const spki = createPublicKey(this.key).export({ format: "der", type: "spki" });
    this.publicKey = new Uint8Array(spki.subarray(SPKI_ED25519_PREFIX.length));
  }

  async sign(message: Uint8Array): Promise<Uint8Array> {
    return this.signNow(message);
  }

  /** Synchronous signing, for callers that cannot wait (the consensus state machine signs its votes inline). */
  signNow(message: Uint8Array): Uint8Array {
    return new Uint8Array(sign(null, message, this.key));
  }
}

/**
 * Verifies Ed25519 signatures, caching the parsed public-key objects (parsing costs as much as verifying).
 * The cache is bounded; the oldest entries go first.
 */
export class Ed25519Verifier {
  private readonly keys = new Map<string, KeyObject>();

  constructor(private readonly capacity = 100_000) {}

  /** True when `signature` is a valid signature of `message`. Throws ChainError(90) for an unparseable key. */
  verify(publicKeyText: string, message: Uint8Array, signature: Uint8Array): boolean {
    if (signature.length !== 64) return false;
    return verify(null, message, this.keyObject(publicKeyText), signature);
  }

  verifyJson(signature: SignatureJson, message: Uint8Array): boolean {
    return this.verify(signature.public_key, message, fromHex(signature.sign_data, "sign_data"));
  }

  private keyObject(publicKeyText: string): KeyObject {
    let key = this.keys.get(publicKeyText);
    if (key) return key;
    const raw = decodePublicKey(publicKeyText);
    key = createPublicKey({ key: Buffer.from(concatBytes(SPKI_ED25519_PREFIX, raw)), format: "der", type: "spki" });
    if (this.keys.size >= this.capacity) this.keys.delete(this.keys.keys().next().value!);
    this.keys.set(publicKeyText, key);
    return key;
  }
}
