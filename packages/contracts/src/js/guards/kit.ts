// Every file of guards/ is an installer evaluated INSIDE each isolate from its source text
// (`fn.toString()`, js-runtime.ts), in strict mode, before any contract code: self-contained, no outside
// references. This one makes the kit the others share. What is charged, and why: docs/contracts.md §13.

/** The meter of bootstrap.ts, as the guards see it. `charge`, `alloc`, `push` and `fatal` end the run on a limit. */
export interface GuardMeter {
  charge(steps: number): void;
  alloc(bytes: number): void;
  push(bytes: number): number;
  pop<T>(token: number, value: T): T;
  fatal(reason: string): never;
  /** Frames of the stack model now held. */
  frames(): number;
  /** Bytes of the stack model now held. */
  stackBytes(): number;
  /** Bytes of the stack model held by the innermost `frames` frames. */
  topBytes(frames: number): number;
}

export interface GuardLimits {
  /** Longest string a contract may make (UTF-16 code units). */
  maxStringLength: number;
  /** Units of size-proportional work (code units, elements, bytes) per step. */
  unit: number;
  /** Units of work per code unit of a text holding a lone surrogate that V8 escapes as JSON (js-runtime.ts). */
  loneSurrogateUnits: number;
}

/** What the installers share: natives captured before any contract ran, and the charging helpers. */
export interface GuardKit {
  global: any;
  meter: GuardMeter;
  limits: GuardLimits;
  MEMORY_LIMIT: string;
  STACK_LIMIT: string;
  /** Frame held by guarded code for each level it recurses through (larger than a native builtin frame). */
  LEVEL_FRAME: number;
  /** Runs a native holding a frame of the stack model: one LEVEL_FRAME, or `bytes`. */
  held<T>(run: () => T, bytes?: number): T;
  /** An array index as a number (a canonical numeric string or an integer below 2³² - 1); -1 for any other key. */
  arrayIndex(key: unknown): number;
  /** How V8 names a value that is called but is not a function ("number 5", 'string "x"', "object null"). */
  notCallable(value: unknown): string;
  /** A function whose name, as V8 words its messages, is `name` (one of the stood-in constructors), running `body`. */
  named(name: string, body: (newTarget: Function | undefined, self: unknown, args: unknown[]) => unknown): Function;
  /** Puts a guarded constructor in the place of the global `name` (see the implementation). */
  standIn(name: string, Native: Function, guarded: Function, options?: { parent?: object; skip?: (string | symbol)[] }): void;
  /** `units` of size-proportional work. */
  work(units: number): void;
  /** A string of `length` code units exists now (made by V8): the cap and the memory, no work. */
  holdsString(length: number): void;
  /** A string of `length` code units is about to be made. */
  makesString(length: number): void;
  /** An array of `length` elements is about to be made or walked. */
  makesElements(length: number): void;
  /** An object's element store grows by `length` elements: V8 reserves half as much again (docs/contracts.md §13). */
  reservesElements(length: number): void;
  /** `count` property keys (or collection entries of `bytesEach`) are about to be listed or made. */
  makesEntries(count: number, bytesEach: number): void;
  integer(value: unknown): number;
  /** ECMAScript's ToString (a symbol throws TypeError). */
  toText(value: unknown): string;
  /** An array no prototype setter can observe: our own working lists. */
  list<T>(): T[];
  /**
   * `pieces` (strings) joined by `glue` into one flat string by V8's own join: appending piece by piece
   * would build a tree of about 32 bytes per piece that the memory model does not see.
   */
  joined(pieces: string[], glue: string): string;
  /** Replaces `owner[name]` with `make(original)`, keeping the property's attributes, name and length. */
  replace(owner: any, name: string | symbol, make: (original: Function) => Function): void;
  /** A method that charges `cost(this, args)` before the original runs. */
  charged(owner: any, name: string | symbol, cost: (receiver: any, args: any[]) => void): void;
  /**
   * An array-like as native code will see it: `[value, length]` when its length is a plain value (an array,
   * a typed array, a string, a data property), or `[proxy, length]` where the length is an accessor or the
   * object a proxy: the proxy answers the length read here, so that a getter cannot answer the charge one
   * length and the native work another. (An object, not a pair: guard code never destructures an array,
   * which would run the iterator protocol a contract can replace.) Unless `walks` is false, the caller walks
   * every element: what that costs beyond 1 unit each (the generic path, the view's traps) is charged here.
   */
  arrayLike(value: unknown, walks?: boolean): { value: unknown; length: number };
  /** Prototypes above `value`, walked and charged (a proxy ends the walk). */
  chainDepth(value: object): number;
  /**
   * `parent` is about to become the prototype of an object with `below` levels of objects under it
   * (0 for a new object): ends the run with 155 if that makes any chain longer than CHAIN_LIMIT.
   */
  linkUnder(parent: unknown, below: number): void;
  /** `child` was just made with the prototype it has: the same check (`below`: levels it will have under it). */
  made<T>(child: T, below?: number): T;
  /** Units per element of reading `value`'s indices on V8's generic path (prototype lookups); 0 where direct. */
  lookupUnits(value: unknown): number;
  isTypedArray(value: unknown): boolean;
  isObject(value: unknown): value is object;
  /** A proxy a contract made (its target is in `chains`). */
  isProxy(value: unknown): boolean;
  /** ECMAScript's ToPrimitive with V8's messages (`asKey`: those of a property key). */
  toPrimitive(value: unknown, hint: "string" | "number" | "default", asKey?: boolean): unknown;
  /** ECMAScript's ToPropertyKey: a symbol, or a string (`keyMessages`: V8's messages of the routes that word a key's, the default). */
  toPropertyKey(value: unknown, keyMessages?: boolean): string | symbol;
  /** Comparing strings costs nothing up to this many code units. */
  LONG_TEXT: number;
  /** The length of a string longer than LONG_TEXT (comparing it costs that much); 0 for anything else. */
  longText(value: unknown): number;
  /** V8 hashes a string longer than this by its length alone: equal lengths collide in every table. */
  UNHASHED_TEXT: number;
  /**
   * A view of chainsim's over `target` (a proxy, counted in `chains` above it): each read is charged as a
   * contract proxy's trap (a view can be a prototype, read on every miss above it) and answered by `read`
   * (given the receiver: `target` for a read of the view itself); writes and definitions go to `target`,
   * charged alike, a typed array's value made a number as typedValue does.
   */
  view(target: object, read: (target: object, key: string | symbol, receiver: unknown) => unknown): object;
  /** Charges a walk of the whole stack (a sloppy function's `caller`, an error skipping frames). */
  stackWalk(): void;
  /** Charges listing a function's own properties, its `caller` and `arguments` included (see keyUse). */
  functionListing(value: unknown): void;
  /** Charges V8's capture of an error's frames (a new error, Error.captureStackTrace, an error V8 threw). */
  traceCaptured(): void;
  /**
   * `value` about to be written or defined at `key` of `target`: a typed array makes a number of what any
   * numeric key is given (`t[-1]` and `t["1.5"]` too), an index or not, so a long string is charged whole
   * and an object handed over behind a stand-in (numberStandIn). Anything else is answered as it is.
   */
  typedValue(target: object, key: unknown, value: unknown): unknown;
  /**
   * The descriptor of `key` found along `object`'s prototype chain as V8 would find it, without running a
   * getter or a trap: undefined where there is none, null where a proxy stands in the way.
   */
  lookup(object: object, key: string | symbol): PropertyDescriptor | undefined | null;
  /**
   * V8 is about to compare `value` with `target`'s own non-configurable property `key` (a redefinition, a
   * proxy's answer checked against its target): a long string there is compared in full, charged by its
   * length. A proxy target's property is not looked up (its trap would run): `value` is charged instead.
   */
  sameAsTarget(target: unknown, key: unknown, value: unknown): void;
  /** A property key (or a registry's) about to be looked up or stored: a string longer than LONG_TEXT is charged. */
  keyUse(key: unknown): void;
  /**
   * What to hand V8 as a property key in place of `value`: a string charged by keyUse, a primitive as it is,
   * an object wrapped so that its conversion (run by V8 where ECMAScript says, or never) is charged too.
   * V8 words a failed conversion in two ways, by route (reads, literals and patterns: `number 1 is not a
   * function`; `in`, `delete`, writes and most key built-ins: `'1' returned for property …`): `keyMessages`.
   */
  asPropertyKey(value: unknown, keyMessages?: boolean): unknown;
  /**
   * What V8 reads to make a number of `value` when that is longer than LONG_TEXT: a string's length, or a
   * String object's, however made (V8 unwraps it natively); 0 for anything else (another object's
   * conversion runs contract code, which charges itself).
   */
  numberText(value: unknown): number;
  /**
   * V8 makes a number of each of the values of `items` from `from` to `length`: their numberText charged,
   * and each object replaced by its numberStandIn (`items` must be a list of chainsim's, never a contract's).
   */
  numbersMade(items: unknown[], length: number, from?: number): void;
  /**
   * What to hand V8 in place of a value it will make a number of: an object behind a stand-in whose
   * `Symbol.toPrimitive` converts it and charges a long string it answers, where and when V8 converts it
   * (a `valueOf` answering 4 Mi digits was read by V8 unseen, 2.6 ms a time); anything else as it is.
   */
  numberStandIn(value: unknown): unknown;
  /** Called once the installers are done: natives that make numbers of their arguments, unguarded so far, are wrapped. */
  coverNumericArguments(): void;
  /** Called once the installers are done: the built-in iterators as they are then, which `iterated` trusts only unchanged. */
  protocolsInstalled(): void;
  /** The primitive V8 makes a number of (ToPrimitive, hint number: a `valueOf` runs once, here), a long string charged. */
  numberPrimitive(value: unknown): unknown;
  /** `target` gets `proto` as its prototype: what is under `target` moves under `proto`'s chain, checked by linkUnder. */
  relink(target: unknown, proto: unknown): void;
  /** The own keys a listing of `value` will produce, counted without listing where that could be large. */
  keyCount(value: unknown): number;
  /**
   * How many values iterating `value` natively yields, where a built-in iteration knows it (strings, arrays,
   * typed arrays, Set, Map, and the iterators the guarded factories made); 0 where contract code yields
   * each value (and is charged for it).
   */
  iterationBound(value: unknown): number;
  /** Units of work per value `iterator` (made by a built-in factory) yields beyond its price: the generic path's lookups. */
  yieldUnits(iterator: unknown): number;
  /** Records that `iterator`, made by a built-in factory, walks `source`; answers the iterator. */
  iterates(iterator: unknown, source: unknown): unknown;
  /**
   * For a native consumer of an iterable (`new Set(x)`, `Array.from(x)`): asks `value` for its iterator
   * once, here, so that the iterator's bound is known before V8 runs it. Answers what to give V8 instead
   * (an iterable that hands over that same iterator) and the bound; undefined when `value` is not iterable.
   */
  iterated(value: unknown): [unknown, number] | undefined;
  /** A typed array's own length (not a `length` property a contract could define); 0 for anything else. */
  typedLength(value: unknown): number;
  /** The size of a Set or Map a contract made; undefined for anything else. */
  sizeOf(value: object): number | undefined;
  /** Every Set and Map made (recorded by their guarded constructors). */
  collections: WeakSet<object>;
  /**
   * Natives taken before any guard is installed: an installer that runs after another (calls.ts after
   * collections.ts) would otherwise take the other's charged wrapper, which meters chainsim's own
   * bookkeeping and shows its arguments to a contract's proxy traps.
   */
  natives: {
    WeakMap: WeakMapConstructor;
    WeakSet: WeakSetConstructor;
    defineProperty: typeof Object.defineProperty;
    setPrototypeOf: typeof Object.setPrototypeOf;
    isExtensible: typeof Object.isExtensible;
    weakMapGet: typeof WeakMap.prototype.get;
    weakMapSet: typeof WeakMap.prototype.set;
    weakMapHas: typeof WeakMap.prototype.has;
    weakSetAdd: typeof WeakSet.prototype.add;
    weakSetHas: typeof WeakSet.prototype.has;
  };
  /** Proxies and bound functions a contract made, with their depth of chaining and the proxies' targets. */
  chains: WeakMap<object, { depth: number; target?: object }>;
  min(a: number, b: number): number;
  max(a: number, b: number): number;
  /** Counters the installers keep across calls; bootstrap.ts clears them when the contract's run starts. */
  runStarts: (() => void)[];
  /** Set by bootstrap.ts: what V8 is handed in place of a contract's iterator, so that its `return` is seen. */
  closing: { iterator?: (iterator: object) => unknown };
  /** Set by the installers for bootstrap.ts: */
  makeRegExp?: (source: string, flags: string) => RegExp;
  /** JSON.stringify of a string: lone surrogates charged before V8 escapes them, a result past the string cap fatal. */
  quoteJson?: (text: string) => string;
  engineLimit?: (error: unknown) => string | undefined;
  /** Whether a contract made `error` with an error constructor (its message is the contract's own). */
  madeByContract?: (error: object) => boolean;
  /**
   * `value` is about to be written to `receiver[key]`: an array's new length, or an element past the end of
   * an object's elements, is charged first; answers what to write (guards/collections.ts).
   */
  propertyWrite?: (receiver: unknown, key: unknown, value: unknown) => unknown;

