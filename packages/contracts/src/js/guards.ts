// Evaluated INSIDE each isolate from its source text (`installGuards.toString()`), in strict mode, before any
// contract code: self-contained, no outside references. What is charged, and why: docs/contracts.md §13.

/** The meter of bootstrap.ts, as the guards see it. `charge`, `alloc`, `push` and `fatal` end the run on a limit. */
export interface GuardMeter {
  charge(steps: number): void;
  alloc(bytes: number): void;
  push(bytes: number): number;
  pop<T>(token: number, value: T): T;
  fatal(reason: string): never;
}

export interface GuardLimits {
  /** Longest string a contract may make (UTF-16 code units). */
  maxStringLength: number;
  /** Units of size-proportional work (code units, elements, bytes) per step. */
  unit: number;
}

export interface Guards {
  /** Builds every regular expression of a contract (literals too): on V8's linear-time engine. */
  makeRegExp(source: string, flags: string): RegExp;
}

/**
 * Replaces the built-ins whose work or allocation grows with their input by wrappers that charge steps and
 * memory by size before the work is done, and the ones V8 would recurse through natively (joining nested
 * arrays, JSON.stringify, flat, chains of proxies or bound functions) by code that holds a stack-model frame
 * per level. Wrappers keep the original's name, length and property attributes; Function.prototype.toString
 * (bootstrap.ts) shows them as native. Everything used at call time is captured here: contract code may
 * replace globals and poison prototypes afterwards.
 */
