// Evaluated INSIDE the contract's isolate from its source text (`installUtils.toString()`): it must stay
// self-contained (no imports, no outside references, nothing TypeScript would need a helper for).
// Argument rules and messages: contract-runtime.md §5 and node-api.md "Contract runtime".

/** How Utils.* reaches the host. */
export interface UtilsBridge {
  /**
   * Counts one built-in call (its steps), and `units` of size-proportional work beyond it if given; may throw
   * the step-limit error, which propagates.
   */
  charge(units?: number): void;
  /** Runs a host crypto helper (`utilsCrypto`): JSON array of arguments in, JSON result out. */
  crypto(name: string, argsJson: string): string;
  /** Writes one line to the node's trace log. */
  log(text: string): void;
}

/**
 * Installs the global `Utils` (frozen, non-writable, non-configurable). Thrown built-in errors are plain
 * strings. Every call charges once, first, whatever its arguments.
 *
 * The intrinsics used at call time are captured here, before any contract code runs, and the parsing is
 * done with plain character comparisons, so a contract that patches prototypes (String.prototype.*,
 * RegExp.prototype.exec, Array.prototype.toJSON, JSON.stringify, …) cannot change what a built-in does
 * or what reaches the host. For the same reason the call-time code uses no destructuring, spread or
 * for-of (they go through Array.prototype[Symbol.iterator]).
 */
