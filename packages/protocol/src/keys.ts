import baseX from "base-x";
import { sha256 } from "@noble/hashes/sha2.js";
import { equalBytes, fromHex, toHex, utf8 } from "./bytes.js";
import { ChainError, ErrorCode } from "./errors.js";

/** Bitcoin's base58 alphabet with the case of B/b and U/u swapped (compat.md §1). */
export const BASE58_ALPHABET = "123456789AbCDEFGHJKLMNPQRSTuVWXYZaBcdefghijkmnopqrstUvwxyz";
export const base58 = baseX(BASE58_ALPHABET);

export const KEY_TYPE_ED25519 = 0x65;
export const KEY_TYPE_SM2 = 0x7a;
const ENCODING = 0x66;
const PRIVATE_KEY_PREFIX = Uint8Array.of(0x18, 0x9e, 0x99, KEY_TYPE_ED25519, ENCODING);
const PUBLIC_KEY_PREFIX = Uint8Array.of(0xb0, KEY_TYPE_ED25519, ENCODING);
const ADDRESS_PREFIX = "did:bid:";

/** `priSPK…`: the text form of a 32-byte Ed25519 seed. */
export function encodePrivateKey(seed: Uint8Array): string {
  if (seed.length !== 32) throw new ChainError(ErrorCode.INVALID_PRIVATE_KEY, "an Ed25519 seed has 32 bytes");
  const bytes = new Uint8Array(37);
  bytes.set(PRIVATE_KEY_PREFIX);
  bytes.set(seed, 5);
  return base58.encode(bytes);
}

/** The 32-byte seed of a `priSPK…` private key; ChainError(91) when it is not one. */
export function decodePrivateKey(text: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(text);
  } catch {
    throw new ChainError(ErrorCode.INVALID_PRIVATE_KEY, "private key is not base58");
  }
  if (bytes.length !== 37 || !equalBytes(bytes.subarray(0, 5), PRIVATE_KEY_PREFIX)) {
    throw new ChainError(ErrorCode.INVALID_PRIVATE_KEY, "not an Ed25519 private key (expected priSPK…)");
  }
  return bytes.slice(5);
}

/** `b06566…`: the hex text form of a raw 32-byte Ed25519 public key. */
export function encodePublicKey(raw: Uint8Array): string {
  if (raw.length !== 32) throw new ChainError(ErrorCode.INVALID_PUBLIC_KEY, "an Ed25519 public key has 32 bytes");
  return toHex(PUBLIC_KEY_PREFIX) + toHex(raw);
}

/** The raw 32-byte key of a `b06566…` public key; ChainError(90) when it is not one. */
export function decodePublicKey(text: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = fromHex(text);
  } catch {
    throw new ChainError(ErrorCode.INVALID_PUBLIC_KEY, "public key is not hex");
  }
  if (bytes.length !== 35 || !equalBytes(bytes.subarray(0, 3), PUBLIC_KEY_PREFIX)) {
    throw new ChainError(ErrorCode.INVALID_PUBLIC_KEY, "not an Ed25519 public key (expected b06566 + 32 bytes)");
  }
  return bytes.slice(3);
}

/** `did:bid:ef` + base58 of bytes [10,32) of sha256(raw key bytes). */
export function addressFromRawKey(raw: Uint8Array, typeTag = "ef"): string {
  return ADDRESS_PREFIX + typeTag + base58.encode(sha256(raw).subarray(10));
}

/** The address an Ed25519 public key (raw 32 bytes) signs for. */
export function addressFromPublicKey(raw: Uint8Array): string {
  return addressFromRawKey(raw);
}

/**
 * Address of a contract created without `dest_address` (compat.md §8): the string
 * "<source>-<nonce>-<operation index>" hashed as if it were a raw public key.
 */
export function contractAddress(source: string, nonce: bigint, operationIndex: number): string {
  return addressFromRawKey(utf8(`${source}-${nonce}-${operationIndex}`));
}

/** Valid: `did:bid:` then `ef…`/`zf…` whose rest base58-decodes to 22 bytes; an optional chain code part. */
export function isAddress(text: unknown): text is string {
  if (typeof text !== "string" || !text.startsWith(ADDRESS_PREFIX)) return false;
  const parts = text.split(":");
  if (parts.length !== 3 && parts.length !== 4) return false;
  const last = parts[parts.length - 1];
  if (!last.startsWith("ef") && !last.startsWith("zf")) return false;
  try {
    return base58.decode(last.slice(2)).length === 22;
  } catch {
    return false;
  }
}

/**
 * The one form of an address, `did:bid:ef…`: the chain-code form `did:bid:<code>:ef…` names the same
 * account (compat.md §2: accepted, never produced). Unchanged when `text` is not an address.
 */
export function canonicalAddress(text: string): string {
  if (!isAddress(text)) return text;
  const parts = text.split(":");
  return ADDRESS_PREFIX + parts[parts.length - 1];
}

/** The canonical form of `text`, or ChainError(code) naming `what` when it is not a valid address. */
export function checkAddress(text: unknown, what: string, code = ErrorCode.INVALID_ADDRESS): string {
  if (!isAddress(text)) throw new ChainError(code, `${what} is not a valid address`);
  return canonicalAddress(text);
}

/**
 * Seed of a development key: derived from the network and account name, so a network's dev accounts are
 * the same on every machine. Insecure by design: anyone can derive them.
 */
export function devKeySeed(network: string, name: string): Uint8Array {
  return sha256(utf8(`chainsim insecure dev key/${network}/${name}`));
}