  /** The elements an object that is not an array may keep (its highest index written + 1); 0 for anything else. */
  elementCount?: (value: unknown) => number;
}

export function makeGuardKit(global: any, meter: GuardMeter, limits: GuardLimits): GuardKit {
  const apply = Reflect.apply;
  const defineProperty = Object.defineProperty;
  const getOwnPropertyDescriptor = Reflect.getOwnPropertyDescriptor;
  const getPrototypeOf = Reflect.getPrototypeOf;
  const ownKeys = Reflect.ownKeys;
  const isArray = Array.isArray;
  const arrayIndexOf = Array.prototype.indexOf;
  const NativeString = String;
  /** ECMAScript's ToString: a symbol throws (String(symbol) would describe it instead). */
  const toText = (value: unknown): string => {
    if (typeof value === "symbol") throw new TypeError("Cannot convert a Symbol value to a string");
    return NativeString(value);
  };
  const toNumber = Number;
  const nativeJoin = Array.prototype.join;
  const toPrimitiveSymbol = Symbol.toPrimitive;
  const describeValue = (v: unknown): string => (typeof v === "string" ? `"${v}"` : typeof v === "symbol" ? "Symbol()" : typeof v + " " + toText(v));
  /** ECMAScript's ToPrimitive, with V8's messages (a property key's differ: `asKey`). */
  const toPrimitive = (value: unknown, hint: "string" | "number" | "default", asKey = false): unknown => {
    if (!isObject(value)) return value;
    const exotic = (value as Record<symbol, unknown>)[toPrimitiveSymbol];
    if (exotic !== undefined && exotic !== null) {
      if (typeof exotic !== "function") {
        throw new TypeError(asKey ? `'${typeof exotic === "symbol" ? "Symbol()" : toText(exotic)}' returned for property 'Symbol(Symbol.toPrimitive)' of object '[object Object]' is not a function` : `${describeValue(exotic)} is not a function`);
      }
      const result = apply(exotic, value, [hint]);
      if (isObject(result)) throw new TypeError("Cannot convert object to primitive value");
      return result;
    }
    for (let i = 0; i < 2; i++) {
      const method = (value as Record<string, unknown>)[(i === 0) === (hint === "string") ? "toString" : "valueOf"];
      if (typeof method === "function") {
        const result = apply(method, value, []);
        if (!isObject(result)) return result;
      }
    }
    throw new TypeError("Cannot convert object to primitive value");
  };
  /** ECMAScript's ToPropertyKey: a symbol, or a string. */
  const toPropertyKey = (value: unknown, keyMessages = true): string | symbol => {
    const primitive = toPrimitive(value, "string", keyMessages);
    return typeof primitive === "symbol" ? primitive : toText(primitive);
  };
  const setPrototypeOf = Object.setPrototypeOf;
  const NativeProxy = Proxy;
  const reflectGet = Reflect.get;
  const reflectSet = Reflect.set;
  const reflectDefineProperty = Reflect.defineProperty;
  const reflectHas = Reflect.has;
  const hasOwn = Object.prototype.hasOwnProperty;
  const WeakMapCtor = WeakMap;
  const WeakSetCtor = WeakSet;
  const weakGet = WeakMap.prototype.get;
  const weakSet = WeakMap.prototype.set;
  const TypedArrayProto = getPrototypeOf(Int8Array.prototype) as object;
  const typedLength = getOwnPropertyDescriptor(TypedArrayProto, "length")!.get!;
  // Answers undefined, never throws, for anything but a typed array: a brand check.
  const typedTag = getOwnPropertyDescriptor(TypedArrayProto, Symbol.toStringTag)!.get!;
  const setSize = getOwnPropertyDescriptor(Set.prototype, "size")!.get!;
  const mapSize = getOwnPropertyDescriptor(Map.prototype, "size")!.get!;
  const stringValue = String.prototype.valueOf;
  const chains = new WeakMapCtor<object, { depth: number; target?: object }>();
  const iteratorSources = new WeakMapCtor<object, unknown>();
  const weakHas = WeakMap.prototype.has;
  const iteratorSymbol = Symbol.iterator;

  const isObject = (value: unknown): value is object => value !== null && (typeof value === "object" || typeof value === "function");
  const min = (a: number, b: number) => (a < b ? a : b);
  const max = (a: number, b: number) => (a > b ? a : b);
  /**
   * Units of work not yet charged: small pieces add up (a native called a million times by another native,
   * on inputs below a unit each, is as much work as one call on a large input). Every call costs CALL_UNITS.
   */
  const LEVEL_FRAME = 256;
  let pendingUnits = 0;
  const CALL_UNITS = 16;
  const work = (units: number) => {
    pendingUnits += (units > 0 ? units : 0) + CALL_UNITS;
    if (pendingUnits < limits.unit) return;
    const steps = (pendingUnits - (pendingUnits % limits.unit)) / limits.unit;
    pendingUnits -= steps * limits.unit;
    meter.charge(steps);
  };
  const holdsString = (length: number) => {
    if (length > limits.maxStringLength) meter.fatal(MEMORY_LIMIT);
    meter.alloc(2 * length);
  };
  const makesString = (length: number) => {
    holdsString(length);
    work(length);
  };
  /** Strings longer than this are charged by their length when compared (or hashed and compared) in full. */
  const LONG_TEXT = 64;
  const longText = (value: unknown): number => (typeof value === "string" && value.length > LONG_TEXT ? value.length : 0);
  /**
   * Property keys (docs/contracts.md §13, "Long property keys"): a key longer than LONG_TEXT costs its
   * length. V8 turns a key into the one string of its text in the isolate's string table, and hashes a
   * string longer than 16,383 code units by its length alone, so such a key is compared with every other
   * key of its length (in the table, and in an object's dictionary): it also costs its length for each
   * distinct long key of that length used so far, at COMPARED_PER_UNIT code units a unit (V8 compares a
   * two-byte key with a one-byte one about 3 code units a nanosecond, twice: here and in its table; a unit
   * is about 2 ns of a budget), and its copy is memory.
   */
  const UNHASHED_TEXT = 16_383;
  const COMPARED_PER_UNIT = 2;
  const NativeMap = Map;
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapHas = Map.prototype.has;
  let longKeys = new NativeMap<string, true>();
  let longKeysOfLength = new NativeMap<number, number>();
  /**
   * Work V8 does frame by frame over the whole stack: reading a sloppy function's `caller` or `arguments`
   * (it looks for the function's activation), an error whose constructor is not on the stack, and
   * Error.captureStackTrace given one (it skips frames until it sees it). About 130 ns a frame of the model
   * (a contract frame and the native ones around it): 3,900 frames made each read 0.2 ms for no step
   * (seventeenth review of 2026-11-26).
   */
  const WALK_UNITS_PER_FRAME = 64;
  const stackWalk = (): void => work(meter.frames() * WALK_UNITS_PER_FRAME);
  /**
   * A sloppy function's `arguments`, read from outside it, is a new object holding the arguments of its
   * active call, up to the 65,536 a spread may pass (30,000 copied at each read reached V8's heap;
   * nineteenth review of 2026-11-26): as many elements as the stack model's argument slots now held.
   */
  const ARGUMENT_SLOT_BYTES = 16;
  const argumentsRead = (): void => {
    stackWalk();
    makesElements(meter.stackBytes() / ARGUMENT_SLOT_BYTES);
  };
  /**
   * Listing a function's own properties (`Object.entries`, `values`, `getOwnPropertyDescriptors`, spread, a
   * proxy's `ownKeys` checked by V8): a sloppy function's `caller` and `arguments` are read with the rest,
   * and a function with many properties is on V8's slow path (about 4 µs a listing).
   */
  const FUNCTION_LISTING_UNITS = 2048;
  const functionListing = (value: unknown): void => {
    if (typeof value !== "function") return;
    work(FUNCTION_LISTING_UNITS);
    stackWalk();
    argumentsRead();
  };
  /**
   * V8 captures 32 frames with each error (bootstrap.ts CAPTURED_FRAMES), about 5 µs, and decodes each
   * optimized one whole: 32 frames of functions with 200 locals made each capture about 50 µs, and a budget
   * of errors reached the clock (twenty-first review of 2026-11-26). Charged by the stack model's bytes
   * in the innermost 32 frames, which count each frame's locals and expressions.
   */
  const CAPTURE_UNITS = 2048;
  const CAPTURED_BYTES_PER_UNIT = 4;
  const traceCaptured = (): void => work(CAPTURE_UNITS + meter.topBytes(32) / CAPTURED_BYTES_PER_UNIT);
  const symbolDescription = getOwnPropertyDescriptor(Symbol.prototype, "description")!.get!;
  const keyUse = (key: unknown): void => {
    if (key === "caller") stackWalk(); // a sloppy function's (see stackWalk)
    else if (key === "arguments") argumentsRead();
    if (typeof key === "symbol") {
      // A function defined under a symbol key is named "[" + description + "]" by V8, a string made each
      // time (a 4 Mi-unit description read after each definition: a 4 MB copy; eighteenth review).
      const description = apply(symbolDescription, key, []) as string | undefined;
      if (description !== undefined && description.length > LONG_TEXT) makesString(description.length + 2);
      return;
    }
    if (typeof key !== "string" || key.length <= LONG_TEXT) return;
    const length = key.length;
    // A new string is hashed whole and compared in full with the equal key (fresh texts of 16,300 code
    // units made by a native, used as keys: 20 µs each).
    if (length <= UNHASHED_TEXT) return work(length);
    const others = (apply(mapGet, longKeysOfLength, [length]) as number | undefined) ?? 0;
    work(length + (length * others) / COMPARED_PER_UNIT); // before the lookup below, which costs as much
    if (apply(mapHas, longKeys, [key])) return;
    apply(mapSet, longKeys, [key, true]);
    apply(mapSet, longKeysOfLength, [length, others + 1]);
    meter.alloc(2 * length);
  };
  const sameAsTarget = (target: unknown, key: unknown, value: unknown): void => {
    if (!isObject(target)) return;
    if (isProxy(target)) return work(longText(value));
    if (typeof key !== "string" && typeof key !== "symbol") return;
    const own = getOwnPropertyDescriptor(target, key);
    if (own !== undefined && own.configurable === false) work(longText(own.value));
  };
  /**
   * What V8 is handed in place of an object it will convert: a stand-in without a prototype (V8 names it in
   * its messages as it names most objects it would not convert to print) whose `Symbol.toPrimitive` runs
   * `convert` once, where and when V8 converts, and answers the same after (a guard that converts for a
   * charge and V8 after it share one `valueOf`).
   */
  const convertingStandIn = (convert: (hint: "string" | "number" | "default") => unknown): object => {
    const standIn = setPrototypeOf({}, null) as Record<symbol, unknown>;
    let converted = false;
    let primitive: unknown;
    standIn[toPrimitiveSymbol] = (hint: "string" | "number" | "default") => {
      if (!converted) {
        primitive = convert(hint);
        converted = true;
      }
      return primitive;
    };
    return standIn;
  };
  const asPropertyKey = (value: unknown, keyMessages = false): unknown => {
    if (typeof value === "string" || typeof value === "symbol") {
      keyUse(value);
      return value;
    }
    if (!isObject(value)) return value;
    return convertingStandIn(() => {
      const key = toPropertyKey(value, keyMessages);
      keyUse(key);
      return key;
    });
  };
  /**
   * Units of work per array element made: V8 copies elements one by one on its generic paths (about 25 ns
   * each, where species or holes rule out a block copy), so that making arrays is ended by the step limit
   * (1 step per 128 elements) well within the clock, not by the memory model after millions of copies.
   */
  const ELEMENT_UNITS = 32;
  const makesElements = (length: number) => {
    if (!(length > 0)) return work(0);
    if (length > 1e9) meter.fatal(MEMORY_LIMIT);
    meter.alloc(8 * length);
    work(ELEMENT_UNITS * length);
  };
  /**
   * Units of work per key listed or entry made: V8 makes a string per index key (30-220 ns) and hashes each
   * entry of a Set or Map, so listings are ended by the step limit, not by the memory model after millions.
   */
  const ENTRY_UNITS = 96;
  const makesEntries = (count: number, bytesEach: number) => {
    if (!(count > 0)) return work(0); // the call itself, however small
    if (count > 1e9) meter.fatal(MEMORY_LIMIT);
    meter.alloc(bytesEach * count);
    work(ENTRY_UNITS * count);
  };
  /**
   * A built-in may make a number of any argument (an index, a count, a radix), reading a string whole to do
   * it (about 0.7 ns a character): an argument string longer than NUMBER_TEXT costs its length, whatever
   * the built-in does with it (docs/contracts.md §13).
   */
  const NUMBER_TEXT = 4096;
  const integer = (value: unknown): number => {
    const n = toNumber(numberPrimitive(value)); // a long string read whole to make a number: charged
    if (n !== n) return 0;
    if (n === Infinity || n === -Infinity) return n;
    return n - (n % 1);
  };
  /** ECMAScript's ToLength. */
  const toLength = (value: unknown): number => {
    const n = integer(value);
    return n > 0 ? min(n, 2 ** 53 - 1) : 0;
  };
  const isTypedArray = (value: unknown): boolean => isObject(value) && apply(typedTag, value, []) !== undefined;
  const isProxy = (value: unknown): boolean => isObject(value) && apply(weakGet, chains, [value])?.target !== undefined;

  /** A read through one of chainsim's views (kit.view), as a contract proxy's trap costs. */
  const VIEW_TRAP_UNITS = 512;
  /** chainsim's steady views (arrayLike) and the length each answers. */
  const steadyLengths = new WeakMapCtor<object, number>();
  /** Where `length` of `value` comes from without running contract code: a number, or undefined for "ask it". */
  const plainLength = (value: object): number | undefined => {
    for (let o: object | null = value, hops = 0; o !== null; o = getPrototypeOf(o), hops++) {
      if (isProxy(o) || hops > 10_000) return undefined;
      if (hops > 2) work(HOP_UNITS); // a walk up a long chain is work of its own
      const own = getOwnPropertyDescriptor(o, "length");
      if (own === undefined) continue;
      if (own.get === typedLength && isTypedArray(value)) return apply(typedLength, value, []) as number;
      if (!("value" in own)) return undefined;
      // A long string is read whole each time V8 reads the length: a view answers the number instead.
      return isObject(own.value) || longText(own.value) > 0 ? undefined : toLength(own.value);
    }
    return 0;
  };
  const ArrayProto = Array.prototype;
  const ObjectProto = Object.prototype;
  /** A plain array on the untouched prototype chain: V8 reads its elements on its fast paths. */
  const onArrayChain = (value: object): boolean => getPrototypeOf(value) === ArrayProto && getPrototypeOf(ArrayProto) === ObjectProto;
  /** V8's protector: with an element on Array.prototype or Object.prototype, every hole is looked up on the generic path. */
  const hasElement = (o: object): boolean => {
    const keys = ownKeys(o);
    work(keys.length * ENTRY_UNITS); // a built-in prototype a contract filled with keys lists them all
    return keys.length > 0 && arrayIndex(keys[0]) >= 0; // index keys are listed first
  };
  const arrayIndex = (key: unknown): number => {
    if (typeof key === "number") return key >>> 0 === key && key !== 4294967295 ? key : -1;
    if (typeof key !== "string" || key.length === 0 || key.length > 10) return -1;
    const first = key[0]!;
    if (first < "0" || first > "9") return -1; // not a digit: a name
    const n = toNumber(key);
    return n >>> 0 === n && n !== 4294967295 && "" + n === key ? n : -1;
  };
  /**
   * Prototype hops walked looking for a missing index, at most MAX_HOPS (a proxy ends the walk: its traps are
   * charged). Counting them is work too: HOP_UNITS each, about 48 ns: a hop of the walk here, and of V8 over a
   * prototype whose elements are in dictionary mode (20–37 ns; about 6 ns over one with none: twenty-third
   * review of 2026-11-26).
   */
  const MAX_HOPS = 100_000;
  const HOP_UNITS = 20;
  const chainDepth = (value: object): number => {
    let depth = 0;
    for (let o = getPrototypeOf(value); o !== null && depth < MAX_HOPS; o = getPrototypeOf(o)) {
      depth++;
      if (isProxy(o)) break;
    }
    if (depth > 2) work(HOP_UNITS * depth);
    return depth;
  };
  /**
   * The longest prototype chain a contract may make (docs/contracts.md §13): V8 walks a chain natively on
   * lookups its caches do not answer (conversions, `instanceof`, a missing key among many, any element key
   * that misses: instrument.ts COMPUTED_MEMBER_NODES), 6 to 37 ns a prototype, so a chain of thousands would
   * make each such step cost hundreds of steps' time (it was 256 until a chain of 255 prototypes with
   * dictionary elements made a budget of `o[0]` reach the clock: twenty-third review of 2026-11-26). Every route
   * that links an object to a prototype checks the chain (guards/collections.ts, among them a function's
   * `prototype` when it is set; guards/calls.ts; the classes and `__proto__` literals instrument.ts marks).
   * Joining chains is checked too: `heights` keeps how many levels each object is known to have under it.
   */
  const CHAIN_LIMIT = 32;
  const CHAIN_EXCEEDED = "Prototype chain exceeding limit";
  const heights = new WeakMapCtor<object, number>();
  /** A step up a chain as V8's lookups take it: a proxy of a contract's forwards to its target. */
  const above = (o: object): object | null => (isProxy(o) ? apply(weakGet, chains, [o])!.target! : getPrototypeOf(o));
  const linkUnder = (parent: unknown, below: number): void => {
    if (!isObject(parent)) return;
    // A write that misses an object reaches a typed array above it, which makes a number of the value (and
    // drops it for an index it lacks) natively, unseen (seventeenth review of 2026-11-26).
    if (isTypedArray(parent)) throw new TypeError("A typed array as a prototype is not allowed in contracts");
    // `distance`: levels from the deepest object under the new link up to `o`.
    let distance = below + 1;
    let raising = true;
    let hops = 0;
    for (let o: object | null = parent; o !== null; o = above(o), hops++) {
      if (raising) {
        const known = apply(weakGet, heights, [o]) as number | undefined;
        // Every prototype above has at least one level more than an object under it: the rest are known.
        if (known !== undefined && known >= distance) raising = false;
        else apply(weakSet, heights, [o, distance]);
      }
      if (++distance > CHAIN_LIMIT + 1) meter.fatal(CHAIN_EXCEEDED);
    }
    if (hops > 2) work(HOP_UNITS * hops);
  };
  /** Levels of objects known to be under `value` (at least 1: an object may have instances no guard sees). */
  const levelsBelow = (value: object): number => {
    const known = apply(weakGet, heights, [value]) as number | undefined;
    return known !== undefined && known > 1 ? known : 1;
  };
  // A proxy's own move is its handler's: a trap moves what it moves through these routes, chainsim's
  // forwarder (guards/calls.ts) moves the target.
  const relink = (target: unknown, proto: unknown): void => {
    if (isObject(proto) && isObject(target)) linkUnder(proto, isProxy(target) ? 0 : levelsBelow(target));
  };
  const made = <T>(child: T, below = 0): T => {
    if (isObject(child) && !isProxy(child)) linkUnder(getPrototypeOf(child), below);
    return child;
  };
  /**
   * Units per element of reading `value`'s indices natively on V8's generic path (about 18 ns, plus a hop per
   * prototype a missing index is looked up on; 1 unit is about 2.4 ns): an array-like object, a holey array
   * on a long chain, an element on a built-in prototype. `lookupUnits` is 0 where V8 reads elements directly.
   */
  const GENERIC_UNITS = 8;
  const lookupUnits = (value: unknown): number => {
    if (!isObject(value) || isTypedArray(value) || isProxy(value)) return 0;
    const depth = chainDepth(value);
    return GENERIC_UNITS + HOP_UNITS * depth;
  };
  /** Units per element of a steady view (kit.arrayLike): each index read is a trap of chainsim's (~120 ns). */
  const STEADY_UNITS = 64;
  /** Short walks are not worth the protector check. */
  const SHORT_WALK = 256;
  /**
   * What walking `length` elements of `value` costs beyond the 1 unit per element its caller charges: 1 more
   * on a plain array (V8 compares or copies each, ~5 ns), the generic path's price anywhere else.
   */
  const walkSurplus = (value: object, length: number): number => {
    if (isTypedArray(value)) return 0;
    if (isArray(value) && !isProxy(value) && onArrayChain(value) && (length < SHORT_WALK || (!hasElement(ArrayProto) && !hasElement(ObjectProto)))) return 1;
    return lookupUnits(value);
  };
  const arrayLike = (value: unknown, walks = true): { value: unknown; length: number } => {
    if (typeof value === "string") return { value, length: value.length };
    if (!isObject(value)) return { value, length: 0 };
    const plain = plainLength(value);
    if (plain !== undefined) {
      if (walks && plain > 0) work(plain * walkSurplus(value, plain));
      return { value, length: plain };
    }
    // A view of chainsim's already answers a fixed length: it is not put behind another (a contract can
    // get one as a callback's array argument and hand it back, which would nest views without end).
    const fixed = apply(weakGet, steadyLengths, [value]) as number | undefined;
    if (fixed !== undefined) {
      if (walks && fixed > 0) work(fixed * STEADY_UNITS);
      return { value, length: fixed };
    }
    const length = toLength((value as { length?: unknown }).length);
    if (walks && length > 0) work(length * (STEADY_UNITS + walkSurplus(value, length)));
    const steady = view(value, (target, key, receiver) => (key === "length" ? length : reflectGet(target, key, receiver)));
    apply(weakSet, steadyLengths, [steady, length]);
    return { value: steady, length };
  };
  const view = (target: object, read: (target: object, key: string | symbol, receiver: unknown) => unknown): object => {
    const made: object = new NativeProxy(target, {
      get: (inner, key, receiver) => {
        work(VIEW_TRAP_UNITS);
        return read(inner, key, receiver === made ? inner : receiver);
      },
      // Charged as reads are: a chain of views as prototypes is walked by a write that misses (seventeenth review).
      set: (inner, key, v, receiver) => {
        work(VIEW_TRAP_UNITS);
        return reflectSet(inner, key, typedValue(inner, key, v), receiver === made ? inner : receiver);
      },
      defineProperty: (inner, key, descriptor) => {
        work(VIEW_TRAP_UNITS);
        if (apply(hasOwn, descriptor, ["value"])) descriptor.value = typedValue(inner, key, descriptor.value);
        return reflectDefineProperty(inner, key, descriptor);
      },
      // `in` and `instanceof` walk a chain of views too (`'k' in o` over 126 of them: 0.9 s a budget).
      has: (inner, key) => {
        work(VIEW_TRAP_UNITS);
        return reflectHas(inner, key);
      },
      getPrototypeOf: (inner) => {
        work(VIEW_TRAP_UNITS);
        return getPrototypeOf(inner);
      },
    });
    // Counted as a proxy over `target` in chains: a contract's proxies over it count it (calls.ts).
    apply(weakSet, chains, [made, { depth: (apply(weakGet, chains, [target])?.depth ?? 0) + 1, target }]);
    return made;
  };
  const lookup = (object: object, key: string | symbol): PropertyDescriptor | undefined | null => {
    for (let o: object | null = object, hops = 0; o !== null && hops < 300; o = getPrototypeOf(o), hops++) {
      if (isProxy(o)) return null;
      const own = getOwnPropertyDescriptor(o, key);
      if (own !== undefined) return own;
    }
    return undefined;
  };

  /** A String object's text, without throwing for anything else (only an object with a fixed own `length` can be one). */
  const stringObjectText = (value: object): string | undefined => {
    const own = getOwnPropertyDescriptor(value, "length");
    if (own === undefined || own.configurable !== false || own.writable !== false || typeof own.value !== "number") return undefined;
    try {
      return apply(stringValue, value, []) as string;
    } catch {
      return undefined; // not a String object
    }
  };
  const numberText = (value: unknown): number => {
    if (typeof value === "string") return value.length > LONG_TEXT ? value.length : 0;
    // `new String(s)`, `Object(s)` and a sloppy function's `this` alike; a proxy never is one (and its traps must not run here).
    const text = isObject(value) && !isProxy(value) ? stringObjectText(value) : undefined;
    return text !== undefined && text.length > LONG_TEXT ? text.length : 0;
  };
  const numberPrimitive = (value: unknown): unknown => {
    const primitive = toPrimitive(value, "number");
    work(numberText(primitive));
    return primitive;
  };
  const numberStandIn = (value: unknown): unknown => {
    if (!isObject(value)) return value;
    return convertingStandIn((hint) => {
      const primitive = toPrimitive(value, hint);
      work(numberText(primitive));
      return primitive;
    });
  };
  /** ECMAScript's CanonicalNumericIndexString (such a text is at most 25 code units long). */
  const isNumericKey = (key: unknown): boolean => typeof key === "number" || (typeof key === "string" && key.length <= 25 && (key === "-0" || toText(+key) === key));
  const typedValue = (target: object, key: unknown, value: unknown): unknown => {
    if (!isTypedArray(target) || !(arrayIndex(key) >= 0 || isNumericKey(key))) return value;
    work(numberText(value));
    return numberStandIn(value);
  };
  const numbersMade = (items: unknown[], length: number, from = 0): void => {
    let text = 0;
    for (let i = from; i < length; i++) {
      const item = items[i];
      if (isObject(item)) items[i] = numberStandIn(item);
      else text += numberText(item);
    }
    work(text);
  };
  const keyCount = (value: unknown): number => {
    if (typeof value === "string") return value.length;
    if (!isObject(value)) return 0;
    const chain = apply(weakGet, chains, [value]);
    if (chain?.target !== undefined) return keyCount(chain.target);
    if (isTypedArray(value)) return apply(typedLength, value, []) as number;
    if (isArray(value)) return (value as unknown[]).length;
    // A String object lists its indices.
    const text = stringObjectText(value);
    if (text !== undefined) return text.length;
    // Every key of an ordinary object was paid for when it was made.
    return ownKeys(value).length;
  };

  /** Every Set and Map a contract made (the guarded constructors record them): a brand check that never throws. */
  const collections = new WeakSetCtor<object>();
  const weakSetHas = WeakSetCtor.prototype.has;
  const sizeOf = (value: object): number | undefined => {
    if (!apply(weakSetHas, collections, [value])) return undefined;
    try {
      return apply(setSize, value, []) as number;
    } catch {
      return apply(mapSize, value, []) as number;
    }
  };
  /** What walking `source` yields natively: an array iterator reads `length` live, a getter is contract code. */
  const walkBound = (source: unknown): number => {
    if (typeof source === "string") return source.length;
    if (!isObject(source)) return 0;
    if (isTypedArray(source)) return apply(typedLength, source, []) as number;
    return sizeOf(source) ?? plainLength(source) ?? 0;
  };
  const iterationBound = (value: unknown): number => {
    if (typeof value === "string") return value.length;
    if (!isObject(value)) return 0;
    if (apply(weakHas, iteratorSources, [value])) return walkBound(apply(weakGet, iteratorSources, [value]));
    if (isProxy(value)) return 0; // its traps are contract code, charged as they run
    if (isTypedArray(value)) return apply(typedLength, value, []) as number;
    if (isArray(value)) return (value as unknown[]).length;
    return sizeOf(value) ?? 0;
  };
  /** Units per value an array iterator's `next` costs beyond its price: the generic path of what it walks. */
  const yieldUnits = (iterator: unknown): number => {
    const source = isObject(iterator) ? apply(weakGet, iteratorSources, [iterator]) : undefined;
    if (!isObject(source) || (isArray(source) && !isProxy(source) && onArrayChain(source))) return 0;
    return lookupUnits(source);
  };
  const iterates = (iterator: unknown, source: unknown): unknown => {
    if (isObject(iterator)) apply(weakSet, iteratorSources, [iterator, source]);
    return iterator;
  };
  const closing: { iterator?: (iterator: object) => unknown } = setPrototypeOf({}, null);
  /**
   * The built-in iterators as the installers leave them: [a collection's @@iterator, its iterator
   * prototype, that prototype's `next`]. A contract can replace either (`next` with a built-in that never
   * says done: Object.prototype.valueOf), and then what V8 iterates natively is not what was counted.
   */
  const protocols = setPrototypeOf([], null) as [Function, object, unknown][];
  const protocolsInstalled = () => {
    for (const sample of [[] as unknown, "", new Set(), new Map()]) {
      const method = (sample as Record<symbol, Function>)[iteratorSymbol]!;
      const proto = getPrototypeOf(apply(method, sample, []) as object) as object;
      protocols[protocols.length] = setPrototypeOf([method, proto, getOwnPropertyDescriptor(proto, "next")?.value], null) as [Function, object, unknown];
    }
    const typed = getOwnPropertyDescriptor(TypedArrayProto, iteratorSymbol)!.value as Function;
    protocols[protocols.length] = setPrototypeOf([typed, protocols[0]![1], protocols[0]![2]], null) as [Function, object, unknown];
  };
  const intact = (method: unknown): boolean => {
    for (let i = 0; i < protocols.length; i++) {
      const protocol = protocols[i]!; // indexed, not destructured: no iterator of a contract's runs here
      if (method === protocol[0]) return getOwnPropertyDescriptor(protocol[1], "next")?.value === protocol[2];
    }
    return false;
  };
  const iterated = (value: unknown): [unknown, number] | undefined => {
    if (value === null || value === undefined) return undefined;
    const method = (value as Record<symbol, unknown>)[iteratorSymbol];
    if (typeof method !== "function") return undefined; // V8's own "is not iterable" where it is wrong
    const known = typeof value === "string" || isTypedArray(value) || (isArray(value) && !isProxy(value)) || (isObject(value) && sizeOf(value) !== undefined);
    if (known && intact(method)) {
      // V8 gets the method already read (a getter could answer another one the second time).
      const held = setPrototypeOf({}, null) as Record<symbol, unknown>;
      held[iteratorSymbol] = () => apply(method as Function, value, []);
      return [held, iterationBound(value)];
    }
    const iterator = apply(method as Function, value, []);
    const once = setPrototypeOf({}, null) as Record<symbol, unknown>;
    const handed = isObject(iterator) && closing.iterator !== undefined ? closing.iterator(iterator) : iterator;
    once[iteratorSymbol] = () => handed;
    return [once, iterationBound(iterator)];
  };

  /**
   * Runs a native holding a frame of the stack model: natives that call back (a callback, a getter, a bound
   * guarded method) can recurse with no contract frame in between, and V8's real stack must never be what ends that.
   */
  const held = <T>(run: () => T, bytes = LEVEL_FRAME): T => {
    const token = meter.push(bytes);
    try {
      return run();
    } finally {
      meter.pop(token, undefined);
    }
  };
  /**
   * Puts `guarded` where the global constructor `name` (`Native`) was: its name, `length`, static members
   * (but `skip`) and prototype chain (`parent`, else Native's), and `Native.prototype.constructor` points at
   * it, so that no contract reaches the native.
   */
  const standIn = (name: string, Native: Function, guarded: Function, options: { parent?: object; skip?: (string | symbol)[] } = {}): void => {
    defineProperty(guarded, "name", { value: name, configurable: true });
    defineProperty(guarded, "length", { value: Native.length, configurable: true });
    setPrototypeOf(guarded, options.parent ?? getPrototypeOf(Native));
    const keys = ownKeys(Native);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      if (key === "name" || key === "length" || (options.skip !== undefined && apply(arrayIndexOf, options.skip, [key]) >= 0)) continue;
      defineProperty(guarded, key, getOwnPropertyDescriptor(Native, key)!);
    }
    defineProperty(Native.prototype, "constructor", { value: guarded, writable: true, enumerable: false, configurable: true });
    defineProperty(global, name, { value: guarded, writable: true, enumerable: false, configurable: true });
  };
  const argumentTexts = (args: unknown[]) => {
    let text = 0;
    for (let i = 0; i < args.length; i++) {
      const length = numberText(args[i]);
      if (length > NUMBER_TEXT) text += length;
    }
    if (text > 0) work(text);
  };
  /**
   * The arguments each native makes numbers of itself (ECMAScript's ToIntegerOrInfinity, ToIndex…), where an
   * object is handed over behind numberStandIn by `replace`; installers that convert an argument themselves
   * (kit.integer, numberPrimitive) and the lists of numbersMade are not here.
   */
  const numericArguments = new WeakMapCtor<Function, number[]>();
  const NUMERIC_ARGUMENTS: [object | undefined, (string | symbol)[], number[]][] = [
    [RegExp.prototype, [Symbol.split], [1]],
    [String.prototype, ["at", "charAt", "charCodeAt", "codePointAt"], [0]],
    [String.prototype, ["endsWith", "startsWith"], [1]],
    [String.prototype, ["slice", "substr", "substring"], [0, 1]],
    [Number.prototype, ["toExponential", "toFixed", "toPrecision", "toString"], [0]],
    [Array.prototype, ["at", "with"], [0]],
    [Array.prototype, ["includes", "indexOf", "lastIndexOf"], [1]],
    [Array.prototype, ["slice", "splice", "toSpliced"], [0, 1]],
    [Array.prototype, ["copyWithin"], [0, 1, 2]],
    [TypedArrayProto, ["at"], [0]],
    [TypedArrayProto, ["includes", "indexOf", "lastIndexOf", "set"], [1]],
    [TypedArrayProto, ["slice", "subarray", "with"], [0, 1]],
    [TypedArrayProto, ["copyWithin", "fill"], [0, 1, 2]],
    [global.ArrayBuffer?.prototype, ["slice"], [0, 1]],
    [global.DataView?.prototype, ["getInt8", "getUint8", "getInt16", "getUint16", "getInt32", "getUint32", "getFloat32", "getFloat64"], [0]],
    [global.DataView?.prototype, ["setInt8", "setUint8", "setInt16", "setUint16", "setInt32", "setUint32", "setFloat32", "setFloat64"], [0, 1]],
  ];
  for (const [owner, names, positions] of NUMERIC_ARGUMENTS) {
    for (const name of owner ? names : []) {
      const native = getOwnPropertyDescriptor(owner!, name)?.value;
      if (typeof native === "function") apply(weakSet, numericArguments, [native, positions]);
    }
  }
  /** After the installers: each native of NUMERIC_ARGUMENTS that none of them replaced gets a plain wrapper. */
  const coverNumericArguments = () => {
    for (const [owner, names] of NUMERIC_ARGUMENTS) {
      for (const name of owner ? names : []) {
        const current = getOwnPropertyDescriptor(owner!, name)?.value;
        // Still the native (a wrapper is never a key of numericArguments).
        if (typeof current === "function" && apply(weakGet, numericArguments, [current]) !== undefined) replace(owner, name, (original) => original);
      }
    }
  };
  /** One wrapper per native, so that aliases stay one function (`values === [Symbol.iterator]`, `trimLeft === trimStart`). */
  const wrappers = new WeakMapCtor<Function, Function>();
  const replace = (owner: any, name: string | symbol, make: (original: Function) => Function) => {
    const descriptor = getOwnPropertyDescriptor(owner, name);
    if (!descriptor || typeof descriptor.value !== "function") return;
    const original = descriptor.value as Function;
    let wrapper = apply(weakGet, wrappers, [original]) as Function | undefined;
    if (wrapper === undefined) {
      const guard = make(original);
      const numeric = apply(weakGet, numericArguments, [original]) as number[] | undefined;
      // The whole call holds a frame of the stack model: a guard reads what a contract controls (a length, a
      // getter, a conversion), which can be this guard again, or a native calling it, with no contract frame
      // in between.
      wrapper = {
        method(this: unknown, ...args: unknown[]) {
          const token = meter.push(LEVEL_FRAME);
          try {
            argumentTexts(args);
            if (numeric !== undefined) for (let i = 0; i < numeric.length; i++) if (numeric[i]! < args.length) args[numeric[i]!] = numberStandIn(args[numeric[i]!]);
            return apply(guard, this, args);
          } finally {
            meter.pop(token, undefined);
          }
        },
      }.method;
      defineProperty(wrapper, "name", { value: original.name, configurable: true });
      defineProperty(wrapper, "length", { value: original.length, configurable: true });
      apply(weakSet, wrappers, [original, wrapper]);
    }
    defineProperty(owner, name, { value: wrapper, writable: descriptor.writable, enumerable: descriptor.enumerable, configurable: descriptor.configurable });
  };
  const charged = (owner: any, name: string | symbol, cost: (receiver: any, args: any[]) => void) =>
    replace(owner, name, (original) => ({
      method(this: unknown, ...args: unknown[]) {
        cost(this, args);
        return apply(original, this, args);
      },
    }).method);

  /**
   * A stand-in constructor named as the native it replaces, in V8's own sense: V8 words messages about a
   * constructor after its name as written in the source ("Constructor Map requires 'new'"), so each is a
   * literal here. Its calls hold a frame of the stack model, as guarded built-ins do: the native converts
   * its arguments (a message's `toString`, an offset's `valueOf`, a list's elements), which can reach the
   * constructor again through about 2 KB of V8's own frames a level (eighteenth review of 2026-11-26).
   */
  const CONSTRUCTOR_FRAME = 1024;
  const named = (name: string, unheld: (newTarget: Function | undefined, self: unknown, args: unknown[]) => unknown): Function => {
    const body = (newTarget: Function | undefined, self: unknown, args: unknown[]): unknown => held(() => unheld(newTarget, self, args), CONSTRUCTOR_FRAME);
    // Only the one asked for is made (a table would make all of them at every start).
    switch (name) {
      case "Set":
        return { Set: function (this: unknown, ...args: unknown[]) { return body(new.target, this, args); } }.Set;
      case "Map":
        return { Map: function (this: unknown, ...args: unknown[]) { return body(new.target, this, args); } }.Map;
      case "WeakSet":
        return { WeakSet: function (this: unknown, ...args: unknown[]) { return body(new.target, this, args); } }.WeakSet;
      case "WeakMap":
        return { WeakMap: function (this: unknown, ...args: unknown[]) { return body(new.target, this, args); } }.WeakMap;
      case "ArrayBuffer":
        return { ArrayBuffer: function (this: unknown, ...args: unknown[]) { return body(new.target, this, args); } }.ArrayBuffer;
      case "Int8Array":
        return { Int8Array: function (this: unknown, ...args: unknown[]) { return body(new.target, this, args); } }.Int8Array;
      case "Uint8Array":
        return { Uint8Array: function (this: unknown, ...args: unknown[]) { return body(new.target, this, args); } }.Uint8Array;
      case "Uint8ClampedArray":
        return { Uint8ClampedArray: function (this: unknown, ...args: unknown[]) { return body(new.target, this, args); } }.Uint8ClampedArray;
      case "Int16Array":
        return { Int16Array: function (this: unknown, ...args: unknown[]) { return body(new.target, this, args); } }.Int16Array;
      case "Uint16Array":
        return { Uint16Array: function (this: unknown, ...args: unknown[]) { return body(new.target, this, args); } }.Uint16Array;
      case "Int32Array":
        return { Int32Array: function (this: unknown, ...args: unknown[]) { return body(new.target, this, args); } }.Int32Array;
      case "Uint32Array":
        return { Uint32Array: function (this: unknown, ...args: unknown[]) { return body(new.target, this, args); } }.Uint32Array;
      case "Float32Array":
        return { Float32Array: function (this: unknown, ...args: unknown[]) { return body(new.target, this, args); } }.Float32Array;
      case "Float64Array":
        return { Float64Array: function (this: unknown, ...args: unknown[]) { return body(new.target, this, args); } }.Float64Array;
      case "DataView":
        return { DataView: function (this: unknown, ...args: unknown[]) { return body(new.target, this, args); } }.DataView;
      case "Error":
        return { Error: function (this: unknown, ...args: unknown[]) { return body(new.target, this, args); } }.Error;
      case "RangeError":
        return { RangeError: function (this: unknown, ...args: unknown[]) { return body(new.target, this, args); } }.RangeError;
      case "TypeError":
        return { TypeError: function (this: unknown, ...args: unknown[]) { return body(new.target, this, args); } }.TypeError;
      case "SyntaxError":
        return { SyntaxError: function (this: unknown, ...args: unknown[]) { return body(new.target, this, args); } }.SyntaxError;
      case "ReferenceError":
        return { ReferenceError: function (this: unknown, ...args: unknown[]) { return body(new.target, this, args); } }.ReferenceError;
      case "EvalError":
        return { EvalError: function (this: unknown, ...args: unknown[]) { return body(new.target, this, args); } }.EvalError;
      case "URIError":
        return { URIError: function (this: unknown, ...args: unknown[]) { return body(new.target, this, args); } }.URIError;
      case "AggregateError":
        return { AggregateError: function (this: unknown, ...args: unknown[]) { return body(new.target, this, args); } }.AggregateError;
    }
    throw new TypeError(`no stand-in named ${name}`);
  };

  const notCallable = (value: unknown): string => {
    if (value === undefined) return "undefined";
    if (value === null) return "object null";
    if (typeof value === "string") return `string "${value}"`;
    if (typeof value === "object") return "object";
    if (typeof value === "symbol") return "symbol " + NativeString(value);
    return typeof value + " " + NativeString(value);
  };

  const MEMORY_LIMIT = "Memory exceeding limit";
  return {
    natives: {
      WeakMap: WeakMapCtor,
      WeakSet: WeakSetCtor,
      defineProperty,
      setPrototypeOf,
      isExtensible: Object.isExtensible,
      weakMapGet: weakGet,
      weakMapSet: weakSet,
      weakMapHas: weakHas,
      weakSetAdd: WeakSetCtor.prototype.add,
      weakSetHas,
    },
    named,
    notCallable,
    arrayIndex,
    global,
    meter,
    limits,
    MEMORY_LIMIT,
    STACK_LIMIT: "Stack exceeding limit",
    LEVEL_FRAME,
    held,
    standIn,
    work,
    holdsString,
    makesString,
    LONG_TEXT,
    longText,
    view,
    typedValue,
    stackWalk,
    functionListing,
    traceCaptured,
    lookup,
    UNHASHED_TEXT,
    keyUse,
    asPropertyKey,
    sameAsTarget,
    numberText,
    numbersMade,
    numberStandIn,
    coverNumericArguments,
    protocolsInstalled,
    numberPrimitive,
    isObject,
    isProxy,
    toPrimitive,
    toPropertyKey,
    makesElements,
    reservesElements: (length: number) => makesElements(length + (length - (length % 2)) / 2),
    makesEntries,
    integer,
    toText,
    list: <T>() => setPrototypeOf([], null) as T[],
    joined: (pieces: string[], glue: string) => apply(nativeJoin, pieces, [glue]) as string,
    replace,
    charged,
    arrayLike,
    chainDepth,
    linkUnder,
    made,
    relink,
    lookupUnits,
    isTypedArray,
    keyCount,
    iterationBound,
    iterates,
    iterated,
    yieldUnits,
    typedLength: (value: unknown) => (isTypedArray(value) ? (apply(typedLength, value, []) as number) : 0),
    chains,
    collections,
    sizeOf,
    closing,
    runStarts: [
      () => {
        pendingUnits = 0;
        longKeys = new NativeMap();
        longKeysOfLength = new NativeMap();
      },
    ],
    min,
    max,
  };
}
