import { isInteger, isSafeNumber, parse, stringify } from "lossless-json";
import type { Json } from "./codec.js";

/**
 * An integer of more digits is refused: BigInt's conversion takes time that grows with the square of the
 * digits (a 16 MB integer held a validator's event loop 6-10 s), and no int64 has more than 20.
 */
export const MAX_INTEGER_DIGITS = 64;

/**
 * JSON of the HTTP API. int64 values are JSON numbers that may exceed 2^53, so integers outside the safe
 * range parse to bigint (never rounded) and bigint values stringify as plain numbers.
 */
export function parseJson(text: string): Json {
  return parse(text, null, (digits) => {
    if (!isInteger(digits) || isSafeNumber(digits)) return Number(digits);
    if (digits.length > MAX_INTEGER_DIGITS) throw new SyntaxError(`an integer of ${digits.length} digits (at most ${MAX_INTEGER_DIGITS})`);
    return BigInt(digits);
  }) as Json;
}

export function stringifyJson(value: unknown, indent?: number): string {
  return stringify(value, undefined, indent) ?? "null";
}
