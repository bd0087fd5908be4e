import { ChainError, ErrorCode } from "./errors.js";

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

const DECIMAL = /^-?\d+$/;

/**
 * Reads an int64 given as a JSON number, a bigint or a numeric string (clients send all three).
 * Throws ChainError(2) naming `what` when the value is not an integer in the int64 range.
 */
export function toInt64(value: unknown, what: string): bigint {
  let result: bigint;
  if (typeof value === "bigint") result = value;
  else if (typeof value === "number" && Number.isSafeInteger(value)) result = BigInt(value);
  else if (typeof value === "string" && DECIMAL.test(value.trim())) result = BigInt(value.trim());
  else throw new ChainError(ErrorCode.INVALID_PARAMETER, `${what} should be an integer, got ${describe(value)}`);
  if (result < INT64_MIN || result > INT64_MAX) {
    throw new ChainError(ErrorCode.INVALID_PARAMETER, `${what} is outside the int64 range`);
  }
  return result;
}

/** a + b, or ChainError(7) when the sum leaves the int64 range. */
export function addInt64(a: bigint, b: bigint, what = "sum"): bigint {
  const sum = a + b;
  if (sum < INT64_MIN || sum > INT64_MAX) throw new ChainError(ErrorCode.MATH_OVERFLOW, `${what} overflows int64`);
  return sum;
}

/** a × b, or ChainError(7) when the product leaves the int64 range. */
export function mulInt64(a: bigint, b: bigint, what = "product"): bigint {
  const product = a * b;
  if (product < INT64_MIN || product > INT64_MAX) {
    throw new ChainError(ErrorCode.MATH_OVERFLOW, `${what} overflows int64`);
  }
  return product;
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value);
  if (value === null) return "null";
  return typeof value === "object" ? (Array.isArray(value) ? "an array" : "an object") : String(value);
}