export function installUtils(global: any, bridge: UtilsBridge): void {
  const toText = String;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const isArray = Array.isArray;
  const apply = Reflect.apply;
  const slice = String.prototype.slice;

  const INT64_MAX = 9223372036854775807n;
  const INT64_MIN = -9223372036854775808n;
  /** "9223372036854775807".length - 8: an integer part longer than this always overflows toBaseUnit. */
  const BASE_UNIT_INT_DIGITS = 11;
  const HEX_TO_DEC_MAX_DIGITS = 1024;
  const MAX_COMMITMENTS = 100;

  // Character → digit value; null prototypes, so lookups never reach a prototype a contract could patch.
  const DEC: Record<string, bigint> = Object.create(null);
  const HEX: Record<string, bigint> = Object.create(null);
  // Literals: contracts have no BigInt global (bootstrap.ts), and this runs after it is gone.
  const VALUES = [0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n, 10n, 11n, 12n, 13n, 14n, 15n];
  for (let i = 0; i < 16; i++) {
    const lower = "0123456789abcdef"[i]!;
    const upper = "0123456789ABCDEF"[i]!;
    HEX[lower] = VALUES[i]!;
    HEX[upper] = VALUES[i]!;
    if (i < 10) DEC[lower] = VALUES[i]!;
  }

  const sub = (s: string, from: number, to: number): string => apply(slice, s, [from, to]);

  /** The value of a canonical int64 decimal ("-5", "0"; not "+5", "05", "5.0", "-0", " 5"), else undefined. */
  const parseInt64 = (s: string): bigint | undefined => {
    const n = s.length;
    let i = 0;
    let negative = false;
    if (n > 0 && s[0] === "-") {
      negative = true;
      i = 1;
    }
    if (i === n || n - i > 19) return undefined;
    if (s[i] === "0" && (negative || n - i > 1)) return undefined;
    let v = 0n;
    for (; i < n; i++) {
      const d = DEC[s[i]];
      if (d === undefined) return undefined;
      v = v * 10n + d;
    }
    if (negative) v = -v;
    return v < INT64_MIN || v > INT64_MAX ? undefined : v;
  };

  /** A string, or a Number whose string form is canonical (the family converts Numbers with ToString). */
  const int64Arg = (v: unknown): bigint | undefined =>
    typeof v === "string" ? parseInt64(v) : typeof v === "number" ? parseInt64(toText(v)) : undefined;

  const inRange = (v: bigint) => v >= INT64_MIN && v <= INT64_MAX;

  /** The shared body of int64Add/Sub/Mul/Div/Mod/Compare. */
  const int64 = <T>(name: string, args: unknown[], op: (a: bigint, b: bigint) => T): T => {
    bridge.charge();
    if (args.length !== 2) throw "Parameter number error";
    const a = int64Arg(args[0]);
    if (a === undefined) throw "Contract execution error, " + name + ", parameter 0 illegal, maybe exceed the limit value of int64.";
    const b = int64Arg(args[1]);
    if (b === undefined) throw "Contract execution error, " + name + ", parameter 1 illegal, maybe exceed the limit value of int64.";
    return op(a, b);
  };
  const checked = (name: string, sign: string, v: bigint): string => {
    if (!inRange(v)) throw "Contract execution error, " + name + ", parameter 0 " + sign + " parameter 1 overflowed";
    return "" + v;
  };
  const nonNegative = (a: bigint, b: bigint) => {
    if (b <= 0n || a < 0n) throw "Parameter arg <= 0";
  };

  /** Data type of sha256 / ecVerify: a Number 0 (hex), 1 (raw) or 2 (base64); undefined when invalid. */
  const dataType = (v: unknown): number | undefined => {
    if (typeof v !== "number") return undefined;
    const s = toText(v);
    return s === "0" ? 0 : s === "1" ? 1 : s === "2" ? 2 : undefined;
  };

  /** Calls a host helper with primitive arguments (JSON.stringify of a primitive never consults toJSON). */
  const host = (name: string, args: (string | number)[]): unknown => {
    let json = "[";
    for (let i = 0; i < args.length; i++) json += (i === 0 ? "" : ",") + stringify(args[i]);
    const raw = bridge.crypto(name, json + "]");
    return typeof raw === "string" ? parse(raw) : false;
  };
  const hostBoolean = (name: string, args: (string | number)[]): boolean => host(name, args) === true;

  /** pedersenTallyVerify's commitment lists: a JSON array string, or an array of strings (JSON-encoded here). */
  const commitmentList = (v: unknown): string | undefined => {
    if (typeof v === "string") return v;
    if (!isArray(v)) return undefined;
    const list = v as unknown[];
    const n = list.length;
    if (typeof n !== "number" || n > MAX_COMMITMENTS) return undefined;
    let json = "[";
    for (let i = 0; i < n; i++) {
      const item = list[i];
      if (typeof item !== "string") return undefined;
      json += (i === 0 ? "" : ",") + stringify(item);
    }
    return json + "]";
  };

  const describe = (v: unknown): string => (typeof v === "string" ? v : toText(v));

  const utils: Record<string, unknown> = {
    log(...args: unknown[]): boolean | undefined {
      bridge.charge();
      if (args.length < 1) return false;
      bridge.log(describe(args[0]));
      return undefined;
    },

    stoI64Check(...args: unknown[]): boolean {
      bridge.charge();
      return args.length === 1 && typeof args[0] === "string" && parseInt64(args[0]) !== undefined;
    },

    int64Add(...args: unknown[]): string {
      return int64("int64Add", args, (a, b) => checked("int64Add", "+", a + b));
    },
    int64Sub(...args: unknown[]): string {
      return int64("int64Sub", args, (a, b) => checked("int64Sub", "-", a - b));
    },
    int64Mul(...args: unknown[]): string {
      return int64("int64Mul", args, (a, b) => checked("int64Mul", "*", a * b));
    },
    int64Div(...args: unknown[]): string {
      return int64("int64Div", args, (a, b) => {
        nonNegative(a, b);
        return "" + a / b;
      });
    },
    int64Mod(...args: unknown[]): string {
      return int64("int64Mod", args, (a, b) => {
        nonNegative(a, b);
        return "" + (a % b);
      });
    },
    int64Compare(...args: unknown[]): number {
      return int64("int64Compare", args, (a, b) => (a > b ? 1 : a === b ? 0 : -1));
    },

    assert(...args: unknown[]): boolean {
      bridge.charge();
      if (args.length < 1 || args.length > 2) throw "Assertion exception occurred,parameter nums error";
      if (typeof args[0] !== "boolean") throw "Assertion exception occurred,parameter 0 should be boolean";
      if (args.length === 2 && typeof args[1] !== "string") throw "Assertion exception occurred,parameter 1 should be string";
      if (args[0]) return true;
      throw args.length === 2 ? args[1] : "Assertion exception occurred";
    },

    // Decimal with at most 8 decimals, no sign, no superfluous leading zero ("0.5", ".5", "0" are fine;
    // "05", "5.", ".", "+5", "1e3" are not), times 10^8.
    toBaseUnit(...args: unknown[]): string {
      const s = args[0];
      // The scan below is this file's own loop, about 4 ns a code unit, so four units each: a 4 Mi-unit
      // string was 16 ms for the call's flat price and a budget of them reached the clock (twenty-third review).
      bridge.charge(typeof s === "string" ? 4 * s.length : 0);
      if (args.length !== 1) throw "Parameter number error:" + args.length;
      if (typeof s !== "string") throw "contract execution error, toBaseUnit, parameter 0 should be a String";
      const n = s.length;
      let dot = -1;
      for (let i = 0; i < n; i++) {
        const c = s[i];
        if (c === ".") {
          if (dot >= 0) throw "Not a decimal number:" + s;
          dot = i;
        } else if (DEC[c] === undefined) throw "Not a decimal number:" + s;
      }
      const intDigits = dot < 0 ? n : dot;
      const fracDigits = dot < 0 ? 0 : n - dot - 1;
      if (n === 0 || (dot >= 0 && fracDigits === 0) || fracDigits > 8 || (s[0] === "0" && intDigits > 1)) {
        throw "Not a decimal number:" + s;
      }
      let padding = "";
      for (let i = fracDigits; i < 8; i++) padding += "0";
      if (intDigits > BASE_UNIT_INT_DIGITS) {
        throw "CallBackToBaseUnit error, int64 overflow:" + sub(s, 0, intDigits) + (dot < 0 ? "" : sub(s, dot + 1, n)) + padding;
      }
      let v = 0n;
      for (let i = 0; i < n; i++) if (i !== dot) v = v * 10n + DEC[s[i]];
      for (let i = fracDigits; i < 8; i++) v *= 10n;
      if (v > INT64_MAX) throw "CallBackToBaseUnit error, int64 overflow:" + v;
      return "" + v;
    },

    // Hex (optional 0x / 0X, at most 1024 digits, leading zeros allowed) to decimal; false on bad input.
    HexToDec(...args: unknown[]): string | false {
      bridge.charge();
      if (args.length !== 1 || typeof args[0] !== "string") return false;
      const s = args[0];
      const n = s.length;
      const start = n >= 2 && s[0] === "0" && (s[1] === "x" || s[1] === "X") ? 2 : 0;
      if (n === start || n - start > HEX_TO_DEC_MAX_DIGITS) return false;
      let v = 0n;
      for (let i = start; i < n; i++) {
        const d = HEX[s[i]];
        if (d === undefined) return false;
        v = v * 16n + d;
      }
      return "" + v;
    },

    sha256(...args: unknown[]): string | false {
      bridge.charge();
      if (args.length !== 1 && args.length !== 2) return false;
      const type = args.length === 2 ? dataType(args[1]) : 0;
      if (typeof args[0] !== "string" || type === undefined) return false;
      const hash = host("sha256", [args[0], type]);
      return typeof hash === "string" ? hash : false;
    },

    ecVerify(...args: unknown[]): boolean {
      bridge.charge();
      if (args.length !== 3 && args.length !== 4) return false;
      const type = args.length === 4 ? dataType(args[3]) : 0;
      const signature = args[0];
      const publicKey = args[1];
      const blob = args[2];
      if (typeof signature !== "string" || typeof publicKey !== "string" || typeof blob !== "string" || type === undefined) return false;
      return hostBoolean("ecVerify", [signature, publicKey, blob, type]);
    },

    addressCheck(...args: unknown[]): boolean {
      bridge.charge();
      if (args.length !== 1 || typeof args[0] !== "string") return false;
      return hostBoolean("addressCheck", [args[0]]);
    },

    toAddress(...args: unknown[]): string | false {
      bridge.charge();
      if (args.length !== 1 || typeof args[0] !== "string" || args[0].length === 0) return false;
      const address = host("toAddress", [args[0]]);
      return typeof address === "string" ? address : false;
    },

    bpRangeProofVerify(...args: unknown[]): boolean {
      bridge.charge();
      if (args.length !== 2 || typeof args[0] !== "string" || typeof args[1] !== "string") return false;
      return hostBoolean("bpRangeProofVerify", [args[0], args[1]]);
    },

    pedersenTallyVerify(...args: unknown[]): boolean {
      bridge.charge();
      if (args.length !== 4) return false;
      const inputs = commitmentList(args[0]);
      const outputs = commitmentList(args[1]);
      const message = args[2];
      const signature = args[3];
      if (inputs === undefined || outputs === undefined || typeof message !== "string" || typeof signature !== "string") return false;
      return hostBoolean("pedersenTallyVerify", [inputs, outputs, message, signature]);
    },
  };
  utils.hexToDec = utils.HexToDec;

  for (const key of Object.keys(utils)) Object.freeze(utils[key]);
  Object.defineProperty(global, "Utils", { value: Object.freeze(utils), writable: false, configurable: false, enumerable: false });
}
