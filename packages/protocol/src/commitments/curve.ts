import { mulAddUnsafe } from "@noble/curves/abstract/curve.js";
import type { WeierstrassPoint } from "@noble/curves/abstract/weierstrass.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToNumberBE, numberToBytesBE } from "@noble/curves/utils.js";
import { fromHex } from "../bytes.js";
import { ChainError, ErrorCode } from "../errors.js";

/** A point of secp256k1 (the group of every commitment, proof and excess key). */
export type EcPoint = WeierstrassPoint<bigint>;

/** The point class of secp256k1, for code that needs `BASE`, `ZERO` or arithmetic without a point at hand. */
export const EcPoint = secp256k1.Point;

/** n, the order of secp256k1: every scalar lives in [0, n). */
export const CURVE_ORDER = secp256k1.Point.Fn.ORDER;

export const POINT_BYTES = 33;
export const SCALAR_BYTES = 32;

const LOWERCASE_HEX = /^[0-9a-f]*$/;

/** x mod n, in [0, n) also for negative x. */
export function modOrder(x: bigint): bigint {
  const r = x % CURVE_ORDER;
  return r < 0n ? r + CURVE_ORDER : r;
}

/** x⁻¹ mod n; x must not be 0 mod n. */
export function invertScalar(x: bigint): bigint {
  return secp256k1.Point.Fn.inv(modOrder(x));
}

/** A uniform scalar in [1, n) from the platform CSPRNG (crypto.getRandomValues; browser-safe). */
export function randomScalar(): bigint {
  return bytesToNumberBE(secp256k1.utils.randomSecretKey());
}

/** k·P for a secret k, in constant time; k = 0 gives the identity (noble's multiply refuses 0). */
export function multiplySecret(point: EcPoint, k: bigint): EcPoint {
  const scalar = modOrder(k);
  return scalar === 0n ? EcPoint.ZERO : point.multiply(scalar);
}

/**
 * Σ scalars[i]·points[i] (Straus, shared doubling chain). Not constant-time: for public scalars, or where
 * the prover accepts the timing caveat of docs/commitments.md. Scalars are reduced mod n first.
 */
export function multiScalarMul(points: readonly EcPoint[], scalars: readonly bigint[]): EcPoint {
  return mulAddUnsafe(EcPoint, [...points], scalars.map(modOrder));
}

/** 33-byte SEC1 compressed form (02/03 ‖ x). The identity has none: it throws. */
export function encodePoint(point: EcPoint): Uint8Array {
  return point.toBytes(true);
}

/** Strict inverse of encodePoint: exactly 33 bytes, prefix 02/03, x < p and on the curve. */
export function decodePoint(bytes: Uint8Array, what = "point"): EcPoint {
  if (bytes.length !== POINT_BYTES || (bytes[0] !== 0x02 && bytes[0] !== 0x03)) {
    throw new ChainError(ErrorCode.INVALID_PARAMETER, `${what} should be a 33-byte compressed secp256k1 point`);
  }
  try {
    const point = EcPoint.fromBytes(bytes);
    point.assertValidity();
    return point;
  } catch {
    throw new ChainError(ErrorCode.INVALID_PARAMETER, `${what} is not a point of secp256k1`);
  }
}

/** 32 bytes big-endian. */
export function encodeScalar(k: bigint): Uint8Array {
  return numberToBytesBE(modOrder(k), SCALAR_BYTES);
}

/** Strict inverse of encodeScalar: exactly 32 bytes big-endian, value < n (no reduction, so no malleability). */
export function decodeScalar(bytes: Uint8Array, what = "scalar"): bigint {
  const value = bytes.length === SCALAR_BYTES ? bytesToNumberBE(bytes) : CURVE_ORDER;
  if (value >= CURVE_ORDER) throw new ChainError(ErrorCode.INVALID_PARAMETER, `${what} should be 32 bytes below the curve order`);
  return value;
}

/**
 * Bytes of a lowercase hex string of exactly `byteLength` bytes. Uppercase is refused on purpose: each
 * commitment, proof and signature then has exactly one text form.
 */
export function decodeCanonicalHex(text: unknown, byteLength: number, what: string): Uint8Array {
  if (typeof text !== "string" || text.length !== byteLength * 2 || !LOWERCASE_HEX.test(text)) {
    throw new ChainError(ErrorCode.INVALID_PARAMETER, `${what} should be ${byteLength * 2} lowercase hex characters`);
  }
  return fromHex(text, what);
}
