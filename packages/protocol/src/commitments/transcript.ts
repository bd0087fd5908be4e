import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToNumberBE } from "@noble/curves/utils.js";
import { concatBytes, utf8 } from "../bytes.js";
import { type EcPoint, encodePoint, encodeScalar, modOrder } from "./curve.js";

/** 4-byte big-endian length, then the bytes: no two different item sequences hash alike. */
function lengthPrefixed(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + bytes.length);
  new DataView(out.buffer).setUint32(0, bytes.length);
  out.set(bytes, 4);
  return out;
}

/**
 * Fiat–Shamir transcript. The state T starts as lp(domain); appending (label, data) adds lp(label) ‖ lp(data),
 * where lp(x) = u32be(len x) ‖ x. A challenge under `label` is sha256(T ‖ lp(label)) read big-endian mod n,
 * and is then appended itself as (label, 32-byte scalar), so every later challenge depends on it.
 * Prover and verifier run the same sequence of calls (RangeProofTranscript, tallyChallenge).
 */
export class Transcript {
  #parts: Uint8Array[];

  constructor(domain: string) {
    this.#parts = [lengthPrefixed(utf8(domain))];
  }

  appendBytes(label: string, data: Uint8Array): void {
    this.#parts.push(lengthPrefixed(utf8(label)), lengthPrefixed(data));
  }

  appendPoint(label: string, point: EcPoint): void {
    this.appendBytes(label, encodePoint(point));
  }

  appendScalar(label: string, k: bigint): void {
    this.appendBytes(label, encodeScalar(k));
  }

  /** A challenge in [1, n). A zero challenge (probability 2⁻²⁵⁶) throws: it would void the argument. */
  challenge(label: string): bigint {
    const digest = sha256(concatBytes(...this.#parts, lengthPrefixed(utf8(label))));
    const c = modOrder(bytesToNumberBE(digest));
    if (c === 0n) throw new Error(`transcript challenge ${label} is zero`);
    this.appendScalar(label, c);
    return c;
  }
}
