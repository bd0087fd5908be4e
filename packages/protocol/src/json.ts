import { isInteger, isSafeNumber, parse, stringify } from "lossless-json";
import type { Json } from "./codec.js";

/**
 * JSON of the HTTP API. int64 values are JSON numbers that may exceed 2^53, so integers outside the safe
 * range parse to bigint (never rounded) and bigint values stringify as plain numbers.
 */
export function parseJson(text: string): Json {
  return parse(text, null, (digits) =>
    isInteger(digits) && !isSafeNumber(digits) ? BigInt(digits) : Number(digits),
  ) as Json;
}

export function stringifyJson(value: unknown, indent?: number): string {
  return stringify(value, undefined, indent) ?? "null";
}
