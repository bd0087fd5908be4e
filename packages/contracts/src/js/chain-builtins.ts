// Evaluated INSIDE the contract's isolate from its source text (`installChain.toString()`): it must stay
// self-contained (no imports, no outside references). Argument rules and messages: contract-runtime.md §5.

/** How Chain.* reaches the host: `charge` counts a built-in's steps, `call` runs a host operation. */
export interface ChainBridge {
  charge(): void;
  /** Resolves the host operation; throws a plain string (catchable) when it fails. */
  call(name: string, args: unknown[]): unknown;
  /** UTF-8 length, as the family's limits count keys and values. */
  utf8Length(text: string): number;
}

export function installChain(global: any, bridge: ChainBridge, env: any, readOnly: boolean): void {
  const INT64_MAX = "9223372036854775807";
  const isString = (v: unknown): v is string => typeof v === "string";
  const bytes = bridge.utf8Length;
  /** Amounts are never negative: `min` is 0 or 1. Compared as digits (contracts have no BigInt, docs/contracts.md §13). */
  const canonicalAmount = (v: unknown, min: 0 | 1): boolean => {
    if (!isString(v) || !/^(0|[1-9][0-9]*)$/.test(v)) return false;
    if (min === 1 && v === "0") return false;
    return v.length < INT64_MAX.length || (v.length === INT64_MAX.length && v <= INT64_MAX);
  };
  const stringify = (v: unknown) => (isString(v) ? v : typeof v === "object" ? JSON.stringify(v) : String(v));
  /** A read built-in: bad arguments give false, never an exception. */
  const read = (name: string, valid: (args: unknown[]) => boolean) =>
    function (...args: unknown[]) {
      bridge.charge();
      return valid(args) ? bridge.call(name, args) : false;
    };
  /** A write built-in: bad arguments throw "<name>: parameter i …". */
  const write = (name: string, check: (args: unknown[]) => void) =>
    function (...args: unknown[]) {
      bridge.charge();
      check(args);
      return bridge.call(name, args);
    };
  const fail = (name: string, message: string): never => {
    throw `Chain.${name}: ${message}`;
  };
  const needStrings = (name: string, args: unknown[], from: number, to: number) => {
    for (let i = from; i < to; i++) if (!isString(args[i])) fail(name, `parameter ${i} should be a string`);
  };
  const needCount = (name: string, args: unknown[], min: number, max: number) => {
    if (args.length < min || args.length > max) fail(name, "Parameter number error");
  };
  const needAmount = (name: string, args: unknown[], i: number, min: 0 | 1) => {
    if (!canonicalAmount(args[i], min)) fail(name, `parameter ${i} should be a canonical int64 string ≥ ${min}`);
  };
  const needAssetCode = (name: string, args: unknown[], i: number) => {
    if ((args[i] as string).length < 1 || (args[i] as string).length > 64) fail(name, `parameter ${i} should have 1 to 64 characters`);
  };
  /** Optional input at `i` and metadata at `i + 1`, both stringified; metadata needs input (node-api.md). */
  const optionalInputAndMetadata = (name: string, args: unknown[], i: number) => {
    if (args.length > i + 1 && args[i] === undefined) fail(name, `parameter ${i} (input) must be given with metadata; an empty string is allowed`);
    if (args.length > i) args[i] = stringify(args[i]);
    if (args.length > i + 1) args[i + 1] = stringify(args[i + 1]);
  };
  /**
   * An asset key `{issuer, code}` of two strings, copied into a plain object of its own; else undefined. Each
   * field is read once: a getter answering a string to the check could answer something else to the encoding.
   */
  const assetKey = (v: any): { issuer: string; code: string } | undefined => {
    if (v === null || typeof v !== "object") return undefined;
    const issuer = v.issuer;
    const code = v.code;
    return isString(issuer) && isString(code) ? { issuer, code } : undefined;
  };
  /** Checks that args[i] is an asset key and puts its plain copy in its place. */
  const takeAssetKey = (args: unknown[], i: number): boolean => {
    const key = assetKey(args[i]);
    if (key) args[i] = key;
    return key !== undefined;
  };
  /** contractQuery / delegateQuery never throw: `{result}` or `{error: true}`. */
  const query = (name: string) =>
    function (address: unknown, input: unknown) {
      bridge.charge();
      if (!isString(address) || !isString(input)) return { error: true };
      return bridge.call(name, [address, input]);
    };

  const chain: Record<string, unknown> = {
    load: read("load", (a) => a.length === 1 && isString(a[0])),
    getBlockHash: read("getBlockHash", (a) => typeof a[0] === "number" && Number.isInteger(a[0]) && a[0] >= 0 && a[0] < 1024),
    getAccountMetadata: read("getAccountMetadata", (a) => isString(a[0]) && isString(a[1])),
    getBalance: read("getBalance", (a) => isString(a[0])),
    getAccountAsset: read("getAccountAsset", (a) => isString(a[0]) && takeAssetKey(a, 1)),
    getAccountPrivilege: read("getAccountPrivilege", (a) => isString(a[0])),
    getContractProperty: read("getContractProperty", (a) => isString(a[0])),
    contractQuery: query("contractQuery"),
    delegateQuery: query("delegateQuery"),
    block: Object.freeze({ ...env.block }),
    tx: Object.freeze({ ...env.tx }),
    msg: Object.freeze({ ...env.msg, ...(env.msg.asset ? { asset: Object.freeze({ amount: env.msg.asset.amount, key: Object.freeze({ ...env.msg.asset.key }) }) } : {}) }),
    thisAddress: env.thisAddress,
  };
  if (!readOnly) {
    Object.assign(chain, {
      store: write("store", (a) => {
        if (a.length !== 2) throw "Parameter number error";
        if (!isString(a[0]) || !isString(a[1])) throw "Storage operation parameter should be string";
        if (a[0].length === 0) throw "Key is empty.";
        // A string has at least as many UTF-8 bytes as code units: one too long is refused before it is copied.
        const k = a[0].length > 1024 ? a[0].length : bytes(a[0]);
        const v = a[1].length > 262144 ? a[1].length : bytes(a[1]);
        if (k < 1 || k > 1024) throw `Length of the key should be between [1, 1024]. key=${a[0].slice(0, 32)}…, length=${k}`;
        if (v > 262144) throw `Length of the value should be between [0, 262144]. key=${a[0].slice(0, 32)}…, length=${v}`;
      }),
      del: write("del", (a) => {
        if (a.length !== 1) throw "Parameter number error";
        if (!isString(a[0])) throw "Storage operation parameter should be string";
        if (a[0].length === 0) throw "Key is empty.";
      }),
      tlog: write("tlog", (a) => {
        needCount("tlog", a, 2, 6);
        if (!isString(a[0]) || a[0].length > 128 || bytes(a[0]) < 1 || bytes(a[0]) > 128) fail("tlog", "parameter 0 should be a string of length (0, 128]");
        for (let i = 1; i < a.length; i++) {
          const t = typeof a[i];
          if (t !== "string" && t !== "number" && t !== "boolean") fail("tlog", `parameter ${i} should be a string, number or boolean`);
          // Stringified here, as measured: JSON would carry NaN and ±Infinity to the host as null.
          a[i] = String(a[i]);
          const n = (a[i] as string).length > 1024 ? (a[i] as string).length : bytes(a[i] as string);
          if (n < 1 || n > 1024) fail("tlog", `parameter ${i} should have a length in (0, 1024]`);
        }
      }),
      payCoin: write("payCoin", (a) => {
        needCount("payCoin", a, 2, 4);
        needStrings("payCoin", a, 0, 1);
        needAmount("payCoin", a, 1, 0);
        optionalInputAndMetadata("payCoin", a, 2);
      }),
      issueAsset: write("issueAsset", (a) => {
        needCount("issueAsset", a, 2, 2);
        needStrings("issueAsset", a, 0, 1);
        needAssetCode("issueAsset", a, 0);
        needAmount("issueAsset", a, 1, 1);
      }),
      payAsset: write("payAsset", (a) => {
        needCount("payAsset", a, 4, 6);
        needStrings("payAsset", a, 0, 3);
        needAssetCode("payAsset", a, 2);
        needAmount("payAsset", a, 3, 1);
        optionalInputAndMetadata("payAsset", a, 4);
      }),
      delegateCall: write("delegateCall", (a) => {
        needCount("delegateCall", a, 2, 2);
        needStrings("delegateCall", a, 0, 2);
      }),
      contractCall: write("contractCall", (a) => {
        needCount("contractCall", a, 4, 4);
        needStrings("contractCall", a, 0, 1);
        if (a[1] !== true && !takeAssetKey(a, 1)) fail("contractCall", "parameter 1 should be true (coin) or an asset key {issuer, code}");
        needAmount("contractCall", a, 2, 0);
        needStrings("contractCall", a, 3, 4);
      }),
      contractCreate: write("contractCreate", (a) => {
        needCount("contractCreate", a, 4, 4);
        needAmount("contractCreate", a, 0, 0);
        if (a[1] !== 0) fail("contractCreate", "parameter 1 should be the Number 0 (JavaScript)");
        needStrings("contractCreate", a, 2, 4);
      }),
    });
  }
  for (const key of Object.keys(chain)) {
    const value = chain[key];
    if (typeof value === "function") Object.defineProperty(value, "name", { value: key });
  }
  Object.defineProperty(global, "Chain", { value: Object.freeze(chain), writable: false, configurable: false, enumerable: false });
}
