// An installer evaluated inside each isolate from its source text (guards/kit.ts says how): strings,
// regular expressions and JSON, charged by size before the work (docs/contracts.md §13).
import type { GuardKit } from "./kit.js";

export function installTextGuards(kit: GuardKit): void {
  const { global, meter, limits, work, makesString, makesElements, integer, toText, list, replace, charged, arrayLike, keyCount, iterates, min, max } = kit;
  const apply = Reflect.apply;
  const construct = Reflect.construct;
  const defineProperty = Object.defineProperty;
  const getOwnPropertyDescriptor = Reflect.getOwnPropertyDescriptor;
  const isArray = Array.isArray;
  const objectKeys = Object.keys;
  const stringSlice = String.prototype.slice;
  const stringIndexOf = String.prototype.indexOf;
  const stringStartsWith = String.prototype.startsWith;
  const charCodeAt = String.prototype.charCodeAt;
  const nativeNormalize = String.prototype.normalize;
  const regExpExec = RegExp.prototype.exec;
  const nativeStringify = JSON.stringify;
  const isWellFormed = String.prototype.isWellFormed;
  const nativeParse = JSON.parse;
  const nativeReflectSet = Reflect.set;
  const arrayPrototype = Array.prototype;
  const toNumber = Number;
  const NativeRegExp = RegExp;
  const sourceGetter = Reflect.getOwnPropertyDescriptor(RegExp.prototype, "source")!.get!;
  const matchSymbol = Symbol.match;
  const numberValueOf = Number.prototype.valueOf;
  const stringValueOf = String.prototype.valueOf;
  const booleanValueOf = Boolean.prototype.valueOf;
  /** Whether `value` has the internal slot `thisValue` reads ([[NumberData]], …): a brand, not `instanceof`. */
  const hasSlot = (thisValue: Function, value: unknown): boolean => {
    if (value === null || typeof value !== "object") return false;
    try {
      apply(thisValue, value, []);
      return true;
    } catch {
      return false;
    }
  };
  const WeakMapCtor = WeakMap;
  const weakGet = WeakMap.prototype.get;
  const weakSet = WeakMap.prototype.set;
  const weakHas = WeakMap.prototype.has;
  const SetCtor = Set;
  const setHas = Set.prototype.has;
  const setAdd = Set.prototype.add;
  const setDelete = Set.prototype.delete;
  const { MEMORY_LIMIT, LEVEL_FRAME } = kit;
  const MAX_PATTERN = 4096;
  /** The most code units one code unit becomes under any normalization form (U+FDFA under NFKD). */
  const MAX_NORMALIZE_GROWTH = 18;

  /** ToString of a String method's receiver, done once here so the native method does not repeat it. */
  const receiverText = (receiver: unknown, name: string): string => {
    if (receiver === null || receiver === undefined) throw new TypeError(`String.prototype.${name} called on null or undefined`);
    return typeof receiver === "string" ? receiver : toText(receiver);
  };
  /**
   * V8 escapes a lone surrogate on a slow path, about 45 ns a code unit (every other text under 8 ns, charged
   * by the output's length where it is used): 100,000 of them made a budget of JSON.stringify take 0.33 s
   * (eighteenth review), and 4 Mi of them as the arguments of a Chain built-in 0.7 s and V8's heap (twenty-third).
   * A text escaped to more than the string cap (six code units for one) is fatal as soon as it exists.
   */
  const quoteJson = (text: string): string => {
    if (!(apply(isWellFormed, text, []) as boolean)) work(limits.loneSurrogateUnits * text.length);
    const json = nativeStringify(text) as string;
    if (json.length > limits.maxStringLength) meter.fatal(MEMORY_LIMIT);
    return json;
  };
  const isRecordedRegExp = (value: unknown) => value !== null && typeof value === "object" && apply(weakHas, patternStates, [value]);

  // ---- strings -------------------------------------------------------------------------------------
  const StringProto = global.String.prototype;
  /**
   * String methods whose result is at most as long as the receiver: charged by the receiver's length.
   * (Reading one code unit, `charAt`/`charCodeAt`/`codePointAt`/`at`, costs the same whatever the length: V8
   * flattens a string made of pieces once, and making it was charged.)
   */
  for (const name of ["startsWith", "endsWith", "slice", "substring", "substr", "trim", "trimStart", "trimEnd", "trimLeft", "trimRight", "toUpperCase", "toLowerCase", "isWellFormed", "toWellFormed"]) {
    const copies = name === "trim" || name === "trimStart" || name === "trimEnd" || name === "trimLeft" || name === "trimRight" || name === "toUpperCase" || name === "toLowerCase" || name === "toWellFormed";
    replace(StringProto, name, (original) => ({
      method(this: unknown, ...args: unknown[]) {
        const text = receiverText(this, name);
        work(text.length);
        const result = apply(original, text, args);
        // These copy: the copy is memory (a case change can make it longer than the receiver).
        if (copies && typeof result === "string" && result !== text) kit.holdsString(result.length);
        return result;
      },
    }).method);
  }
  /**
   * Searching for a string (docs/contracts.md §13, "What is charged"). V8 searches forwards in time linear in
   * the text for patterns up to 250 code units (Boyer-Moore), but for a longer pattern compares its head at
   * every alignment where its last 250 match, and searches backwards (lastIndexOf) naively at every position.
   * So chainsim finds a long pattern itself, alignment by alignment (a native search for the last 250, then
   * the head compared), and lastIndexOf's answer by searching forwards: each native call it makes is
   * linear, and what is charged is what is done. Measured: about 1 ns a code unit passed, 130 ns a call.
   */
  const SEARCH_UNITS = 3;
  const BOYER_MOORE_SPAN = 250;
  const ALIGNMENT_UNITS = 192;
  /** The first index from `from` where `pattern` occurs in `text`, or -1, charged by what was passed. */
  const searchFrom = (text: string, pattern: string, from: number): number => {
    const head = pattern.length - BOYER_MOORE_SPAN;
    if (head <= 0) {
      const at = apply(stringIndexOf, text, [pattern, from]) as number;
      work(SEARCH_UNITS * ((at < 0 ? text.length : at + pattern.length) - from));
      return at;
    }
    const tail = apply(stringSlice, pattern, [head]) as string;
    const start = apply(stringSlice, pattern, [0, head]) as string;
    for (let next = from + head; ; next++) {
      const at = apply(stringIndexOf, text, [tail, next]) as number;
      work(SEARCH_UNITS * ((at < 0 ? text.length : at) - next) + ALIGNMENT_UNITS + head);
      if (at < 0) return -1;
      if (apply(stringStartsWith, text, [start, at - head])) return at - head;
      next = at;
    }
  };
  /**
   * The matches split and replaceAll will find (without overlap; an empty pattern at every position), found
   * and charged before V8 makes a piece for each: about 90 ns a match in V8, 260 for an empty pattern in two-byte text (tenth and twelfth reviews
   * of 2026-11-26: a replaceAll of 2 million matches ran 0.5 s on 2,400 steps).
   */
  const MATCH_UNITS = 48;
  /** An empty pattern matches at every position, each a string of one code unit (new ones in two-byte text). */
  const EMPTY_MATCH_UNITS = 128;
  const occurrences = (text: string, pattern: string): void => {
    if (pattern.length === 0) return work(SEARCH_UNITS * text.length + EMPTY_MATCH_UNITS * (text.length + 1));
    for (let at = searchFrom(text, pattern, 0); at >= 0; at = searchFrom(text, pattern, at + pattern.length)) work(MATCH_UNITS);
  };
  /** ToIntegerOrInfinity of a position, but NaN kept (lastIndexOf reads it as +∞): converted once, here. */
  const position = (value: unknown): number => {
    const n = toNumber(kit.numberPrimitive(value));
    return n !== n ? NaN : n === Infinity || n === -Infinity ? n : n - (n % 1);
  };
  const clamp = (n: number, length: number) => (n < 0 ? 0 : n > length ? length : n);
  /** Patterns shorter than this are found backwards natively: V8 compares at most this many units a position. */
  const SHORT_PATTERN = 16;
  /** indexOf's answer, in ECMAScript's order of conversions (the receiver was converted by the caller). */
  const firstIndex = (text: string, searchString: unknown, from: unknown): number => {
    const pattern = toText(searchString);
    const start = position(from);
    return searchFrom(text, pattern, clamp(start !== start ? 0 : start, text.length));
  };
  replace(StringProto, "indexOf", () => ({
    indexOf(this: unknown, searchString: unknown, from?: unknown) {
      return firstIndex(receiverText(this, "indexOf"), searchString, from);
    },
  }).indexOf);
  replace(StringProto, "includes", () => ({
    includes(this: unknown, searchString: unknown, from?: unknown) {
      const text = receiverText(this, "includes");
      if (isRegExp(searchString)) throw new TypeError("First argument to String.prototype.includes must not be a regular expression");
      return firstIndex(text, searchString, from) >= 0;
    },
  }).includes);
  replace(StringProto, "lastIndexOf", (original) => ({
    lastIndexOf(this: unknown, searchString: unknown, from?: unknown) {
      const text = receiverText(this, "lastIndexOf");
      const pattern = toText(searchString);
      const at = position(from);
      const start = clamp(at !== at ? Infinity : at, text.length);
      if (pattern.length < SHORT_PATTERN) {
        work(SEARCH_UNITS * text.length + (pattern.length * (start + 1)) / 2);
        return apply(original, text, [pattern, start]);
      }
      let found = -1;
      for (let next = searchFrom(text, pattern, 0); next >= 0 && next <= start; next = searchFrom(text, pattern, next + 1)) found = next;
      return found;
    },
  }).lastIndexOf);
  // Reading one code unit is not charged by size, but converts the receiver and the index: held like every guard.
  for (const name of ["at", "charAt", "charCodeAt", "codePointAt"]) kit.charged(StringProto, name, () => {});
  /**
   * Normalizing puts each run of combining marks in canonical order by insertion, in time that grows with
   * the square of the run (about 0.2 ns × length², measured): 40,000 marks took 0.3 s in one call. Runs are
   * found before V8 normalizes (about 15 ns a code unit, paid by text beyond Latin) and charged by their
   * squares, whether or not their marks are out of order (docs/contracts.md §13).
   */
  const BEYOND_LATIN = /[^\0-\u02ff]/;
  // U+FF9E and U+FF9F are letters that NFKC and NFKD make marks (U+3099, U+309A): the only such code points.
  const MARK_RUN = /[\p{M}\uff9e\uff9f]{4,}/gu;
  const MARK_SCAN_UNITS = 12;
  const markRunWork = (text: string) => {
    if (apply(regExpExec, BEYOND_LATIN, [text]) === null) return;
    work(MARK_SCAN_UNITS * text.length);
    MARK_RUN.lastIndex = 0;
    let squares = 0;
    for (let run = apply(regExpExec, MARK_RUN, [text]) as RegExpExecArray | null; run !== null; run = apply(regExpExec, MARK_RUN, [text]) as RegExpExecArray | null) {
      squares += run[0]!.length * run[0]!.length;
    }
    work(squares / 4);
  };
  replace(StringProto, "normalize", () => ({
    normalize(this: unknown, form?: unknown) {
      const text = receiverText(this, "normalize");
      const wanted = form === undefined ? "NFC" : toText(form);
      work(3 * text.length);
      markRunWork(text);
      if (text.length * MAX_NORMALIZE_GROWTH > limits.maxStringLength) {
        // Decomposition works code point by code point and composition only shortens: the decomposed
        // length of the pieces bounds the result before V8 makes it.
        const decomposed = wanted === "NFKC" || wanted === "NFKD" ? "NFKD" : "NFD";
        let bound = 0;
        for (let from = 0; from < text.length; ) {
          let to = min(from + 65536, text.length);
          const last = apply(charCodeAt, text, [to - 1]) as number;
          if (to < text.length && last >= 0xd800 && last <= 0xdbff) to++;
          work(to - from);
          bound += (apply(nativeNormalize, apply(stringSlice, text, [from, to]), [decomposed]) as string).length;
          if (bound > limits.maxStringLength) meter.fatal(MEMORY_LIMIT);
          from = to;
        }
      }
      const result = apply(nativeNormalize, text, [wanted]) as string;
      makesString(result.length);
      return result;
    },
  }).normalize);
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
        if (n <= text.length) return text; // V8 converts no filler then
        const filler = fill === undefined ? undefined : toText(fill);
        makesString(n);
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
  // The HTML methods of Annex B (`"x".anchor(name)`): the attribute's quotes become &quot;.
  for (const name of ["anchor", "big", "blink", "bold", "fixed", "fontcolor", "fontsize", "italics", "link", "small", "strike", "sub", "sup"]) {
    replace(StringProto, name, (original) => ({
      method(this: unknown, ...args: unknown[]) {
        const text = receiverText(this, name);
        const attribute = original.length > 0 ? toText(args[0]) : "";
        let quotes = 0;
        for (let at = apply(stringIndexOf, attribute, ['"']) as number; at >= 0; at = apply(stringIndexOf, attribute, ['"', at + 1]) as number) quotes++;
        makesString(text.length + attribute.length + 5 * quotes + 32);
        return apply(original, text, original.length > 0 ? [attribute] : []);
      },
    }).method);
  }
  // Percent-encoding grows a code unit to at most 9 (escape: 6) and decoding shrinks: charged by the input,
  // the result checked against the string cap before a contract holds it.
  for (const name of ["escape", "unescape", "encodeURI", "encodeURIComponent", "decodeURI", "decodeURIComponent"]) {
    replace(global, name, (original) => ({
      method(value: unknown) {
        const text = toText(value);
        work(text.length);
        const result = apply(original, undefined, [text]) as string;
        makesString(result.length);
        return result;
      },
    }).method);
  }
  replace(StringProto, Symbol.iterator, (original) => ({
    method(this: unknown) {
      const text = receiverText(this, "[Symbol.iterator]");
      return iterates(apply(original, text, []), text.length);
    },
  }).method);

  // ---- replacing: the result is counted as it is made -------------------------------------------------
  // A replacement template (`$&`, `` $` ``, `$'`, `$1`) can make each match as long as the whole input, and
  // a replacer function can return a long string for every match: the result is built through a function
  // that keeps its running length under the string cap, so V8 never makes what the cap refuses.
  const DOLLAR_UNITS = 64;
  const MATCH_BYTES = 48;
  const boundedReplacer = (input: string, replaceValue: unknown): string | ((...args: unknown[]) => string) => {
    const functional = typeof replaceValue === "function";
    const template = functional ? "" : toText(replaceValue);
    // A template without `$` adds a fixed length per match; when even the most matches cannot pass the cap,
    // V8 replaces natively.
    if (!functional && (apply(stringIndexOf, template, ["$"]) as number) < 0 && input.length + (input.length + 1) * template.length <= limits.maxStringLength) return template;
    // Expanding a template reads it whole for each match, whatever it makes: up to about 250 ns a `$` sequence
    // (eleventh review of 2026-11-26), charged before each expansion.
    let dollars = 0;
    for (let at = apply(stringIndexOf, template, ["$"]) as number; at >= 0; at = apply(stringIndexOf, template, ["$", at + 1]) as number) dollars++;
    work(DOLLAR_UNITS * dollars);
    const expansion = template.length + DOLLAR_UNITS * dollars;
    let added = 0;
    let removed = 0;
    let calls = 0;
    return function (this: unknown, ...args: unknown[]) {
      if (++calls % 64 === 0) meter.charge(1);
      work(expansion);
      const matched = args[0] as string;
      const text = functional ? toText(apply(replaceValue as Function, undefined, args)) : substitute(template, args);
      added += text.length;
      removed += matched.length;
      if (input.length - removed + added > limits.maxStringLength) meter.fatal(MEMORY_LIMIT);
      work(text.length);
      return text;
    };
  };
  /** ECMAScript's GetSubstitution, from the arguments a replacer function receives. */
  const substitute = (template: string, args: unknown[]): string => {
    const hasGroups = args.length > 0 && typeof args[args.length - 1] === "object";
    const captureCount = args.length - 3 - (hasGroups ? 1 : 0);
    const matched = args[0] as string;
    const position = args[captureCount + 1] as number;
    const input = args[captureCount + 2] as string;
    const groups = hasGroups ? (args[args.length - 1] as Record<string, unknown>) : undefined;
    const capture = (n: number) => {
      const value = args[n];
      return value === undefined ? "" : (value as string);
    };
    let out = "";
    const length = template.length;
    // The first `>` at or after a position, found once for every `$<` before it: a search from each `$<`
    // of a template of `$<`s and no `>` was quadratic (seventeenth review of 2026-11-26).
    let close = -2;
    for (let i = 0; i < length; ) {
      // A run without `$` is copied whole (one piece, not a piece per character).
      const dollar = apply(stringIndexOf, template, ["$", i]);
      const runEnd = dollar < 0 ? length : dollar;
      if (runEnd > i) {
        out += apply(stringSlice, template, [i, runEnd]);
        i = runEnd;
        continue;
      }
      if (i + 1 >= length) {
        out += "$";
        i++;
        continue;
      }
      const next = template[i + 1]!;
      if (next === "$") {
        out += "$";
        i += 2;
      } else if (next === "&") {
        out += matched;
        i += 2;
      } else if (next === "`") {
        out += apply(stringSlice, input, [0, position]);
        i += 2;
      } else if (next === "'") {
        out += apply(stringSlice, input, [min(position + matched.length, input.length)]);
        i += 2;
      } else if (next >= "0" && next <= "9") {
        const one = (apply(charCodeAt, next, [0]) as number) - 48;
        const after = i + 2 < length ? template[i + 2]! : "";
        const two = after >= "0" && after <= "9" ? one * 10 + (apply(charCodeAt, after, [0]) as number) - 48 : 0;
        if (two >= 1 && two <= captureCount) {
          out += capture(two);
          i += 3;
        } else if (one >= 1 && one <= captureCount) {
          out += capture(one);
          i += 2;
        } else {
          out += "$";
          i++;
        }
      } else if (next === "<" && groups !== undefined) {
        if (close !== -1 && close < i + 2) close = apply(stringIndexOf, template, [">", i + 2]) as number;
        if (close < 0) {
          out += "$<";
          i += 2;
        } else {
          const name = apply(stringSlice, template, [i + 2, close]) as string;
          kit.keyUse(name);
          const value = groups[name];
          if (value !== undefined) out += toText(value);
          i = close + 1;
        }
      } else {
        out += "$";
        i++;
      }
      if (out.length > limits.maxStringLength) meter.fatal(MEMORY_LIMIT);
    }
    return out;
  };

  /**
   * ECMAScript's replace and replaceAll of a string, done here: V8's would look the pattern's method up again
   * on String.prototype, where a contract's getter could answer a method and be handed chainsim's replacer.
   * Every position is found first (charged by searchFrom), then each replacement made, as the spec orders it.
   */
  const replaceString = (text: string, search: string, replaceValue: unknown, all: boolean, native: Function): string => {
    const replacer = boundedReplacer(text, replaceValue);
    if (typeof replacer === "string") {
      // A plain replacement hands V8 nothing of chainsim's: V8 replaces natively (a match costs it a few ns).
      if (all) occurrences(text, search);
      else if (searchFrom(text, search, 0) >= 0) work(MATCH_UNITS);
      const result = apply(native, text, [search, replacer]) as string;
      makesString(result.length);
      return result;
    }
    // Each match costs a slice, a piece and a call here (up to about 0.5 µs in two-byte text): charged
    // (MATCH_UNITS more than V8's), and the list of positions and pieces held, as it is found.
    const positions = list<number>();
    const advance = search.length > 0 ? search.length : 1;
    for (let at = searchFrom(text, search, 0); at >= 0; at = all && at + advance <= text.length ? searchFrom(text, search, at + advance) : -1) {
      work(2 * MATCH_UNITS);
      meter.alloc(MATCH_BYTES);
      positions[positions.length] = at;
    }
    let result = "";
    let end = 0;
    for (let i = 0; i < positions.length; i++) {
      const at = positions[i]!;
      result += apply(stringSlice, text, [end, at]) + replacer(search, at, text);
      end = at + search.length;
    }
    if (end < text.length) result += apply(stringSlice, text, [end]);
    makesString(result.length);
    return result;
  };
  // ECMAScript's order for split, replace, replaceAll, match, matchAll and search: the pattern's own method
  // (looked up once, also on a primitive's prototype) is called by chainsim, so that V8 never looks again and
  // finds another answer. Without one, match, matchAll and search make a RegExp of the pattern with the
  // guarded constructor (V8's own would backtrack); split, replace and replaceAll search for a string,
  // converted once here and charged as a search.
  const patternSymbols: Record<string, symbol> = { match: Symbol.match, matchAll: Symbol.matchAll, search: Symbol.search, replace: Symbol.replace, replaceAll: Symbol.replace, split: Symbol.split };
  /** replaceAll's and matchAll's check of a regular expression's flags, before its method is looked up. */
  const globalOnly = (name: string, pattern: unknown) => {
    if (!isRegExp(pattern)) return;
    const flags = (pattern as { flags?: unknown }).flags;
    if (flags === undefined || flags === null) {
      throw new TypeError(name === "matchAll" ? "The .flags property of the argument to String.prototype.matchAll cannot be null or undefined" : "String.prototype.replaceAll called on null or undefined");
    }
    if ((apply(stringIndexOf, toText(flags), ["g"]) as number) < 0) throw new TypeError(`String.prototype.${name} called with a non-global RegExp argument`);
  };
  for (const name of ["split", "replace", "replaceAll", "match", "matchAll", "search"]) {
    const symbol = patternSymbols[name]!;
    const makesPattern = name === "match" || name === "matchAll" || name === "search";
    replace(StringProto, name, (original) => ({
      method(this: unknown, ...args: unknown[]) {
        if (this === null || this === undefined) throw new TypeError(`String.prototype.${name} called on null or undefined`);
        const pattern = args[0];
        if (pattern !== undefined && pattern !== null) {
          if (name === "replaceAll" || name === "matchAll") globalOnly(name, pattern);
          const own = (pattern as Record<symbol, unknown>)[symbol];
          if (own !== undefined && own !== null) {
            if (typeof own !== "function") throw new TypeError(`${kit.notCallable(own)} is not a function`);
            return apply(own, pattern, makesPattern ? [this] : [this, args[1]]);
          }
        }
        const text = receiverText(this, name);
        if (makesPattern) {
          args[0] = makeRegExp(pattern, name === "matchAll" ? "g" : undefined);
          work(text.length);
        } else {
          // split's limit is converted before its separator.
          if (name === "split" && args[1] !== undefined) args[1] = toNumber(kit.numberPrimitive(args[1]));
          if (name !== "split") return replaceString(text, toText(pattern), args[1], name === "replaceAll", original);
          if (pattern !== undefined) {
            args[0] = toText(pattern);
            occurrences(text, args[0] as string);
          } else work(text.length);
        }
        const result = apply(original, text, args);
        if (typeof result === "string") makesString(result.length);
        else if (isArray(result)) makesElements(result.length);
        return result;
      },
    }).method);
  }
  for (const name of ["fromCharCode", "fromCodePoint"]) {
    charged(global.String, name, (_r, args) => {
      kit.numbersMade(args, args.length);
      makesString(2 * args.length);
    });
  }
  // ECMAScript's ToNumber (and parseFloat's, parseInt's ToString) of a string reads all of it: an object
  // converted here, once, so that the text V8 reads is the one charged (fifth review of 2026-11-26).
  const numberArgument = (args: unknown[], hint: "number" | "string") => {
    if (args.length > 0) args[0] = kit.toPrimitive(args[0], hint);
    kit.numbersMade(args, args.length);
  };
  for (const owner of [global, global.Number]) {
    charged(owner, "parseFloat", (_r, args) => numberArgument(args, "string"));
    charged(owner, "parseInt", (_r, args) => numberArgument(args, "string"));
  }
  for (const name of ["isNaN", "isFinite"]) charged(global, name, (_r, args) => numberArgument(args, "number"));
  const NativeNumber = global.Number as NumberConstructor;
  const GuardedNumber = function Number(this: unknown, ...args: unknown[]) {
    numberArgument(args, "number");
    return new.target === undefined ? apply(NativeNumber, undefined, args) : construct(NativeNumber, args, new.target === GuardedNumber ? NativeNumber : new.target);
  };
  kit.standIn("Number", NativeNumber, GuardedNumber);
  // String.raw in JavaScript: the template's `raw` length read once, the result counted as it grows.
  replace(global.String, "raw", () => ({
    raw(template: unknown, ...substitutions: unknown[]) {
      if (template === null || template === undefined) throw new TypeError("Cannot convert undefined or null to object");
      const raw = (template as { raw?: unknown }).raw;
      if (raw === null || raw === undefined) throw new TypeError("Cannot convert undefined or null to object");
      const { value: segments, length: count } = arrayLike(raw);
      // As join: each segment converted and kept as a piece (24 units), an object a call's worth more.
      work(24 * (count + substitutions.length));
      const pieces = list<string>();
      let total = 0;
      for (let i = 0; i < count; i++) {
        const raw = (segments as Record<number, unknown>)[i];
        if (kit.isObject(raw)) work(128);
        const segment = toText(raw);
        pieces[pieces.length] = segment;
        total += segment.length;
        if (i + 1 < count && i < substitutions.length) {
          const substitution = toText(substitutions[i]);
          pieces[pieces.length] = substitution;
          total += substitution.length;
        }
        if (total > limits.maxStringLength) meter.fatal(MEMORY_LIMIT);
      }
      meter.alloc(8 * pieces.length);
      makesString(total);
      return kit.joined(pieces, "");
    },
  }).raw);

  // ---- regular expressions: the linear-time engine, charged by input ---------------------------------
  const patternStates = new WeakMapCtor<object, number>();
  const flagsOf = new WeakMapCtor<object, string>();
  /** Ranges V8's linear engine tries one by one for a class escape: `\s` is ten of them. */
  const ESCAPE_RANGES: Record<string, number> = { d: 1, D: 2, w: 4, W: 5, s: 10, S: 11 };
  /**
   * About how many states V8's linear engine compiles `pattern` to (docs/contracts.md §13): each
   * character or range of a class one, a counted repetition `{m,n}` as many copies of what it repeats.
   * The engine runs every live state at each character scanned and keeps memory for each until the match
   * ends (up to 60 bytes a state and character were measured, more with captures), so runs and memory are
   * charged by states, not by the pattern's length: `\S{1,16}` is 9 characters but about 180 states.
   */
  const statesOf = (pattern: string, dotAll: boolean): number => {
    const outer = list<number>(); // per open group: the states of its closed alternatives and of the current one
    let alternatives = 0;
    let current = 0;
    let last = 0; // the states of the last atom, which a quantifier repeats
    let captures = 0;
    for (let i = 0; i < pattern.length; i++) {
      const c = pattern[i]!;
      let atom = -1;
      if (c === "\\") {
        const e = pattern[++i] ?? "";
        atom = ESCAPE_RANGES[e] ?? 1;
      } else if (c === "[") {
        let ranges = 0;
        const negated = pattern[i + 1] === "^";
        if (negated) i++;
        for (i++; i < pattern.length && pattern[i] !== "]"; i++) {
          if (pattern[i] === "\\") ranges += ESCAPE_RANGES[pattern[++i] ?? ""] ?? 1;
          else if (pattern[i + 1] === "-" && pattern[i + 2] !== "]" && i + 2 < pattern.length) (ranges += 1), (i += 2);
          else ranges++;
        }
        atom = max(negated ? ranges + 1 : ranges, 1);
      } else if (c === ".") {
        atom = dotAll ? 1 : 4;
      } else if (c === "(") {
        outer[outer.length] = alternatives;
        outer[outer.length] = current;
        alternatives = 0;
        current = 0;
        if (pattern[i + 1] !== "?") captures++;
        else {
          if (pattern[i + 2] === "<" && pattern[i + 3] !== "=" && pattern[i + 3] !== "!") captures++; // (?<name>
          i += 2; // (?: and the like; a group name's letters count as characters
        }
      } else if (c === ")") {
        const group = alternatives + current + 2;
        current = outer.length > 0 ? outer[outer.length - 1]! : 0;
        alternatives = outer.length > 1 ? outer[outer.length - 2]! : 0;
        outer.length = max(outer.length - 2, 0);
        atom = group;
      } else if (c === "|") {
        alternatives += current + 1;
        current = 0;
        last = 0;
      } else if (c === "{") {
        const close = apply(stringIndexOf, pattern, ["}", i]);
        const body = close < 0 ? "" : (apply(stringSlice, pattern, [i + 1, close]) as string);
        const comma = apply(stringIndexOf, body, [","]);
        const low = toNumber(comma < 0 ? body : apply(stringSlice, body, [0, comma]));
        const high = comma < 0 ? low : body.length === comma + 1 ? low + 1 : toNumber(apply(stringSlice, body, [comma + 1]));
        if (close > i && low === low && high === high) {
          const copies = min(max(low, high), 1e6);
          current += last * (copies - 1) + 1;
          last = last * copies;
          i = close;
          continue;
        }
        atom = 1; // a brace that is a plain character
      } else if (c === "*" || c === "+" || c === "?") {
        current += 1;
        continue;
      } else {
        atom = 1;
      }
      if (atom >= 0) {
        current += atom;
        last = atom;
      }
    }
    // Each thread of the engine copies two registers per capture at each fork: a pattern of 1,000 captures
    // took 70 times the time and 35 times the memory per state (sixth review of 2026-11-26).
    return (alternatives + current) * (1 + captures / 16); // an unclosed group V8 refuses anyway
  };
  /**
   * V8's linear-time engine scans about 40 ns per state and character here: a step per 64 characters scanned
   * × (1 + states / 4), so a whole budget of matching takes about a tenth of the clock; the memory it keeps
   * while matching is charged as 8 bytes per state and character. Only a global or sticky search starts at
   * lastIndex; any other scans the whole text whatever lastIndex says (seventeenth review of 2026-11-26).
   * Answers the lastIndex V8 is to be given: a primitive.
   */
  const STATE_BYTES = 8;
  const REGEXP_MADE_UNITS = 3072;
  const regExpCost = (regexp: unknown, input: unknown): unknown => {
    if (regexp === null || typeof regexp !== "object") return undefined;
    const states = (apply(weakGet, patternStates, [regexp]) as number | undefined) ?? 0;
    const factor = 1 + states / 4;
    let from = getOwnPropertyDescriptor(regexp, "lastIndex")?.value;
    work(kit.numberText(from)); // V8 makes a number of it
    // An object is converted here, once, and V8 given the primitive (docs/contracts.md §14: it stays there).
    if (kit.isObject(from)) {
      from = kit.numberPrimitive(from);
      apply(nativeReflectSet, undefined, [regexp, "lastIndex", from]);
    }
    const flags = (apply(weakGet, flagsOf, [regexp]) as string | undefined) ?? "";
    const fromLastIndex = apply(stringIndexOf, flags, ["g"]) >= 0 || apply(stringIndexOf, flags, ["y"]) >= 0;
    const length = typeof input === "string" ? input.length : 0;
    const scanned = fromLastIndex && typeof from === "number" && from > 0 && from < length ? length - from : length;
    const steps = (scanned * factor) / 64;
    if (steps >= 1) meter.charge(steps - (steps % 1) + 1);
    meter.alloc(STATE_BYTES * states * scanned);
    return from;
  };
  const LINEAR_ENGINE_REFUSES = ["i", "u", "v", "d"];
  const makeRegExp = (source: unknown, flags?: unknown, newTarget?: Function): RegExp => {
    const pattern = source === undefined ? "(?:)" : toText(source);
    const wanted = flags === undefined ? "" : toText(flags);
    if (pattern.length > MAX_PATTERN) throw new SyntaxError(`Invalid regular expression: longer than ${MAX_PATTERN} characters`);
    // Checked here, so that V8's message does not show the engine's `l` added below.
    for (let i = 0; i < wanted.length; i++) {
      const flag = wanted[i]!;
      if (apply(stringIndexOf, "dgimsuvy", [flag]) < 0 || apply(stringIndexOf, wanted, [flag, i + 1]) >= 0) {
        throw new SyntaxError(`Invalid flags supplied to RegExp constructor '${wanted}'`);
      }
    }
    // V8's linear engine refuses the i, u, v and d flags whatever the pattern, but only after parsing it, and
    // parsing `\p{RGI_Emoji}` under v and i took 10 ms and 1 MB for two steps (twenty-second review of
    // 2026-11-26): refused here, before V8 parses anything.
    for (const flag of LINEAR_ENGINE_REFUSES) {
      if (apply(stringIndexOf, wanted, [flag]) >= 0) throw new SyntaxError(`Invalid regular expression: /${pattern}/${wanted}: Cannot be executed in linear time`);
    }
    // Compiling costs about 30 ns a state (and twice that margin), and making the object, with V8's linear
    // engine and this guard, about 9 µs however small the pattern: 10,000 `/a/` literals cost 1,100 steps
    // and a budget of them 0.45-0.8 s (review of 2026-11-27).
    const states = statesOf(pattern, apply(stringIndexOf, wanted, ["s"]) >= 0);
    work(REGEXP_MADE_UNITS + 32 * states);
    // V8 rejects what needs backtracking (backreferences, lookarounds) with "Cannot be executed in linear time".
    let regexp: RegExp;
    try {
      regexp = construct(NativeRegExp, [pattern, wanted + "l"], newTarget ?? GuardedRegExp);
    } catch (error) {
      // V8's message quotes the flags, the engine's `l` among them: the contract's are shown.
      if (!(error instanceof SyntaxError)) throw error;
      const quoted = `/${pattern}/${wanted}l: `;
      const at = apply(stringIndexOf, error.message, [quoted]);
      throw at < 0 ? error : new SyntaxError(apply(stringSlice, error.message, [0, at]) + `/${pattern}/${wanted}: ` + apply(stringSlice, error.message, [at + quoted.length]));
    }
    apply(weakSet, patternStates, [regexp, states]);
    apply(weakSet, flagsOf, [regexp, wanted]);
    return regexp;
  };
  /** ECMAScript's IsRegExp: Symbol.match decides when present, else being a regular expression. */
  const isRegExp = (value: unknown): boolean => {
    if (value === null || (typeof value !== "object" && typeof value !== "function")) return false;
    const matcher = (value as Record<symbol, unknown>)[matchSymbol];
    return matcher !== undefined ? !!matcher : isRecordedRegExp(value);
  };
  // ECMAScript's RegExp(pattern, flags), with the pattern's source and flags as first written.
  const GuardedRegExp = function RegExp(this: unknown, pattern: unknown, flags?: unknown) {
    const regExpLike = isRegExp(pattern);
    if (new.target === undefined && regExpLike && flags === undefined && (pattern as { constructor?: unknown }).constructor === GuardedRegExp) return pattern;
    if (isRecordedRegExp(pattern)) {
      const from = pattern as RegExp;
      return makeRegExp(apply(sourceGetter, from, []), flags === undefined ? apply(weakGet, flagsOf, [from]) : flags, new.target);
    }
    if (regExpLike) {
      const like = pattern as { source: unknown; flags: unknown };
      const source = like.source;
      return makeRegExp(source, flags === undefined ? like.flags : flags, new.target);
    }
    return makeRegExp(pattern, flags, new.target);
  } as unknown as RegExpConstructor;
  const RegExpProto = NativeRegExp.prototype;
  /**
   * What V8's generic RegExp algorithms run on (ownMatcher below): a twin of the contract's regular
   * expression whose prototype is RegExp.prototype as V8 made it, out of any contract's reach, with a
   * constructor of its own for the species V8 asks split and matchAll for. No contract code can then
   * change the exec, flags or species V8 uses, or be handed the twin.
   */
  const twinProto = kit.natives.setPrototypeOf({}, null) as Record<string | symbol, unknown>;
  const protoKeys = Reflect.ownKeys(RegExpProto);
  for (let i = 0; i < protoKeys.length; i++) defineProperty(twinProto, protoKeys[i]!, getOwnPropertyDescriptor(RegExpProto, protoKeys[i]!)!);
  const twinOf = (regexp: object): RegExp => kit.natives.setPrototypeOf(regexp, twinProto) as RegExp;
  /** A twin of `regexp`: its states recorded, so that each of its runs is charged as the original's. */
  const twinFrom = (regexp: object, source: unknown, flags: unknown): RegExp => {
    // Made as any regular expression is, and charged so: searches with a regular expression make one or two
    // twins each, and a budget of bound `search` calls reached the clock (review of 2026-11-27).
    work(REGEXP_MADE_UNITS);
    const twin = twinOf(construct(NativeRegExp, [source, flags]) as object);
    apply(weakSet, patternStates, [twin, apply(weakGet, patternStates, [regexp]) ?? 0]);
    return twin;
  };
  const TwinRegExp = function (pattern: unknown, flags: unknown) {
    return twinFrom(pattern as object, pattern, flags);
  };
  defineProperty(TwinRegExp, Symbol.species, { value: TwinRegExp });
  defineProperty(twinProto, "constructor", { value: TwinRegExp });
  kit.standIn("RegExp", NativeRegExp, GuardedRegExp);
  delete (RegExpProto as { linear?: unknown }).linear; // would reveal the engine flag
  // The `l` the engine needs stays hidden: a contract sees the flags it asked for.
  const flagsGetter = getOwnPropertyDescriptor(RegExpProto, "flags")!.get!;
  defineProperty(RegExpProto, "flags", {
    get: {
      flags(this: unknown) {
        // V8's getter reads each flag in ECMAScript's order (observable, as in V8), and adds `l`. Those reads
        // can be this getter again (a contract's accessor): held, like every guard.
        const all = kit.held(() => apply(flagsGetter, this, [])) as string;
        let out = "";
        for (let i = 0; i < all.length; i++) if (all[i] !== "l") out += all[i];
        return out;
      },
    }.flags,
    enumerable: false,
    configurable: true,
  });
  defineProperty(getOwnPropertyDescriptor(RegExpProto, "flags")!.get!, "name", { value: "get flags" });
  // The input is converted once here, so that the text charged is the text searched.
  for (const name of ["exec", "test", Symbol.match, Symbol.matchAll, Symbol.search, Symbol.split, Symbol.replace]) {
    const label = typeof name === "symbol" ? `RegExp.prototype[${String(name).slice(7, -1)}]` : "";
    replace(RegExpProto, name, (original) => ({
      method(this: unknown, ...args: unknown[]) {
        if (typeof name === "symbol") ownMatcher(this, name, label);
        const text = toText(args[0]);
        args[0] = text;
        const from = regExpCost(this, text);
        if (name === Symbol.replace) args[1] = boundedReplacer(text, args[1]);
        if (!isRecordedRegExp(this)) return apply(original, this, args); // V8's TypeError
        const regexp = this as RegExp;
        const lastIndex = getOwnPropertyDescriptor(regexp, "lastIndex")!;
        // exec and test run on the expression itself, unless its lastIndex is an object regExpCost could not
        // replace (read-only): V8 would convert that again at each run, unseen (seventeenth review).
        if (typeof name === "string" && !kit.isObject(lastIndex.value)) return apply(original, this, args);
        // On a twin (twinProto), whose exec is the guarded one: each run V8's loop makes is charged by what
        // is left of the text (the linear engine may scan to the end for each match: 3,000 matches of
        // /[^]*y|x/ took 0.18 s; sixteenth review of 2026-11-26).
        const twin = twinFrom(regexp, apply(sourceGetter, regexp, []), apply(weakGet, flagsOf, [regexp]) + "l");
        twin.lastIndex = from as number;
        const writes = typeof name === "string" || name === Symbol.replace || name === Symbol.match || name === Symbol.search;
        if (writes && !lastIndex.writable && (twin.global || twin.sticky || (name === Symbol.search && lastIndex.value !== 0))) {
          throw new TypeError(`Cannot assign to read only property 'lastIndex' of object '${apply(RegExpProto.toString, regexp, [])}'`);
        }
        if (typeof name === "string") return apply(original, twin, args);
        if (name === Symbol.split) return splitByRegExp(regexp, text, args[1]);
        const result = apply(original, twin, args);
        // V8 leaves lastIndex where its loop ended (replace and match; search puts it back).
        if (name === Symbol.replace || name === Symbol.match) apply(nativeReflectSet, undefined, [regexp, "lastIndex", twin.lastIndex]);
        return result;
      },
    }).method);
  }
  defineProperty(twinProto, "exec", { value: RegExpProto.exec, writable: true, enumerable: false, configurable: true });
  Object.freeze(twinProto);
  /**
   * V8's RegExp.prototype[Symbol.*] run ECMAScript's generic algorithm on whatever `exec` the receiver has,
   * and take what it answers on trust: a result claiming 30 million captures was walked natively for 0.7 s
   * (fourteenth review of 2026-11-26), its `index` or a `lastIndex` getter made numbers unseen. So in
   * contracts they work on a regular expression of chainsim's whose `exec` is the built-in, and `split` and
   * `matchAll`, which make a new one with the species constructor, on one whose constructor is RegExp's own
   * (docs/contracts.md §14). Looked up as V8 would find them, without running a getter.
   */
  const guardedExec = RegExpProto.exec;
  const speciesGetter = getOwnPropertyDescriptor(GuardedRegExp, Symbol.species)?.get;
  /**
   * ECMAScript's RegExp.prototype[Symbol.split], with one search from each position instead of a sticky
   * attempt at each (V8's generic loop on a twin costs about 3 µs a position): the first match at or after q
   * is the sticky match at the first position where one exists, so the pieces are the same. Each match costs
   * MATCH_UNITS, as a string separator's; the scan was charged by regExpCost. Contracts have no `u` or `v`
   * flag, so a position advances by one code unit.
   */
  const splitByRegExp = (regexp: RegExp, text: string, limit: unknown): string[] => {
    let flags = "gl";
    const own = apply(weakGet, flagsOf, [regexp]) as string;
    for (let i = 0; i < own.length; i++) if (own[i] !== "g" && own[i] !== "y") flags += own[i];
    const searcher = twinFrom(regexp, apply(sourceGetter, regexp, []), flags);
    const most = limit === undefined ? 2 ** 32 - 1 : toNumber(limit) >>> 0;
    // Filled without a prototype (no setter on Array.prototype sees the writes, as V8 defines them), then an array.
    const pieces = list<string>();
    const done = () => {
      makesElements(pieces.length);
      return kit.natives.setPrototypeOf(pieces, arrayPrototype) as string[];
    };
    if (most === 0) return done();
    const size = text.length;
    if (size === 0) {
      searcher.lastIndex = 0;
      const z = apply(regExpExec, searcher, [text]) as RegExpExecArray | null;
      if (z === null || z.index !== 0) pieces[0] = text;
      return done();
    }
    let p = 0;
    let q = 0;
    while (q < size) {
      searcher.lastIndex = q;
      regExpCost(searcher, text); // each search may scan to the end
      const z = apply(regExpExec, searcher, [text]) as RegExpExecArray | null;
      if (z === null || z.index >= size) break;
      work(MATCH_UNITS);
      const end = min(searcher.lastIndex, size);
      if (end === p) {
        q = z.index + 1;
        continue;
      }
      pieces[pieces.length] = apply(stringSlice, text, [p, z.index]) as string;
      if (pieces.length === most) return done();
      p = end;
      for (let i = 1; i < z.length; i++) {
        pieces[pieces.length] = z[i]!;
        if (pieces.length === most) return done();
      }
      q = p;
    }
    pieces[pieces.length] = apply(stringSlice, text, [p, size]) as string;
    return done();
  };
  /** A regular expression itself (a contract's, made by makeRegExp, or chainsim's own), not a proxy of one. */
  const isNativeRegExp = (value: object): boolean => {
    if (isRecordedRegExp(value)) return true;
    if (value === RegExpProto) return false;
    try {
      apply(sourceGetter, value, []);
      return true;
    } catch {
      return false;
    }
  };
  const ownMatcher = (receiver: unknown, name: symbol, method: string): void => {
    if (receiver === null || typeof receiver !== "object") return; // V8's own TypeError
    if (!isNativeRegExp(receiver)) throw new TypeError(`${method} is allowed in contracts only on a regular expression`);
    const exec = kit.lookup(receiver as object, "exec");
    if (exec == null || exec.value !== guardedExec) throw new TypeError(`${method} is allowed in contracts only on a regular expression with the built-in exec`);
    if (name !== Symbol.split && name !== Symbol.matchAll) return;
    const made = kit.lookup(receiver as object, "constructor");
    const species = kit.lookup(GuardedRegExp, Symbol.species);
    if (made == null || made.value !== GuardedRegExp || species == null || species.get !== speciesGetter) {
      throw new TypeError(`${method} is allowed in contracts only on a regular expression whose constructor is RegExp`);
    }
  };
  replace(RegExpProto, "toString", () => ({
    toString(this: any) {
      const source = toText(this.source);
      const flags = toText(this.flags);
      // Any object can be the receiver, with a source of millions of characters: a string made.
      makesString(source.length + flags.length + 2);
      return `/${source}/${flags}`;
    },
  }).toString);
  // Digits in another radix, or more than 20 of them, can be a thousand characters of exact arithmetic
  // (about 10 µs: 5e-324 in base 2): a step each (found by the fifth review of 2026-11-26).
  const MANY_DIGITS = 20;
  charged(global.Number.prototype, "toString", (_n, args) => args[0] !== undefined && args[0] !== 10 && work(limits.unit));
  for (const name of ["toFixed", "toPrecision", "toExponential"]) {
    charged(global.Number.prototype, name, (receiver, args) => {
      // V8 refuses a receiver that is not a number before it converts the digits.
      if (args[0] === undefined || (typeof receiver !== "number" && !hasSlot(numberValueOf, receiver))) return;
      // Converted once, here: V8 gets the primitive, and a valueOf answers once.
      args[0] = kit.toPrimitive(args[0], "number");
      if (!(toNumber(args[0]) <= MANY_DIGITS)) work(limits.unit);
    });
  }
  replace(RegExpProto, "compile", () => ({
    compile() {
      throw new TypeError("RegExp.prototype.compile is not supported in contracts");
    },
  }).compile);
  kit.makeRegExp = (source: string, flags: string) => makeRegExp(source, flags);
  kit.quoteJson = quoteJson;

  // ---- JSON -------------------------------------------------------------------------------------------
  const JSONObject = global.JSON;
  replace(JSONObject, "parse", (original) => ({
    method(text: unknown, reviver?: unknown) {
      const source = toText(text);
      parseCost(source, reviver);
      return apply(original, undefined, [source, reviver]);
    },
  }).method);
  /**
   * Each array or object V8 makes costs about 100–150 ns (measured: a million nested `[` took 0.15 s, a
   * million `[]` 0.09 s), far more than its characters: counted before V8 parses (a pass over the text, a
   * few ns a character) and charged per container.
   */
  const CONTAINER_UNITS = 150;
  /** The string a JSON string literal stands for; undefined for a malformed one, which V8's parse will refuse. */
  const literalText = (text: string, from: number, to: number): string | undefined => {
    try {
      return nativeParse(apply(stringSlice, text, [from, to]) as string) as string;
    } catch {
      return undefined;
    }
  };
  const JSON_TEXT_UNITS = 3;
  /** A reviver call (V8 walks the value and calls it, about 0.5 µs each for a built-in). */
  const REVIVER_UNITS = 256;
  function parseCost(text: string, reviver: unknown) {
    let containers = 0;
    let commas = 0;
    let depth = 0;
    let deepest = 0;
    let inString = false;
    // The last string literal, while only white space follows it: a key if a colon comes next.
    let literalStart = -1;
    let literalEnd = -1;
    for (let i = 0; i < text.length; i++) {
      const c = apply(charCodeAt, text, [i]) as number;
      // Brackets inside a string literal make nothing (a backslash escapes the next character).
      if (inString) {
        if (c === 0x5c) i++;
        else if (c === 0x22) {
          inString = false;
          literalEnd = i;
        }
      } else if (c === 0x22) {
        inString = true;
        literalStart = i + 1;
        literalEnd = -1;
      } else if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
      else {
        // V8 makes each key a property key (long ones collide: kit.keyUse), read here as V8 will read it.
        if (c === 0x3a && literalEnd - literalStart > kit.UNHASHED_TEXT) kit.keyUse(literalText(text, literalStart - 1, literalEnd + 1));
        literalEnd = -1;
        if (c === 0x5b || c === 0x7b) {
          containers++;
          if (++depth > deepest) deepest = depth;
        } else if (c === 0x5d || c === 0x7d) depth--;
        else if (c === 0x2c) commas++;
      }
    }
    work(JSON_TEXT_UNITS * text.length + CONTAINER_UNITS * containers);
    meter.alloc(8 * text.length);
    // A reviver walks the result recursively in V8: refuse a nesting the stack model would not hold. It is
    // called once per value (at most one more than the commas and brackets), a built-in one included, which
    // no contract step counts (fifteenth review of 2026-11-26: Object.is over 500,000 values, 0.3 s).
    if (typeof reviver === "function") {
      work(REVIVER_UNITS * (commas + containers + 1));
      const token = meter.push(deepest * LEVEL_FRAME);
      meter.pop(token, undefined);
    }
  }
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
        const { value: items, length: n } = arrayLike(replacer);
        work(n);
        for (let i = 0; i < n; i++) {
          const v = (items as unknown[])[i];
          let item: string | undefined;
          if (typeof v === "string") item = v;
          else if (typeof v === "number") item = toText(v);
          else if (hasSlot(stringValueOf, v) || hasSlot(numberValueOf, v)) item = toText(v);
          if (item !== undefined) kit.keyUse(item); // looked up in `seen`, then in each object as a key
          if (item !== undefined && !apply(setHas, seen, [item])) {
            apply(setAdd, seen, [item]);
            propertyList[propertyList.length] = item;
          }
        }
      }
      let gap = "";
      let spacing: unknown = space;
      if (spacing !== null && typeof spacing === "object") {
        if (hasSlot(numberValueOf, spacing)) spacing = toNumber(kit.numberPrimitive(spacing)); // a `valueOf` answering a long string: charged
        else if (hasSlot(stringValueOf, spacing)) spacing = toText(spacing);
      }
      if (typeof spacing === "number") {
        const n = min(10, integer(spacing));
        for (let i = 0; i < n; i++) gap += " ";
      } else if (typeof spacing === "string") {
        gap = apply(stringSlice, spacing, [0, 10]);
      }
      // The output's length so far (leaves, keys and punctuation; containers are not counted twice), charged
      // as memory as it is made (a circular value found after a long text throws before any end).
      let produced = 0;
      const emit = (text: string): string => {
        produced += text.length;
        if (produced > limits.maxStringLength) meter.fatal(MEMORY_LIMIT);
        if (text.length >= limits.unit) work(text.length);
        meter.alloc(2 * text.length);
        return text;
      };
      const quote = (text: string): string => emit(quoteJson(text));
      /** A container's own text: brackets, commas, and with a gap a line break and indentation per part. */
      const contained = (count: number, inner: string, indent: string) => {
        const own = 2 + count + (gap === "" || count === 0 ? 0 : count * (inner.length + 1) + indent.length + 1);
        produced += own;
        if (produced > limits.maxStringLength) meter.fatal(MEMORY_LIMIT);
        work(own);
        meter.alloc(2 * own);
      };
      const serialize = (holder: any, key: string, indent: string): string | undefined => {
        meter.charge(1);
        let v = holder[key];
        if (v !== null && (typeof v === "object" || typeof v === "function")) {
          const toJSON = (v as { toJSON?: unknown }).toJSON;
          if (typeof toJSON === "function") v = apply(toJSON, v, [key]);
        }
        if (replacerFunction) v = apply(replacerFunction, holder, [key, v]);
        if (v !== null && typeof v === "object") {
          if (hasSlot(numberValueOf, v)) v = toNumber(kit.numberPrimitive(v));
          else if (hasSlot(stringValueOf, v)) v = toText(v);
          else if (hasSlot(booleanValueOf, v)) v = apply(booleanValueOf, v, []);
        }
        if (v === null) return emit("null");
        if (v === true) return emit("true");
        if (v === false) return emit("false");
        if (typeof v === "string") return quote(v);
        if (typeof v === "number") return emit(v === v && v !== Infinity && v !== -Infinity ? toText(v) : "null");
        if (typeof v !== "object" || typeof v === "function") return undefined;
        if (apply(setHas, stack, [v])) throw new TypeError("Converting circular structure to JSON");
        const token = meter.push(LEVEL_FRAME);
        apply(setAdd, stack, [v]);
        try {
          const inner = indent + gap;
          const parts = list<string>();
          if (isArray(v)) {
            const { value: items, length: n } = arrayLike(v);
            for (let i = 0; i < n; i++) parts[parts.length] = serialize(items, toText(i), inner) ?? emit("null");
            contained(parts.length, inner, indent);
            if (parts.length === 0) return "[]";
            return gap === "" ? "[" + joinParts(parts, ",") + "]" : "[\n" + inner + joinParts(parts, ",\n" + inner) + "\n" + indent + "]";
          }
          if (propertyList === undefined) makesElements(keyCount(v));
          const keys = propertyList ?? objectKeys(v);
          for (let i = 0; i < keys.length; i++) {
            const k = keys[i]!;
            const text = serialize(v, k, inner);
            if (text !== undefined) parts[parts.length] = quote(k) + (gap === "" ? ":" : ": ") + text;
            if (produced > limits.maxStringLength) meter.fatal(MEMORY_LIMIT);
          }
          contained(parts.length, inner, indent);
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

  // A symbol's text is made anew by each call, "Symbol(" + description + ")": a string made (a new long key
  // each time costs V8 a copy when it is used as a property key).
  const descriptionOf = Object.getOwnPropertyDescriptor(Symbol.prototype, "description")!.get!;
  const symbolValueOf = Symbol.prototype.valueOf;
  const symbolText = (receiver: unknown) => {
    // A Symbol object's text is its symbol's (nineteenth review of 2026-11-26); V8's TypeError for anything else.
    let symbol = receiver;
    if (typeof receiver === "object" && receiver !== null) {
      try {
        symbol = apply(symbolValueOf, receiver, []);
      } catch {
        return;
      }
    }
    const description = typeof symbol === "symbol" ? (apply(descriptionOf, symbol, []) as string | undefined) : undefined;
    makesString(description === undefined ? 8 : description.length + 8);
  };
  charged(global.Symbol.prototype, "toString", (receiver) => symbolText(receiver));
  // Object.prototype.toString makes "[object " + tag + "]" of a Symbol.toStringTag a contract controls, as
  // pieces V8 copies into one string at its first read: a 4 Mi-unit tag made each call and read cost a 4 MB
  // copy for no step (seventeenth review of 2026-11-26). Charged as a string made. V8 names an object in its
  // messages `#<Foo>` only while this is its own function, so they say `[object Object]` (docs/contracts.md §14).
  replace(global.Object.prototype, "toString", (original) => ({
    toString(this: unknown) {
      const text = apply(original, this, []) as string;
      makesString(text.length);
      return text;
    },
  }).toString);
  const NativeString = global.String as StringConstructor;
  const GuardedString = function String(this: unknown, ...args: unknown[]) {
    if (args.length > 0 && typeof args[0] === "symbol" && new.target === undefined) symbolText(args[0]);
    if (new.target === undefined) return apply(NativeString, undefined, args);
    return construct(NativeString, args, new.target === GuardedString ? NativeString : new.target);
  };
  kit.standIn("String", NativeString, GuardedString);
}