export function installGuards(global: any, meter: GuardMeter, limits: GuardLimits): Guards {
  const apply = Reflect.apply;
  const construct = Reflect.construct;
  const defineProperty = Object.defineProperty;
  const getOwnPropertyDescriptor = Reflect.getOwnPropertyDescriptor;
  const ownKeys = Reflect.ownKeys;
  const isArray = Array.isArray;
  const toText = String;
  const toNumber = Number;
  const toObject = Object;
  const setPrototypeOf = Object.setPrototypeOf;
  const getPrototypeOf = Object.getPrototypeOf;
  const NumberCtor = global.Number as Function;
  const StringCtor = global.String as Function;
  const BooleanCtor = global.Boolean as Function;
  const BigIntCtor = global.BigInt as Function;
  /** An array no prototype setter can observe: our own working lists. */
  const list = <T>(): T[] => setPrototypeOf([], null) as T[];
  const stringSlice = String.prototype.slice;
  const nativeStringify = JSON.stringify;
  const NativeRegExp = RegExp;
  const WeakMapCtor = WeakMap;
  const weakGet = WeakMap.prototype.get;
  const weakSet = WeakMap.prototype.set;
  const weakHas = WeakMap.prototype.has;
  const SetCtor = Set;
  const setHas = Set.prototype.has;
  const setAdd = Set.prototype.add;
  const setDelete = Set.prototype.delete;
  const MEMORY_LIMIT = "Memory exceeding limit";
  const STACK_LIMIT = "Stack exceeding limit";
  /** Frame held by guarded code for each level it recurses through (larger than a native builtin frame). */
  const LEVEL_FRAME = 256;
  /** Chains of proxies or bound functions deeper than this are refused (V8 walks them recursively). */
  const MAX_CHAIN = 64;
  const MAX_ARGUMENTS = 65536;
  const MAX_PATTERN = 4096;

  const work = (units: number) => {
    if (units >= limits.unit) meter.charge((units - (units % limits.unit)) / limits.unit + 1);
  };
  /** A string of `length` code units is about to be made. */
  const makesString = (length: number) => {
    if (length > limits.maxStringLength) meter.fatal(MEMORY_LIMIT);
    if (length >= 1024) meter.alloc(2 * length);
    work(length);
  };
  /** An array of `length` elements is about to be made or filled. */
  const makesElements = (length: number) => {
    if (!(length >= 0)) return;
    if (length > 1e9) meter.fatal(MEMORY_LIMIT);
    meter.alloc(8 * length);
    work(length);
  };
  const lengthOf = (value: unknown): number => {
    if (typeof value === "string") return value.length;
    if (value === null || (typeof value !== "object" && typeof value !== "function")) return 0;
    const n = toNumber((value as { length?: unknown }).length);
    return n > 0 ? (n < 2 ** 53 ? n - (n % 1) : 2 ** 53) : 0;
  };
  const integer = (value: unknown): number => {
    const n = toNumber(value);
    if (n !== n) return 0;
    if (n === Infinity || n === -Infinity) return n;
    return n - (n % 1);
  };
  /** ToString of a String method's receiver, done once here so the native method does not repeat it. */
  const receiverText = (receiver: unknown, name: string): string => {
    if (receiver === null || receiver === undefined) throw new TypeError(`String.prototype.${name} called on null or undefined`);
    return typeof receiver === "string" ? receiver : toText(receiver);
  };

  /** Replaces `owner[name]` with `make(original)`, keeping the property's attributes, name and length. */
  const replace = (owner: any, name: string | symbol, make: (original: Function) => Function) => {
    const descriptor = getOwnPropertyDescriptor(owner, name);
    if (!descriptor || typeof descriptor.value !== "function") return;
    const original = descriptor.value as Function;
    const wrapper = make(original);
    defineProperty(wrapper, "name", { value: original.name, configurable: true });
    defineProperty(wrapper, "length", { value: original.length, configurable: true });
    defineProperty(owner, name, { value: wrapper, writable: descriptor.writable, enumerable: descriptor.enumerable, configurable: descriptor.configurable });
  };
  /** A method that charges `cost(this, args)` before the original runs. */
  const charged = (owner: any, name: string | symbol, cost: (receiver: any, args: any[]) => void) =>
    replace(owner, name, (original) => ({
      method(this: unknown, ...args: unknown[]) {
        cost(this, args);
        return apply(original, this, args);
      },
    }).method);

  // ---- strings -------------------------------------------------------------------------------------
  const StringProto = global.String.prototype;
  /** String methods whose result is at most as long as the receiver: charged by the receiver's length. */
  for (const name of ["indexOf", "lastIndexOf", "includes", "startsWith", "endsWith", "slice", "substring", "substr", "trim", "trimStart", "trimEnd", "toUpperCase", "toLowerCase", "normalize", "codePointAt", "at", "charAt", "charCodeAt", "isWellFormed", "toWellFormed"]) {
    replace(StringProto, name, (original) => ({
      method(this: unknown, ...args: unknown[]) {
        const text = receiverText(this, name);
        work(text.length);
        return apply(original, text, args);
      },
    }).method);
  }
  replace(StringProto, "repeat", (original) => ({
    method(this: unknown, count: unknown) {
      const text = receiverText(this, "repeat");
      const n = integer(count);
      if (n >= 0 && n !== Infinity) makesString(text.length * n);
      return apply(original, text, [n]);
    },
  }).method);
  for (const name of ["padStart", "padEnd"]) {
    replace(StringProto, name, (original) => ({
      method(this: unknown, maxLength: unknown, fill?: unknown) {
        const text = receiverText(this, name);
        const n = integer(maxLength);
        const filler = fill === undefined ? undefined : toText(fill);
        if (n > text.length) makesString(n);
        return apply(original, text, filler === undefined ? [n] : [n, filler]);
      },
    }).method);
  }
  replace(StringProto, "concat", (original) => ({
    method(this: unknown, ...parts: unknown[]) {
      const text = receiverText(this, "concat");
      let length = text.length;
      const texts = list<string>();
      for (let i = 0; i < parts.length; i++) {
        const part = toText(parts[i]);
        texts[i] = part;
        length += part.length;
      }
      makesString(length);
      return apply(original, text, texts);
    },
  }).method);
  // match, matchAll and search make a RegExp of a pattern given as a string with V8's own constructor, which
  // would backtrack: they get one from the guarded constructor (the linear-time engine) instead.
  const patternSymbols: Record<string, symbol> = { match: Symbol.match, matchAll: Symbol.matchAll, search: Symbol.search };
  for (const name of ["split", "replace", "replaceAll", "match", "matchAll", "search", "localeCompare"]) {
    const symbol = patternSymbols[name];
    replace(StringProto, name, (original) => ({
      method(this: unknown, ...args: unknown[]) {
        if (symbol !== undefined) {
          const pattern = args[0];
          const own = pattern !== null && (typeof pattern === "object" || typeof pattern === "function") ? (pattern as Record<symbol, unknown>)[symbol] : undefined;
          if (own === undefined || own === null) args[0] = makeRegExp(pattern, name === "matchAll" ? "g" : undefined);
        }
        if (typeof this === "string") work(this.length);
        const result = apply(original, this, args);
        if (typeof result === "string") makesString(result.length);
        else if (isArray(result)) makesElements(result.length);
        return result;
      },
    }).method);
  }
  for (const name of ["fromCharCode", "fromCodePoint"]) charged(global.String, name, (_r, args) => makesString(2 * args.length));
  charged(global.String, "raw", (_r, args) => work(lengthOf(args[0]) + args.length));

  // ---- regular expressions: the linear-time engine, charged by input ---------------------------------
  const patternLength = new WeakMapCtor<object, number>();
  const flagsOf = new WeakMapCtor<object, string>();
  /**
   * V8's linear-time engine scans about 5 to 10 MB/s here, slower with longer patterns: a step per 64
   * characters scanned × (1 + pattern length / 8), so a whole budget of matching takes well under 100 ms.
   * A global or sticky search scans from lastIndex.
   */
  const regExpCost = (regexp: unknown, input: unknown) => {
    if (regexp === null || typeof regexp !== "object") return;
    const factor = 1 + ((apply(weakGet, patternLength, [regexp]) as number | undefined) ?? 0) / 8;
    const from = getOwnPropertyDescriptor(regexp, "lastIndex")?.value;
    const length = typeof input === "string" ? input.length : lengthOf(input);
    const scanned = typeof from === "number" && from > 0 && from < length ? length - from : length;
    const steps = (scanned * factor) / 64;
    if (steps >= 1) meter.charge(steps - (steps % 1) + 1);
  };
  const makeRegExp = (source: unknown, flags?: unknown, newTarget?: Function): RegExp => {
    const pattern = source === undefined ? "(?:)" : toText(source);
    const wanted = flags === undefined ? "" : toText(flags);
    if (pattern.length > MAX_PATTERN) throw new SyntaxError(`Invalid regular expression: longer than ${MAX_PATTERN} characters`);
    work(pattern.length);
    // V8 rejects what needs backtracking (backreferences, lookarounds) with "Cannot be executed in linear time".
    const regexp = construct(NativeRegExp, [pattern, wanted + "l"], newTarget ?? GuardedRegExp);
    apply(weakSet, patternLength, [regexp, pattern.length]);
    apply(weakSet, flagsOf, [regexp, wanted]);
    return regexp;
  };
  const GuardedRegExp = function RegExp(this: unknown, pattern: unknown, flags?: unknown) {
    if (pattern !== null && typeof pattern === "object" && apply(weakHas, patternLength, [pattern])) {
      const from = pattern as RegExp;
      return makeRegExp(from.source, flags === undefined ? apply(weakGet, flagsOf, [from]) : flags, new.target);
    }
    return makeRegExp(pattern, flags, new.target);
  } as unknown as RegExpConstructor;
  const RegExpProto = NativeRegExp.prototype;
  defineProperty(GuardedRegExp, "prototype", { value: RegExpProto, writable: false, enumerable: false, configurable: false });
  defineProperty(RegExpProto, "constructor", { value: GuardedRegExp, writable: true, enumerable: false, configurable: true });
  defineProperty(GuardedRegExp, "length", { value: 2, configurable: true });
  for (const key of ownKeys(NativeRegExp)) {
    if (key === "prototype" || key === "length" || key === "name") continue;
    defineProperty(GuardedRegExp, key, getOwnPropertyDescriptor(NativeRegExp, key)!);
  }
  defineProperty(global, "RegExp", { value: GuardedRegExp, writable: true, enumerable: false, configurable: true });
  delete (RegExpProto as { linear?: unknown }).linear; // would reveal the engine flag
  // The `l` the engine needs stays hidden: a contract sees the flags it asked for.
  const flagsGetter = getOwnPropertyDescriptor(RegExpProto, "flags")!.get!;
  defineProperty(RegExpProto, "flags", {
    get: {
      flags(this: unknown) {
        const own = this !== null && typeof this === "object" ? apply(weakGet, flagsOf, [this]) : undefined;
        return own !== undefined ? own : apply(flagsGetter, this, []);
      },
    }.flags,
    enumerable: false,
    configurable: true,
  });
  defineProperty(getOwnPropertyDescriptor(RegExpProto, "flags")!.get!, "name", { value: "get flags" });
  for (const name of ["exec", "test"]) charged(RegExpProto, name, (regexp, args) => regExpCost(regexp, args[0]));
  for (const symbol of [Symbol.match, Symbol.matchAll, Symbol.replace, Symbol.search, Symbol.split]) {
    charged(RegExpProto, symbol, (regexp, args) => regExpCost(regexp, args[0]));
  }
  replace(RegExpProto, "toString", () => ({
    toString(this: any) {
      return `/${toText(this.source)}/${toText(this.flags)}`;
    },
  }).toString);
  replace(RegExpProto, "compile", () => ({
    compile() {
      throw new TypeError("RegExp.prototype.compile is not supported in contracts");
    },
  }).compile);

  // ---- arrays -----------------------------------------------------------------------------------------
  const NativeArray = global.Array;
  const ArrayProto = NativeArray.prototype;
  const GuardedArray = function Array(this: unknown, ...items: unknown[]) {
    if (items.length === 1 && typeof items[0] === "number") makesElements(items[0]);
    return construct(NativeArray, items, new.target ?? GuardedArray);
  } as unknown as ArrayConstructor;
  defineProperty(GuardedArray, "prototype", { value: ArrayProto, writable: false, enumerable: false, configurable: false });
  for (const key of ownKeys(NativeArray)) {
    if (key === "prototype" || key === "name") continue;
    defineProperty(GuardedArray, key, getOwnPropertyDescriptor(NativeArray, key)!);
  }
  defineProperty(ArrayProto, "constructor", { value: GuardedArray, writable: true, enumerable: false, configurable: true });
  defineProperty(global, "Array", { value: GuardedArray, writable: true, enumerable: false, configurable: true });
  charged(GuardedArray, "from", (_r, args) => makesElements(lengthOf(args[0])));
  charged(ArrayProto, "fill", (array, args) => {
    const length = lengthOf(array);
    const start = args[1] === undefined ? 0 : integer(args[1]);
    const end = args[2] === undefined ? length : integer(args[2]);
    const from = start < 0 ? Math_max(length + start, 0) : Math_min(start, length);
    const to = end < 0 ? Math_max(length + end, 0) : Math_min(end, length);
    if (to > from) makesElements(to - from);
  });
  charged(ArrayProto, "concat", (array, args) => {
    let total = lengthOf(array);
    for (let i = 0; i < args.length; i++) total += isArray(args[i]) ? lengthOf(args[i]) : 1;
    makesElements(total);
  });
  for (const name of ["slice", "splice", "map", "filter", "reverse", "toReversed", "toSpliced", "with", "copyWithin", "flatMap", "indexOf", "lastIndexOf", "includes", "find", "findIndex", "findLast", "findLastIndex", "every", "some", "forEach", "reduce", "reduceRight", "keys", "values", "entries"]) {
    charged(ArrayProto, name, (array) => makesElements(lengthOf(array)));
  }
  for (const name of ["sort", "toSorted"]) {
    charged(ArrayProto, name, (array) => {
      const n = lengthOf(array);
      let log = 1;
      for (let m = n; m > 1; m = (m - (m % 2)) / 2) log++;
      makesElements(n);
      work(n * log);
    });
  }
  for (const name of ["push", "unshift"]) charged(ArrayProto, name, (_array, args) => makesElements(args.length));

  // join (and so toString, which calls this.join) in JavaScript: V8's own recursion through nested arrays
  // has no contract frame; this one holds a frame per level. A cycle joins as "", as in V8.
  const joining = new SetCtor<object>();
  replace(ArrayProto, "join", () => ({
    join(this: unknown, separator?: unknown) {
      if (this === null || this === undefined) throw new TypeError("Array.prototype.join called on null or undefined");
      const array = toObject(this) as Record<number, unknown>;
      const length = lengthOf(array);
      const glue = separator === undefined ? "," : toText(separator);
      if (apply(setHas, joining, [array])) return "";
      const token = meter.push(LEVEL_FRAME);
      apply(setAdd, joining, [array]);
      try {
        work(length);
        let out = "";
        for (let i = 0; i < length; i++) {
          if (i > 0) out += glue;
          const element = array[i];
          if (element !== undefined && element !== null) out += toText(element);
          if (out.length > limits.maxStringLength) meter.fatal(MEMORY_LIMIT);
        }
        makesString(out.length);
        return out;
      } finally {
        apply(setDelete, joining, [array]);
        meter.pop(token, undefined);
      }
    },
  }).join);
  // flat in JavaScript for the same reason (V8 flattens recursively).
  replace(ArrayProto, "flat", () => ({
    flat(this: unknown, depth?: unknown) {
      if (this === null || this === undefined) throw new TypeError("Array.prototype.flat called on null or undefined");
      const levels = depth === undefined ? 1 : integer(depth);
      const out: unknown[] = [];
      let n = 0;
      const into = (source: any, left: number) => {
        const length = lengthOf(source);
        makesElements(length);
        for (let i = 0; i < length; i++) {
          if (!(i in source)) continue;
          const element = source[i];
          if (left > 0 && isArray(element)) {
            const token = meter.push(LEVEL_FRAME);
            into(element, left - 1);
            meter.pop(token, undefined);
          } else {
            defineProperty(out, n++, { value: element, writable: true, enumerable: true, configurable: true });
          }
        }
      };
      into(toObject(this), levels);
      return out;
    },
  }).flat);

  // ---- binary data --------------------------------------------------------------------------------
  const guardConstructor = (name: string, bytes: (args: unknown[], perElement: number) => number) => {
    const Native = global[name];
    if (typeof Native !== "function") return;
    const perElement = (Native as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT ?? 1;
    const Guarded = function (this: unknown, ...args: unknown[]) {
      if (new.target === undefined) throw new TypeError(`Constructor ${name} requires 'new'`);
      const n = bytes(args, perElement);
      if (n > 0) {
        meter.alloc(n);
        work(n);
      }
      return construct(Native, args, new.target === Guarded ? Native : new.target);
    };
    defineProperty(Guarded, "name", { value: name, configurable: true });
    defineProperty(Guarded, "length", { value: Native.length, configurable: true });
    setPrototypeOf(Guarded, getPrototypeOf(Native));
    for (const key of ownKeys(Native)) {
      if (key === "name" || key === "length") continue;
      defineProperty(Guarded, key, getOwnPropertyDescriptor(Native, key)!);
    }
    defineProperty(Native.prototype, "constructor", { value: Guarded, writable: true, enumerable: false, configurable: true });
    defineProperty(global, name, { value: Guarded, writable: true, enumerable: false, configurable: true });
  };
  guardConstructor("ArrayBuffer", (args) => integer(args[0]));
  for (const name of ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array"]) {
    guardConstructor(name, (args, perElement) => {
      const first = args[0];
      if (first === null || typeof first !== "object") return integer(first) * perElement;
      return lengthOf(first) * perElement; // an array-like or typed array (an ArrayBuffer's bytes were charged when it was made)
    });
  }

  // ---- JSON -------------------------------------------------------------------------------------------
  const JSONObject = global.JSON;
  charged(JSONObject, "parse", (_r, args) => {
    const text = typeof args[0] === "string" ? args[0] : "";
    work(text.length);
    meter.alloc(8 * text.length);
    // A reviver walks the result recursively in V8: refuse a nesting the stack model would not hold.
    if (typeof args[1] === "function") {
      let depth = 0;
      let deepest = 0;
      for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (c === "[" || c === "{") deepest = Math_max(deepest, ++depth);
        else if (c === "]" || c === "}") depth--;
      }
      const token = meter.push(deepest * LEVEL_FRAME);
      meter.pop(token, undefined);
    }
  });
  // stringify in JavaScript (ECMAScript's SerializeJSONProperty): a frame per nesting level, charged per
  // value and per character, never longer than a string may be.
  replace(JSONObject, "stringify", () => ({
    stringify(value: unknown, replacer?: unknown, space?: unknown) {
      const stack = new SetCtor<object>();
      let propertyList: string[] | undefined;
      const replacerFunction = typeof replacer === "function" ? (replacer as Function) : undefined;
      if (!replacerFunction && isArray(replacer)) {
        const seen = new SetCtor<string>();
        propertyList = list<string>();
        const n = lengthOf(replacer);
        for (let i = 0; i < n; i++) {
          const v = (replacer as unknown[])[i];
          let item: string | undefined;
          if (typeof v === "string") item = v;
          else if (typeof v === "number") item = toText(v);
          else if (v !== null && typeof v === "object" && (v instanceof StringCtor || v instanceof NumberCtor)) item = toText(v);
          if (item !== undefined && !apply(setHas, seen, [item])) {
            apply(setAdd, seen, [item]);
            propertyList[propertyList.length] = item;
          }
        }
      }
      let gap = "";
      let spacing: unknown = space;
      if (spacing !== null && typeof spacing === "object") {
        if (spacing instanceof NumberCtor) spacing = toNumber(spacing);
        else if (spacing instanceof StringCtor) spacing = toText(spacing);
      }
      if (typeof spacing === "number") {
        const n = Math_min(10, integer(spacing));
        for (let i = 0; i < n; i++) gap += " ";
      } else if (typeof spacing === "string") {
        gap = apply(stringSlice, spacing, [0, 10]);
      }
      // The output's length so far (leaves, keys and punctuation; containers are not counted twice).
      let produced = 0;
      let values = 0;
      const emit = (text: string): string => {
        produced += text.length;
        if (produced > limits.maxStringLength) meter.fatal(MEMORY_LIMIT);
        if (text.length >= limits.unit) work(text.length);
        return text;
      };
      const quote = (text: string): string => emit(nativeStringify(text) as string);
      const serialize = (holder: any, key: string, indent: string): string | undefined => {
        if (++values % 4 === 0) meter.charge(1);
        let v = holder[key];
        if ((v !== null && typeof v === "object") || typeof v === "bigint") {
          const toJSON = (v as { toJSON?: unknown }).toJSON;
          if (typeof toJSON === "function") v = apply(toJSON, v, [key]);
        }
        if (replacerFunction) v = apply(replacerFunction, holder, [key, v]);
        if (v !== null && typeof v === "object") {
          if (v instanceof NumberCtor) v = toNumber(v);
          else if (v instanceof StringCtor) v = toText(v);
          else if (v instanceof BooleanCtor) v = (v as Boolean).valueOf();
          else if (v instanceof BigIntCtor) v = (v as bigint).valueOf();
        }
        if (v === null) return emit("null");
        if (v === true) return emit("true");
        if (v === false) return emit("false");
        if (typeof v === "string") return quote(v);
        if (typeof v === "number") return emit(v === v && v !== Infinity && v !== -Infinity ? toText(v) : "null");
        if (typeof v === "bigint") throw new TypeError("Do not know how to serialize a BigInt");
        if (typeof v !== "object" || typeof v === "function") return undefined;
        if (apply(setHas, stack, [v])) throw new TypeError("Converting circular structure to JSON");
        const token = meter.push(LEVEL_FRAME);
        apply(setAdd, stack, [v]);
        try {
          const inner = indent + gap;
          const parts = list<string>();
          if (isArray(v)) {
            const n = lengthOf(v);
            for (let i = 0; i < n; i++) parts[parts.length] = serialize(v, toText(i), inner) ?? emit("null");
            produced += 2 + parts.length;
            if (parts.length === 0) return "[]";
            return gap === "" ? "[" + joinParts(parts, ",") + "]" : "[\n" + inner + joinParts(parts, ",\n" + inner) + "\n" + indent + "]";
          }
          const keys = propertyList ?? Object_keys(v);
          for (let i = 0; i < keys.length; i++) {
            const k = keys[i]!;
            const text = serialize(v, k, inner);
            if (text !== undefined) parts[parts.length] = quote(k) + (gap === "" ? ":" : ": ") + text;
            if (produced > limits.maxStringLength) meter.fatal(MEMORY_LIMIT);
          }
          produced += 2 + parts.length;
          if (parts.length === 0) return "{}";
          return gap === "" ? "{" + joinParts(parts, ",") + "}" : "{\n" + inner + joinParts(parts, ",\n" + inner) + "\n" + indent + "}";
        } finally {
          apply(setDelete, stack, [v]);
          meter.pop(token, undefined);
        }
      };
      return serialize({ "": value }, "", "");
    },
  }).stringify);
  const joinParts = (parts: string[], glue: string): string => {
    let out = "";
    for (let i = 0; i < parts.length; i++) out += (i > 0 ? glue : "") + parts[i];
    return out;
  };

  // ---- objects, symbols, calls --------------------------------------------------------------------
  const Object_keys = Object.keys;
  for (const name of ["keys", "values", "entries", "getOwnPropertyNames", "getOwnPropertySymbols", "assign", "fromEntries", "getOwnPropertyDescriptors"]) {
    charged(global.Object, name, (_r, args) => {
      const target = args[0];
      if (target !== null && typeof target === "object") makesElements(ownKeys(target).length);
      else if (typeof target === "string") makesElements(target.length);
    });
  }
  charged(global.Symbol, "for", (_r, args) => makesString(typeof args[0] === "string" ? args[0].length : 0));

  // Calls with an argument list: the list is pushed on V8's stack, so it holds model stack while the call runs.
  const withArguments = (list: unknown, call: () => unknown) => {
    const n = lengthOf(list);
    if (n > MAX_ARGUMENTS) meter.fatal(STACK_LIMIT);
    work(n);
    const token = meter.push(16 * n);
    try {
      return call();
    } finally {
      meter.pop(token, undefined);
    }
  };
  const FunctionProto = Object.getPrototypeOf(function () {});
  replace(FunctionProto, "apply", (original) => ({
    apply(this: unknown, thisArg: unknown, list?: unknown) {
      return withArguments(list, () => apply(original, this, [thisArg, list]));
    },
  }).apply);
  const ReflectObject = global.Reflect;
  replace(ReflectObject, "apply", () => ({
    apply(target: Function, thisArg: unknown, list: ArrayLike<unknown>) {
      return withArguments(list, () => apply(target, thisArg, list));
    },
  }).apply);
  replace(ReflectObject, "construct", () => ({
    construct(target: Function, list: ArrayLike<unknown>, newTarget?: Function) {
      return withArguments(list, () => (newTarget === undefined ? construct(target, list) : construct(target, list, newTarget)));
    },
  }).construct);

  // V8 follows chains of proxies and of bound functions recursively, without contract frames: bounded.
  const chainDepth = new WeakMapCtor<object, number>();
  const deeper = (inner: unknown): number => {
    const below = inner !== null && (typeof inner === "object" || typeof inner === "function") ? ((apply(weakGet, chainDepth, [inner]) as number | undefined) ?? 0) : 0;
    if (below >= MAX_CHAIN) throw new TypeError(`Chains of more than ${MAX_CHAIN} proxies or bound functions are not allowed in contracts`);
    return below + 1;
  };
  const NativeProxy = global.Proxy;
  const GuardedProxy = function Proxy(this: unknown, target: object, handler: ProxyHandler<object>) {
    if (new.target === undefined) throw new TypeError("Constructor Proxy requires 'new'");
    const depth = deeper(target);
    const proxy = construct(NativeProxy, [target, handler]);
    apply(weakSet, chainDepth, [proxy, depth]);
    return proxy;
  };
  defineProperty(GuardedProxy, "length", { value: 2, configurable: true });
  const nativeRevocable = NativeProxy.revocable;
  defineProperty(GuardedProxy, "revocable", {
    value: {
      revocable(target: object, handler: ProxyHandler<object>) {
        const depth = deeper(target);
        const result = nativeRevocable(target, handler);
        apply(weakSet, chainDepth, [result.proxy, depth]);
        return result;
      },
    }.revocable,
    writable: true,
    enumerable: false,
    configurable: true,
  });
  defineProperty(global, "Proxy", { value: GuardedProxy, writable: true, enumerable: false, configurable: true });
  replace(FunctionProto, "bind", (original) => ({
    bind(this: unknown, ...args: unknown[]) {
      const depth = deeper(this);
      work(args.length);
      const bound = apply(original, this, args);
      apply(weakSet, chainDepth, [bound, depth]);
      return bound;
    },
  }).bind);

  return { makeRegExp: (source: string, flags: string) => makeRegExp(source, flags) };

  function Math_max(a: number, b: number): number {
    return a > b ? a : b;
  }
  function Math_min(a: number, b: number): number {
    return a < b ? a : b;
  }
}
