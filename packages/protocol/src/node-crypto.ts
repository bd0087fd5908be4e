// Node-only: Ed25519 through node:crypto, the fast path for the validator (OpenSSL verifies about 13×
// faster than pure JS). Not exported from the package root, which must stay browser-safe.
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from "node:crypto";
import { concatBytes, fromHex } from "./bytes.js";
import { decodePublicKey } from "./keys.js";
import type { Ed25519Signer, SignatureJson } from "./signing.js";

/** SHA-256 through OpenSSL: the same digest as the package root's `sha256`, several times faster in Node. */
export function sha256(data: Uint8Array): Uint8Array {
  const digest = createHash("sha256").update(data).digest();
  return new Uint8Array(digest.buffer, digest.byteOffset, digest.length);
}

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
 * With `remembered`, it also keeps that many signatures it found valid, with their message: the same check
 * again (a consensus message screened, then opened by the replica) costs a comparison of the bytes. Both
 * caches are bounded; the oldest entries go first.
 */
export class Ed25519Verifier {
  private readonly keys = new Map<string, KeyObject>();
  private readonly valid = new Map<string, Uint8Array>();

  constructor(
    private readonly capacity = 100_000,
    private readonly remembered = 0,
  ) {}

  /** True when `signature` is a valid signature of `message`. Throws ChainError(90) for an unparseable key. */
  verify(publicKeyText: string, message: Uint8Array, signature: Uint8Array): boolean {
    if (signature.length !== 64) return false;
    const memo = this.remembered > 0 ? publicKeyText + Buffer.from(signature.buffer, signature.byteOffset, 64).toString("base64") : undefined;
    const known = memo === undefined ? undefined : this.valid.get(memo);
    if (known && Buffer.from(known.buffer, known.byteOffset, known.length).equals(message)) return true;
    const ok = verify(null, message, this.keyObject(publicKeyText), signature);
    if (ok && memo !== undefined) {
      if (this.valid.size >= this.remembered) this.valid.delete(this.valid.keys().next().value!);
      this.valid.set(memo, message.slice());
    }
    return ok;
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
