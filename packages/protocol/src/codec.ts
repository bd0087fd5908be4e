import protobuf from "protobufjs";
import Long from "long";
import { fromHex, toHex } from "./bytes.js";
import { ChainError, ErrorCode } from "./errors.js";
import { protoSources } from "./gen/proto-sources.js";
import { toInt64 } from "./int64.js";

protobuf.util.Long = Long;
protobuf.configure();

const root = new protobuf.Root();
for (const source of Object.values(protoSources)) protobuf.parse(source, root, { keepCase: true });
root.resolveAll();

/** A JSON value as the HTTP API reads and writes it (int64 as bigint, see json.ts). */
export type Json = null | boolean | number | bigint | string | Json[] | { [key: string]: Json };

type Leaf = (field: protobuf.Field, value: unknown, path: string) => unknown;
const INT64 = new Set(["int64", "uint64", "sint64", "fixed64", "sfixed64"]);
const INT32 = new Set(["int32", "uint32", "sint32", "fixed32", "sfixed32"]);

/**
 * Converts between the three forms of one protobuf message:
 * - the value form used in code: snake_case fields, int64 as bigint, bytes as Uint8Array, enums as
 *   numbers, proto3 defaults absent;
 * - the JSON form of the HTTP API: int64 as numbers (numeric strings accepted), bytes as lowercase hex;
 * - the wire form: proto3 bytes, defaults omitted, fields in number order.
 * The walk is generic over the schema, so every message of proto/*.proto gets the same rules.
 */
export class MessageCodec<T extends object> {
  readonly type: protobuf.Type;

  constructor(typeName: string) {
    this.type = root.lookupType(typeName);
  }

  encode(value: T): Uint8Array {
    return this.type.encode(walk(this.type, value, toWire, "")).finish();
  }

  decode(bytes: Uint8Array): T {
    let message: protobuf.Message;
    try {
      message = this.type.decode(bytes);
    } catch (error) {
      throw new ChainError(ErrorCode.INVALID_PARAMETER, `not a valid ${this.type.name}: ${(error as Error).message}`);
    }
    return walk(this.type, message, fromWire, "") as T;
  }

  /** Reads the JSON form; ChainError(2) naming the first bad field. Unknown fields are ignored. */
  fromJson(json: unknown, what = ""): T {
    return walk(this.type, json, fromJson, what) as T;
  }

  toJson(value: T): { [key: string]: Json } {
    return walk(this.type, value, toJson, "") as { [key: string]: Json };
  }

  /** The value with proto3 defaults removed, as `decode(encode(value))` would give it. */
  canonical(value: T): T {
    return walk(this.type, value, identity, "") as T;
  }
}

function walk(type: protobuf.Type, value: unknown, leaf: Leaf, path: string): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ChainError(ErrorCode.INVALID_PARAMETER, `${path || type.name} should be an object`);
  }
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    const item = source[field.name];
    if (item === undefined || item === null) continue;
    const fieldPath = path ? `${path}.${field.name}` : field.name;
    if (field.repeated) {
      // List items keep their default values: ["a", ""] has two entries.
      if (!Array.isArray(item)) throw new ChainError(ErrorCode.INVALID_PARAMETER, `${fieldPath} should be an array`);
      if (item.length > 0) out[field.name] = item.map((x, i) => walkField(field, x, leaf, `${fieldPath}[${i}]`));
    } else {
      // A singular scalar at its proto3 default is absent in every form. Checked after conversion, so a
      // value is first read by its field's type (0 given for a string field is "0", not absent).
      const converted = walkField(field, item, leaf, fieldPath);
      if (converted !== undefined && !isDefault(converted)) out[field.name] = converted;
    }
  }
  return out;
}

function walkField(field: protobuf.Field, value: unknown, leaf: Leaf, path: string): unknown {
  // A present sub-message stays present even when empty: in proto3 its presence is information.
  if (field.resolvedType instanceof protobuf.Type) return walk(field.resolvedType, value, leaf, path);
  return leaf(field, value, path);
}

/** The proto3 default of a scalar in any form (value form, or a Long on its way to the wire). */
function isDefault(value: unknown): boolean {
  if (Long.isLong(value)) return value.isZero();
  return value === 0n || value === 0 || value === "" || value === false || (value instanceof Uint8Array && value.length === 0);
}

function fromJson(field: protobuf.Field, value: unknown, path: string): unknown {
  if (field.resolvedType instanceof protobuf.Enum) return enumFromJson(field.resolvedType, value, path);
  if (INT64.has(field.type)) return toInt64(value, path);
  if (INT32.has(field.type)) {
    const n = toInt64(value, path);
    const [min, max] = field.type.startsWith("u") || field.type === "fixed32" ? [0n, 2n ** 32n - 1n] : [-(2n ** 31n), 2n ** 31n - 1n];
    if (n < min || n > max) throw new ChainError(ErrorCode.INVALID_PARAMETER, `${path} is outside the ${field.type} range`);
    return Number(n);
  }
  switch (field.type) {
    case "string":
      // Clients send numeric fields of string type (set_privilege weights) as numbers too.
      if (typeof value === "number" || typeof value === "bigint") return String(value);
      if (typeof value !== "string") throw new ChainError(ErrorCode.INVALID_PARAMETER, `${path} should be a string`);
      return value;
    case "bool":
      if (typeof value !== "boolean") throw new ChainError(ErrorCode.INVALID_PARAMETER, `${path} should be a boolean`);
      return value;
    case "bytes":
      return fromHex(value as string, path);
    default:
      throw new ChainError(ErrorCode.INTERNAL, `unsupported field type ${field.type} at ${path}`);
  }
}

function enumFromJson(type: protobuf.Enum, value: unknown, path: string): number {
  if (typeof value === "string" && Object.hasOwn(type.values, value)) return type.values[value];
  const n = Number(toInt64(value, path));
  if (!Object.values(type.values).includes(n)) throw new ChainError(ErrorCode.INVALID_PARAMETER, `${path} has no value ${n}`);
  return n;
}

function toJson(field: protobuf.Field, value: unknown): unknown {
  return field.type === "bytes" ? toHex(value as Uint8Array) : value;
}

function toWire(field: protobuf.Field, value: unknown): unknown {
  return typeof value === "bigint" ? Long.fromString(value.toString(), field.type === "uint64" || field.type === "fixed64") : value;
}

function fromWire(field: protobuf.Field, value: unknown): unknown {
  if (Long.isLong(value)) return BigInt(value.toString());
  if (typeof value === "number" && INT64.has(field.type)) return BigInt(value);
  // Bytes decode as the reader's buffer (or, when absent, the prototype's empty array): copy to a Uint8Array.
  if (field.type === "bytes") return new Uint8Array(value as Uint8Array);
  return value;
}

function identity(_field: protobuf.Field, value: unknown): unknown {
  return value;
}
