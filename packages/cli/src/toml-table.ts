import { toInt64 } from "@chainsim/protocol";
import { CliError } from "./errors.js";

const FIX_HINT = "Fix it in the manifest; networks/single.toml is a commented example";

/**
 * One table of a parsed TOML document, with readers that validate a key and, when it is wrong, fail with
 * an error naming the file and the full dotted key (`genesis.balance`), so users know exactly what to edit.
 */
export class TomlTable {
  constructor(
    readonly file: string,
    readonly path: string,
    readonly values: Record<string, unknown>,
  ) {}

  keyName(key: string): string {
    return this.path ? `${this.path}.${key}` : key;
  }

  fail(key: string, why: string, hint = FIX_HINT): never {
    throw new CliError(`${this.file}: ${this.keyName(key)} ${why}`, hint);
  }

  /** Rejects keys outside `allowed`: a misspelt key would otherwise be silently ignored. */
  allowOnly(allowed: readonly string[]): void {
    for (const key of Object.keys(this.values)) {
      if (!allowed.includes(key)) {
        this.fail(key, "is not a known key", `Known keys here: ${allowed.join(", ")}. ${FIX_HINT}`);
      }
    }
  }

  table(key: string): TomlTable | undefined {
    const value = this.values[key];
    if (value === undefined) return undefined;
    if (!isTable(value)) this.fail(key, `should be a table ([${this.keyName(key)}]), got ${describe(value)}`);
    return new TomlTable(this.file, this.keyName(key), value);
  }

  /** The sub-tables of this table in file order, e.g. the validators under [node.NAME]. */
  subTables(): TomlTable[] {
    return Object.keys(this.values).map((key) => this.table(key)!);
  }

  /** An array of tables ([[key]] entries), each named `key[i]` in errors; empty when absent. */
  tableArray(key: string): TomlTable[] {
    const value = this.values[key];
    if (value === undefined) return [];
    if (!Array.isArray(value) || !value.every(isTable)) this.fail(key, `should be a list of tables ([[${this.keyName(key)}]]), got ${describe(value)}`);
    return (value as Record<string, unknown>[]).map((item, i) => new TomlTable(this.file, `${this.keyName(key)}[${i}]`, item));
  }

  /** A number (integer or float) in [min, max]; undefined when absent. */
  number(key: string, min: number, max: number): number | undefined {
    const value = this.values[key];
    if (value === undefined) return undefined;
    const n = typeof value === "bigint" ? Number(value) : value;
    if (typeof n !== "number" || !Number.isFinite(n)) this.fail(key, `should be a number, got ${describe(value)}`);
    if (n < min || n > max) this.fail(key, `should be between ${min} and ${max}, got ${n}`);
    return n;
  }

  /** An array of non-empty strings; undefined when absent. */
  strings(key: string): string[] | undefined {
    const value = this.values[key];
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || !value.every((v) => typeof v === "string" && v.length > 0)) this.fail(key, `should be an array of names such as ["v2", "v3"], got ${describe(value)}`);
    return value as string[];
  }

  string(key: string): string | undefined {
    const value = this.values[key];
    if (value === undefined) return undefined;
    if (typeof value !== "string" || value.length === 0) this.fail(key, `should be a non-empty string, got ${describe(value)}`);
    return value;
  }

  /** An int64 given as a TOML integer (number or bigint) or a numeric string; `fallback` when absent. */
  int64(key: string, min: bigint, fallback?: bigint): bigint {
    const value = this.values[key];
    if (value === undefined) {
      if (fallback === undefined) this.fail(key, "is missing");
      return fallback;
    }
    let result: bigint;
    try {
      result = toInt64(value, this.keyName(key));
    } catch {
      const integral = typeof value === "bigint" || (typeof value === "string" && /^\s*-?\d+\s*$/.test(value));
      this.fail(key, integral ? `is ${String(value).trim()}, outside the int64 range` : `should be an integer, got ${describe(value)}`);
    }
    if (result < min) this.fail(key, `should be at least ${min}, got ${result}`);
    return result;
  }

  /** An integer in [min, max] that fits a JS number (counts, milliseconds, ports). */
  integer(key: string, min: number, max: number, fallback: number): number {
    const value = this.int64(key, BigInt(min), BigInt(fallback));
    if (value > BigInt(max)) this.fail(key, `should be at most ${max}, got ${value}`);
    return Number(value);
  }

  boolean(key: string, fallback: boolean): boolean {
    const value = this.values[key];
    if (value === undefined) return fallback;
    if (typeof value !== "boolean") this.fail(key, `should be true or false, got ${describe(value)}`);
    return value;
  }

  /** An array whose items all come from `allowed`; empty when absent. */
  choices<T extends string>(key: string, allowed: readonly T[]): T[] {
    const value = this.values[key];
    if (value === undefined) return [];
    if (!Array.isArray(value)) this.fail(key, `should be an array such as ["${allowed[0]}"], got ${describe(value)}`);
    for (const item of value) {
      if (!allowed.includes(item as T)) this.fail(key, `has ${describe(item)}; allowed values are ${allowed.map((a) => `"${a}"`).join(", ")}`);
    }
    return value as T[];
  }
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "bigint" || typeof value === "number" || typeof value === "boolean") return String(value);
  if (value instanceof Date) return "a date";
  return Array.isArray(value) ? "an array" : "a table";
}
