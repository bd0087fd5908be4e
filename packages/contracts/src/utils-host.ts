// The host side of the Utils.* crypto bridge (js/utils-builtins.ts): runs in Node, called synchronously from
// the contract's isolate. Arguments arrive type-checked by the built-in, but nothing here trusts them.
import { addressFromPublicKey, decodePublicKey, isAddress, sha256, toHex, verifyPedersenTally, verifyRangeProof } from "@chainsim/protocol";
import { Ed25519Verifier } from "@chainsim/protocol/node-crypto";

/** One verifier for every contract; its key cache is kept small, since contracts choose the keys. */
const verifier = new Ed25519Verifier(1024);

const MAX_COMMITMENTS = 100;
const HEX = /^(?:[0-9a-fA-F]{2})+$/;
/** Standard alphabet; the last quantum may be padded or not. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

/**
 * Runs the crypto helper `name` with the JSON array `argsJson` and answers JSON: a string, or `false` for any
 * bad input or failure. Never throws.
 *
 * - `sha256(data, type)` → lowercase hex
 * - `ecVerify(signatureHex, publicKey, blob, type)` → boolean
 * - `addressCheck(text)` → boolean
 * - `toAddress(publicKey)` → address or false
 * - `bpRangeProofVerify(commit, proof)` → boolean (Bulletproofs; @chainsim/protocol commitments/)
 * - `pedersenTallyVerify(inputsJson, outputsJson, excessMsg, excessSig)` → boolean (inputs/outputs: JSON arrays
 *   of at most 100 strings)
 *
 * `type` is 0 (hex), 1 (raw string, UTF-8) or 2 (base64); data that is invalid or decodes to nothing is false.
 */
export function utilsCrypto(name: string, argsJson: string): string {
  let result: string | boolean = false;
  try {
    const args: unknown = typeof argsJson === "string" ? JSON.parse(argsJson) : undefined;
    if (Array.isArray(args)) result = dispatch(String(name), args);
  } catch {
    result = false;
  }
  return JSON.stringify(result);
}

function dispatch(name: string, args: unknown[]): string | boolean {
  switch (name) {
    case "sha256": {
      const data = decodeData(args[0], args[1] ?? 0);
      return data ? toHex(sha256(data)) : false;
    }
    case "ecVerify":
      return ecVerify(args[0], args[1], args[2], args[3] ?? 0);
    case "addressCheck":
      return isAddress(args[0]);
    case "toAddress":
      return toAddress(args[0]);
    case "bpRangeProofVerify":
      return typeof args[0] === "string" && typeof args[1] === "string" && verifyRangeProof(args[0], args[1]);
    case "pedersenTallyVerify": {
      const inputs = commitmentList(args[0]);
      const outputs = commitmentList(args[1]);
      if (!inputs || !outputs || typeof args[2] !== "string" || typeof args[3] !== "string") return false;
      return verifyPedersenTally(inputs, outputs, args[2], args[3]);
    }
    default:
      return false;
  }
}

/** The bytes `data` stands for in encoding `type`; undefined when invalid or empty. */
function decodeData(data: unknown, type: unknown): Uint8Array | undefined {
  if (typeof data !== "string" || data.length === 0) return undefined;
  let bytes: Uint8Array;
  switch (type) {
    case 0:
      if (!HEX.test(data)) return undefined;
      bytes = Buffer.from(data, "hex");
      break;
    case 1:
      bytes = Buffer.from(data, "utf8");
      break;
    case 2:
      if (!BASE64.test(data)) return undefined;
      bytes = Buffer.from(data, "base64");
      break;
    default:
      return undefined;
  }
  return bytes.length > 0 ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length) : undefined;
}

function ecVerify(signatureHex: unknown, publicKey: unknown, blob: unknown, type: unknown): boolean {
  if (typeof signatureHex !== "string" || typeof publicKey !== "string" || !HEX.test(signatureHex)) return false;
  const message = decodeData(blob, type);
  if (!message) return false;
  try {
    return verifier.verify(publicKey, message, Buffer.from(signatureHex, "hex"));
  } catch {
    return false; // not a b06566… public key
  }
}

function toAddress(publicKey: unknown): string | false {
  if (typeof publicKey !== "string") return false;
  try {
    return addressFromPublicKey(decodePublicKey(publicKey));
  } catch {
    return false;
  }
}

/** A JSON array of at most 100 strings, else undefined. */
function commitmentList(json: unknown): string[] | undefined {
  if (typeof json !== "string") return undefined;
  const list: unknown = JSON.parse(json);
  if (!Array.isArray(list) || list.length > MAX_COMMITMENTS || !list.every((c) => typeof c === "string")) return undefined;
  return list as string[];
}
