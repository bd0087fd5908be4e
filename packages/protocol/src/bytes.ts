import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { ChainError, ErrorCode } from "./errors.js";

export { concatBytes, utf8ToBytes as utf8 } from "@noble/hashes/utils.js";

const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/** Lowercase hex of the bytes. */
export function toHex(bytes: Uint8Array): string {
  return bytesToHex(bytes);
}

/** Bytes of a hex string; ChainError(2) naming `what` if it is not even-length hex. */
export function fromHex(hex: string, what = "hex string"): Uint8Array {
  if (typeof hex !== "string" || !HEX.test(hex)) {
    throw new ChainError(ErrorCode.INVALID_PARAMETER, `${what} should be a hex string`);
  }
  return hexToBytes(hex);
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
