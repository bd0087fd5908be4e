// Evaluated INSIDE each fresh isolate from its source text, in strict mode: self-contained, no outside
// references. Strict functions keep `caller`, `arguments` and `CallSite.getFunction()` from revealing them.
// The design and every bound: docs/contracts.md §13 ("What is charged", "Limits").

import type { GuardKit } from "./guards/kit.js";

export interface BootstrapRefs {
  call: { applySyncPromise(receiver: undefined, args: unknown[]): string };
  crypto: { applySync(receiver: undefined, args: unknown[]): string };
  log: { applySync(receiver: undefined, args: unknown[]): void };
  /** Reports the reason a run died (a limit), once. */
  exhausted: { applySync(receiver: undefined, args: unknown[]): void };
  /** UTF-8 length of a string (lone surrogates count 3), natively: a loop in here costs ~90 ns a code unit. */
  utf8Length: { applySync(receiver: undefined, args: unknown[]): number };
}

/** Fixed for an isolate's life. */
export interface BootstrapConfig {
  /** Bytes of the deterministic stack model (instrument.ts frame sizes) a run may hold at once. */
  stackBytes: number;
  /** Bytes of the deterministic memory model a run may allocate in total. */
  memoryBytes: number;
  builtinSteps: number;
  costlyBuiltinSteps: Record<string, number>;
  /** Units of size-proportional work (code units, elements, bytes) per step. */
  sizeUnit: number;
  /** Longest string a contract may make, in UTF-16 code units. */
  maxStringLength: number;
  /** Longest string an entry point may return, in code units. */
  maxReturnLength: number;
  /** Longest Utils.log message kept, in code units (the rest is cut). */
  maxLogLength: number;
  /** Limits of the built-in guards (guards/kit.ts). */
  guards: unknown;
}

/** What the host learns when a run ends: JSON, one bounded string. */
export interface RunReport {
  /** Steps counted since the last host call. */
  used: number;
  stackPeak: number;
  memory: number;
  /** The run died on a limit (the host was told the reason through `exhausted`). */
  dead?: string;
  /** The entry point is not a function of the contract. */
  lost?: true;
  /** A value that crossed: a string or a boolean. */
  value?: string | boolean;
  /** The entry point returned something else (only strings and booleans cross). */
  other?: true;
  /** What the contract threw. */
  thrown?: { exception: string; linenum: number; stack: string };
}

export interface PreparedIsolate {
  /** Installs `Chain` for this run and sets its step budget; once per isolate. */
  begin(budget: number, envJson: string, readOnly: boolean, contractLength: number): void;
  /** Runs the instrumented contract (a wrapper function, instrument.ts) and its entry point; answers a RunReport as JSON. */
  run(wrapper: Function, entry: string, input: string): string;
  /** The step count and peaks so far, for a run the host had to stop (time guard): JSON [used, stackPeak, memory]. */
  counts(): string;
}

/**
 * Removes every source of non-determinism and every way around the metering (docs/contracts.md §13),
 * builds the meter, installs the guards, Utils and a fixed stack-trace format, and answers the functions
 * the host drives the run with.
 */
export function bootstrap(
  global: any,
  refs: BootstrapRefs,
  config: BootstrapConfig,
  /** guards/: the kit maker first, then the installers that take the kit. */
  guardInstallers: Function[],
  installUtils: Function,
  installChain: Function,
): PreparedIsolate {
  for (const name of ["Date", "Math", "WebAssembly", "Atomics", "SharedArrayBuffer", "WeakRef", "FinalizationRegistry", "Intl", "eval", "Function", "console", "Promise"]) {
    delete global[name];
  }
  // No BigInt: its arithmetic and printing grow with the operands' size where no guard can charge them
  // (operators), and contracts of the family count int64 values as strings (Utils.int64*). Literals are
  // refused at deployment (instrument.ts); these are the other ways to make one.
  for (const name of ["BigInt", "BigInt64Array", "BigUint64Array"]) delete global[name];
  for (const name of ["getBigInt64", "setBigInt64", "getBigUint64", "setBigUint64"]) delete global.DataView.prototype[name];
  // Locale-dependent results would differ between validators with different LANG settings.
  delete global.String.prototype.localeCompare;
  delete global.String.prototype.toLocaleUpperCase;
  delete global.String.prototype.toLocaleLowerCase;
  // %TypedArray%.prototype holds the typed arrays' one.
  for (const proto of [global.Object.prototype, global.Number.prototype, global.Array.prototype, Object.getPrototypeOf(global.Int8Array.prototype)]) {
    delete proto.toLocaleString;
  }
  // Code built at run time would escape the metering: the function constructors are closed.
  const closed = function () {
    throw "Dynamic code is not allowed in contracts";
  };
  const defineProperty = Object.defineProperty;
  const functionPrototype = Object.getPrototypeOf(function () {});
  defineProperty(functionPrototype, "constructor", { value: closed, writable: false, configurable: false });

  // Contract code runs after this and may replace globals or poison prototypes: everything used at run
  // time is captured now, and no call-time code here uses iteration protocols or prototype lookups.
  const apply = Reflect.apply;
  const getOwnPropertyDescriptor = Reflect.getOwnPropertyDescriptor;
  const getPrototypeOf = Reflect.getPrototypeOf;
  const parse = JSON.parse;
  const quote = JSON.stringify;
  const isArray = Array.isArray;
  const arrayPrototype = Array.prototype;
  /** The native one: the guarded Reflect.set would charge a length the member helper already charged. */
  const reflectSet = Reflect.set;
  const setPrototypeOf = Object.setPrototypeOf;
  const hasOwn = Object.prototype.hasOwnProperty;
  const stringSlice = String.prototype.slice;
  const stringIndexOf = String.prototype.indexOf;
  const stringTrim = String.prototype.trim;
  const toText = String;
  const iteratorSymbol = Symbol.iterator;
  const errorPrototype = Error.prototype;
  /** %Error% itself: the guards put a recording wrapper in its place (guards/calls.ts), V8 reads these two here. */
  const NativeError = Error;
  const NativeTypeError = TypeError;
  const isPrototypeOf = Object.prototype.isPrototypeOf;
  /**
   * V8 quotes the failing expression in some messages ("o[k + i] is not a function"), and prints a function
   * value as its source ("Cannot assign to read only property 'name' of function '…'"). Both would show
   * chainsim's instrumentation (docs/contracts.md §13, "Why a contract cannot observe the machine"), so:
   * a function body as instrumented reads `{ [native code] }`, as functions print in contracts; a call of a
   * meter function (`__chainsim_name(...)` or with its arguments) and a bare `__chainsim_name` read
   * "(intermediate value)".
   */
  const BODY_START = "{const __chainsim_t=__chainsim_enter(";
  const BODY_END = "}finally{__chainsim_leave(__chainsim_t)}}";
  /** V8 prints a long function's first 100 characters or so, this, and its last 2. */
  const OMITTED = "...<omitted>...";
  const withoutBodies = (text: string): string => {
    // Each marker's next position is found once and looked for again only once passed: linear in the text.
    const next = { start: -2, end: -2, cut: -2 };
    const find = (marker: string, field: "start" | "end" | "cut", from: number): number => {
      if (next[field] !== -1 && next[field] < from) next[field] = apply(stringIndexOf, text, [marker, from]);
      return next[field];
    };
    let out = "";
    let from = 0;
    for (;;) {
      const at = find(BODY_START, "start", from);
      const omitted = find(OMITTED, "cut", from);
      if (omitted >= 0 && (at < 0 || omitted < at)) {
        // Cut inside a body's first marker: the longest part of it just before the cut.
        let part = -1;
        for (let n = BODY_START.length - 1; n >= 2 && part < 0; n--) {
          if (omitted - n >= from && apply(stringSlice, text, [omitted - n, omitted]) === apply(stringSlice, BODY_START, [0, n])) part = omitted - n;
        }
        if (part >= 0) {
          out += apply(stringSlice, text, [from, part]) + "{ [native code] }";
          from = omitted + OMITTED.length + 2;
          continue;
        }
      }
      if (at < 0) break;
      // The body ends at its own end marker: nested functions open and close their own in between.
      let depth = 1;
      let scan = at + BODY_START.length;
      while (depth > 0) {
        const open = find(BODY_START, "start", scan);
        const close = find(BODY_END, "end", scan);
        const cut = find(OMITTED, "cut", scan);
        if (cut >= 0 && (close < 0 || cut < close)) {
          depth = 0; // V8 cut the text here: what follows is the function's last 2 characters
          scan = cut + OMITTED.length + 2;
        } else if (close < 0) {
          scan = text.length;
          break;
        } else if (open >= 0 && open < close) {
          depth++;
          scan = open + BODY_START.length;
        } else {
          depth--;
          scan = close + BODY_END.length;
        }
      }
      out += apply(stringSlice, text, [from, at]) + "{ [native code] }";
      from = scan;
    }
    return from === 0 ? text : out + apply(stringSlice, text, [from]);
  };
  const withoutMetering = (message: string): string => {
    let text = withoutBodies(message);
    // V8 cut the text inside a meter function's name: what is left of it reads as the value it stands for.
    const cut = apply(stringIndexOf, text, [OMITTED]);
    if (cut > 0) {
      for (let n = 9; n >= 2; n--) {
        if (cut - n >= 0 && apply(stringSlice, text, [cut - n, cut]) === apply(stringSlice, "__chainsim", [0, n])) {
          text = apply(stringSlice, text, [0, cut - n]) + "(intermediate value)" + apply(stringSlice, text, [cut]);
          break;
        }
      }
    }
    let out = "";
    let from = 0;
    let scanned = text.length;
    for (;;) {
      const at = apply(stringIndexOf, text, ["__chainsim", from]);
      if (at < 0) break;
      let end = at + 10;
      while (end < text.length && ((text[end]! >= "a" && text[end]! <= "z") || text[end] === "_")) end++;
      // The static block instrument.ts puts first in every class body, printed with the class: dropped.
      if (at >= 7 && apply(stringSlice, text, [at - 7, at + CLASS_BLOCK.length - 7]) === CLASS_BLOCK) {
        out += apply(stringSlice, text, [from, at - 7]);
        from = at + CLASS_BLOCK.length - 7;
        continue;
      }
      if (text[end] === "(") {
        // Its arguments, to the matching parenthesis (V8 writes "(...)" where it quotes an expression, and
        // cuts a function's source after about 100 characters, so a match is near); none where V8 cut the
        // text short before it.
        let depth = 0;
        let close = end;
        const bound = end + ARGUMENTS_SCAN < text.length ? end + ARGUMENTS_SCAN : text.length;
        for (; close < bound; close++) {
          if (text[close] === "(") depth++;
          else if (text[close] === ")" && --depth === 0) break;
        }
        scanned += close - end;
        if (close < bound) end = close + 1;
        else {
          // Unclosed: V8 cut the text inside its arguments; they go, up to the cut.
          const omitted = apply(stringIndexOf, text, [OMITTED, end]);
          if (omitted >= 0) end = omitted;
        }
      }
      out += apply(stringSlice, text, [from, at]) + "(intermediate value)";
      from = end;
    }
    // What the scans cost (a contract's own strings can hold these names, many times over).
    guards.work(scanned);
    return from === 0 ? text : out + apply(stringSlice, text, [from]);
  };
  const ARGUMENTS_SCAN = 512;
  /** Exactly what instrument.ts puts first in every class body (its case "ClassBody"). */
  const CLASS_BLOCK = "static{__chainsim_classmade(this)}";
  const ceil = (n: number) => {
    const t = n - (n % 1);
    return t < n ? t + 1 : t;
  };

  // ---- the meter ------------------------------------------------------------------------------------
  let used = 0;
  /** Unbounded while the bootstrap installs (its own code goes through guarded built-ins); 0 until `begin`. */
  let budget = Infinity;
  let dead = "";
  let stack = 0;
  let stackPeak = 0;
  let memory = 0;
  /** Stack model values at each open frame; a token is an index here. */
  const marks = new Float64Array(1 << 16);
  let depth = 0;
  const STEP_LIMIT = "Step exceeding limit";
  const STACK_LIMIT = "Stack exceeding limit";
  const MEMORY_LIMIT = "Memory exceeding limit";

  /** Ends the run: every later step, charge or catch throws again, and the host fails it whatever the contract does. */
  const die = (reason: string): never => {
    if (dead === "") {
      dead = reason;
      refs.exhausted.applySync(undefined, [reason]);
    }
    throw dead;
  };
  const charge = (steps: number) => {
    used += steps;
    if (dead !== "") die(dead);
    if (used > budget) die(STEP_LIMIT);
  };
  const alloc = (bytes: number) => {
    memory += bytes;
    if (dead !== "") die(dead);
    if (memory > config.memoryBytes) die(MEMORY_LIMIT);
  };
  const push = (bytes: number): number => {
    if (dead !== "") die(dead);
    if (depth >= marks.length) die(STACK_LIMIT);
    const token = depth;
    marks[depth++] = stack;
    stack += bytes;
    if (stack > stackPeak) stackPeak = stack;
    if (stack > config.stackBytes) die(STACK_LIMIT);
    return token;
  };
  const pop = <T>(token: number, value: T): T => {
    stack = marks[token]!;
    depth = token;
    return value;
  };
  const sizeCharge = (units: number) => {
    if (units >= config.sizeUnit) charge(ceil(units / config.sizeUnit));
  };

  // The functions the instrumented contract receives as its wrapper's parameters (instrument.ts METER_FUNCTIONS).
  const enter = (frameBytes: number, weight: number, steps: number): number => {
    charge(steps);
    if (weight > 0) alloc(weight);
    return push(frameBytes);
  };
  const leave = (token: number): void => {
    stack = marks[token]!;
    depth = token;
  };
  const step = (weight: number, steps: number): void => {
    charge(steps);
    if (weight > 0) alloc(weight);
  };
  /** Copies an iterable into an array the way spread does, charging as it goes. */
  const collect = (iterable: any): unknown[] => {
    if (dead !== "") die(dead);
    if (typeof iterable === "string") {
      sizeCharge(iterable.length);
      alloc(16 * iterable.length);
    }
    const method = iterable === null || iterable === undefined ? undefined : iterable[iteratorSymbol];
    if (typeof method !== "function") throw new TypeError("Spread syntax requires ...iterable[Symbol.iterator] to be a function");
    const iterator: any = apply(method, iterable, []);
    if (iterator === null || (typeof iterator !== "object" && typeof iterator !== "function")) throw new TypeError("Result of the Symbol.iterator method is not an object");
    const next = iterator.next;
    if (typeof next !== "function") throw new TypeError(`${guards.notCallable(next)} is not a function`);
    // Filled without a prototype (no setter on Array.prototype or Object.prototype sees the writes), then given one.
    const out = setPrototypeOf([], null) as unknown[];
    let n = 0;
    for (;;) {
      const result: any = apply(next, iterator, []);
      if (result === null || (typeof result !== "object" && typeof result !== "function")) throw new TypeError(`Iterator result ${toText(result)} is not an object`);
      if (result.done) break;
      out[n] = result.value;
      n++;
      if (n % config.sizeUnit === 0) charge(1);
      if (n % 1024 === 0) alloc(16 * 1024);
    }
    return setPrototypeOf(out, spreadPrototype) as unknown[];
  };
  /**
   * A spread's list, as V8 gets it: its prototype holds only the array iterator (Array.prototype's, as the
   * guards leave it), so that an iterator a contract puts on Array.prototype is never handed chainsim's list,
   * which it could refill after the list was charged (fourteenth review of 2026-11-26). Set once the guards
   * are installed.
   */
  let spreadPrototype: object | null = null;
  const args = (iterable: unknown): unknown[] => {
    const list = collect(iterable);
    stack += 16 * list.length;
    if (stack > stackPeak) stackPeak = stack;
    if (stack > config.stackBytes || list.length > 65536) die(STACK_LIMIT);
    return list;
  };
  const spread = (iterable: unknown): unknown[] => collect(iterable);
  /** Object spread and object rest copy every own key: charged by how many there are before V8 lists them. */
  const sized = (value: unknown): unknown => {
    guards.makesEntries(guards.keyCount(value), 32);
    guards.functionListing(value);
    // V8 copies an object's element store whole, however few keys it holds (docs/contracts.md §13).
    const elements = guards.elementCount!(value);
    if (elements > 0) guards.reservesElements(elements);
    return value;
  };
  const HOP_UNITS = 64;
  /** for-in lists the enumerable keys of the whole prototype chain first. */
  const enumerated = (value: unknown): unknown => {
    let count = 0;
    for (let o: unknown = value, hops = 0; o !== null && o !== undefined && hops < 10_000; o = typeof o === "object" || typeof o === "function" ? getPrototypeOf(o) : null, hops++) {
      count += guards.keyCount(o);
      guards.work(HOP_UNITS); // each prototype is looked at, keys or not
    }
    guards.makesEntries(count, 8);
    return value;
  };
  /** Array rest (`const [a, ...rest] = x`) collects what is left of an iteration natively. */
  const iterated = (value: unknown): unknown => {
    // As for-of: an iterator whose protocol a contract changed is handed over through closingIterator.
    const handed = guards.iterated(value);
    const count = handed === undefined ? guards.iterationBound(value) : handed[1];
    sizeCharge(count);
    alloc(8 * count);
    return handed === undefined ? value : handed[0];
  };
  /**
   * A string made by `+`, `+=` or a template, whatever its length: V8 makes one of 13 code units or more as
   * pieces and copies them into one string at its first read (`s[0]`), so a short string made and read in a
   * loop was a copy for nothing (60,000 of 1,000 code units kept reached V8's heap; eighteenth review of
   * 2026-11-26). Its length in units, and its copy (with its header) as memory.
   */
  const STRING_HEADER_BYTES = 16;
  const str = <T>(value: T): T => {
    if (typeof value === "string") {
      const n = value.length;
      if (n > config.maxStringLength) die(MEMORY_LIMIT);
      guards.work(n);
      alloc(STRING_HEADER_BYTES + 2 * n);
    }
    return value;
  };
  /** Units per character of the contract's (instrumented) source, parsed again to word a TypeError. */
  const RENDER_UNITS = 32;
  let sourceLength = 0;
  /**
   * V8 words a TypeError about a call or a read ("o.f is not a function") by parsing the function that threw
   * again, about 80 ns a character (seventh review of 2026-11-26): the contract's source is the bound.
   */
  const renderCharge = (error: object): void => {
    if (error instanceof NativeTypeError && !madeByContract(error)) work(RENDER_UNITS * sourceLength);
  };
  /**
   * A for-of's iterable (instrument.ts), and what built-ins iterate (kit.iterated): when a loop ends by an
   * error, V8 closes a contract's iterator and drops an error its `return` throws (the loop's own wins), so
   * no catch sees it (eighth review of 2026-11-26). Its `return` goes through here, which charges it.
   * Strings, arrays, typed arrays, Sets and Maps pass untouched.
   */
  /** A step of an iterator V8 consumes for a built-in (Set, Array.from…): about 100 ns with the native's work. */
  const NEXT_UNITS = 128;
  const closingIterator = (iterator: any): unknown => {
    const next = iterator.next; // read once, as V8 does
    if (typeof next !== "function") return iterator; // V8's own TypeError at the first step
    const closing = setPrototypeOf({}, null) as Record<string, Function>;
    // Each step is charged: `next` may be a built-in that never says done (fifteenth review of 2026-11-26).
    closing.next = () => {
      guards.work(NEXT_UNITS);
      alloc(8);
      return apply(next, iterator, []);
    };
    closing.return = () => {
      const close = iterator.return;
      if (close === undefined || close === null) return { done: true };
      try {
        return apply(close, iterator, []);
      } catch (error) {
        caught(error); // charged, and V8's own overflow ends the run: V8 may drop what return throws
        throw error;
      }
    };
    return closing;
  };
  /** kit.iterated hands V8 the same iterator through closingIterator; V8's own errors where it answers nothing. */
  const closingIterable = (iterable: unknown): unknown => guards.iterated(iterable)?.[0] ?? iterable;
  /** First statement of every catch block: a dead run stays dead; V8's own limits become guard trips. */
  const caught = (error: unknown): void => {
    if (dead !== "") die(dead);
    if (error === null || typeof error !== "object") return;
    let reason: string | undefined;
    let written: string | undefined;
    try {
      reason = engineLimit(error);
      // Whatever its prototype (a contract can cut an error class's chain): every message V8 wrote.
      if (madeByContract(error)) return;
      guards.traceCaptured(); // V8 captured its frames where it threw (guards/kit.ts)
      renderCharge(error);
      const own = getOwnPropertyDescriptor(error, "message");
      const message = own?.value;
      // V8 wrote it, copying a contract's values (a 4 MB key in "reading '…'"): a string made, charged here.
      if (typeof message === "string") written = message;
      if (typeof message === "string" && (apply(stringIndexOf, message, ["__chainsim"]) >= 0 || apply(stringIndexOf, message, [OMITTED]) >= 0)) {
        defineProperty(error, "message", { value: withoutMetering(message), writable: own!.writable, enumerable: own!.enumerable, configurable: own!.configurable });
      }
    } catch {
      return;
    } finally {
      // V8 tripping before the models is a defect of the models, and depends on the machine: " (engine)"
      // (ENGINE_SUFFIX in failure.ts) makes the host treat it as a guard trip, never as a result.
      if (reason !== undefined) die(reason);
    }
    if (written !== undefined) str(written);
  };

  const guardMeter = { charge, alloc, push, pop, fatal: die, isDead: () => dead !== "", frames: () => depth, stackBytes: () => stack, topBytes: (frames: number) => stack - (depth > frames ? marks[depth - frames]! : 0) };
  const guards = guardInstallers[0]!(global, guardMeter, config.guards) as GuardKit;
  guards.closing.iterator = closingIterator;
  for (let i = 1; i < guardInstallers.length; i++) guardInstallers[i]!(guards);
  guards.coverNumericArguments();
  guards.protocolsInstalled();
  spreadPrototype = setPrototypeOf({ [iteratorSymbol]: (arrayPrototype as unknown as Record<symbol, unknown>)[iteratorSymbol] }, null) as object;
  Object.freeze(spreadPrototype);
  const regexp = guards.makeRegExp!;
  const engineLimit = guards.engineLimit!;
  const madeByContract = guards.madeByContract!;

  // ---- comparisons (instrument.ts COMPARISONS) --------------------------------------------------------
  // V8 compares strings code unit by code unit: two long strings of equal length, or a relation between
  // long strings, cost their length, charged here. Operands are converted to primitives here, in
  // ECMAScript's order, so that the operator then compares what was charged (and converts nothing again).
  const { isObject, work, LONG_TEXT, toPrimitive } = guards;
  const textWork = (units: number) => {
    if (units > LONG_TEXT) work(units);
  };
  /** Primitives compared for (in)equality: equal lengths are compared in full; a string against a number is parsed. */
  const equalityCost = (a: unknown, b: unknown, loose: boolean) => {
    const sa = typeof a === "string";
    const sb = typeof b === "string";
    if (sa && sb) {
      if ((a as string).length === (b as string).length) textWork((a as string).length);
    } else if (loose && (sa || sb)) textWork(sa ? (a as string).length : (b as string).length);
  };
  const relationCost = (a: unknown, b: unknown) => {
    const la = typeof a === "string" ? (a as string).length : 0;
    const lb = typeof b === "string" ? (b as string).length : 0;
    textWork(la > 0 && lb > 0 ? (la < lb ? la : lb) : la + lb);
  };
  const looselyEqual = (a: unknown, b: unknown): boolean => {
    if (isObject(a)) {
      if (isObject(b)) return a === b;
      if (b === null || b === undefined) return false;
      a = toPrimitive(a, "default");
    } else if (isObject(b)) {
      if (a === null || a === undefined) return false;
      b = toPrimitive(b, "default");
    }
    equalityCost(a, b, true);
    // eslint-disable-next-line eqeqeq -- the operator being metered
    return a == b;
  };
  const relation = (a: unknown, b: unknown): [any, any] => {
    const pa = toPrimitive(a, "number");
    const pb = toPrimitive(b, "number");
    relationCost(pa, pb);
    return [pa, pb];
  };
  const comparisons = [
    (a: unknown, b: unknown) => (equalityCost(a, b, false), a === b),
    (a: unknown, b: unknown) => (equalityCost(a, b, false), a !== b),
    looselyEqual,
    (a: unknown, b: unknown) => !looselyEqual(a, b),
    (a: unknown, b: unknown) => {
      const p = relation(a, b);
      return p[0] < p[1];
    },
    (a: unknown, b: unknown) => {
      const p = relation(a, b);
      return p[0] > p[1];
    },
    (a: unknown, b: unknown) => {
      const p = relation(a, b);
      return p[0] <= p[1];
    },
    (a: unknown, b: unknown) => {
      const p = relation(a, b);
      return p[0] >= p[1];
    },
    (discriminant: unknown, cases: number) => {
      if (typeof discriminant === "string") textWork(discriminant.length * cases);
      return discriminant;
    },
  ];

  // ---- arithmetic (instrument.ts ARITHMETIC, UNARY): a string made a number is read whole by V8 -----------
  // About 0.7 ns a character: `s - 0` on 4 Mi digits is 2.6 ms for one step. Operands are converted to
  // primitives here, in ECMAScript's order, so that V8 then reads only strings that were charged.
  /** ToNumeric's first half: an object's primitive, a long string charged by its length. */
  const numeric = (value: unknown): unknown => {
    const primitive = isObject(value) ? toPrimitive(value, "number") : value;
    if (typeof primitive === "string") textWork(primitive.length);
    else if (typeof primitive === "symbol") return +(primitive as any); // V8's TypeError, before the other operand converts
    return primitive;
  };
  /** Where V8 converts later (a compound assignment to a property): only a primitive string is charged. */
  const numericText = (value: unknown): unknown => {
    textWork(guards.numberText(value));
    return value;
  };
  // Written out one by one: the fast path (two numbers) is the operator itself, with no call beyond this one.
  const n = numeric as (value: unknown) => any;
  const arithmetic = [
    (a: any, b: any) => (typeof a === "number" && typeof b === "number" ? a - b : n(a) - n(b)),
    (a: any, b: any) => (typeof a === "number" && typeof b === "number" ? a * b : n(a) * n(b)),
    (a: any, b: any) => (typeof a === "number" && typeof b === "number" ? a / b : n(a) / n(b)),
    (a: any, b: any) => (typeof a === "number" && typeof b === "number" ? a % b : n(a) % n(b)),
    (a: any, b: any) => (typeof a === "number" && typeof b === "number" ? a ** b : n(a) ** n(b)),
    (a: any, b: any) => (typeof a === "number" && typeof b === "number" ? a & b : n(a) & n(b)),
    (a: any, b: any) => (typeof a === "number" && typeof b === "number" ? a | b : n(a) | n(b)),
    (a: any, b: any) => (typeof a === "number" && typeof b === "number" ? a ^ b : n(a) ^ n(b)),
    (a: any, b: any) => (typeof a === "number" && typeof b === "number" ? a << b : n(a) << n(b)),
    (a: any, b: any) => (typeof a === "number" && typeof b === "number" ? a >> b : n(a) >> n(b)),
    (a: any, b: any) => (typeof a === "number" && typeof b === "number" ? a >>> b : n(a) >>> n(b)),
    (x: any) => (typeof x === "number" ? -x : -n(x)),
    (x: any) => (typeof x === "number" ? x : +n(x)),
    (x: any) => (typeof x === "number" ? ~x : ~n(x)),
  ];
  /**
   * `++x` is `num(x = pre(x, 1))`; `x++` whose value is used is `old(x = post(x, 1))`: the value before, kept
   * on a stack with the stack model's depth. A global setter run by the assignment may update variables
   * itself, and an assignment that throws (a const) never reaches its `old`: an entry of a deeper frame is
   * stale by the time `old` runs, and dropped.
   */
  const olds = setPrototypeOf([], null) as number[];
  const oldDepths = setPrototypeOf([], null) as number[];
  const pre = (x: any, delta: number): number => (typeof x === "number" ? x : +n(x)) + delta;
  const post = (x: any, delta: number): number => {
    const before = typeof x === "number" ? x : +n(x);
    olds[olds.length] = before;
    oldDepths[oldDepths.length] = depth;
    return before + delta;
  };
  const old = (): number => {
    while (oldDepths.length > 1 && oldDepths[oldDepths.length - 1]! > depth) {
      olds.length--;
      oldDepths.length--;
    }
    const before = olds[olds.length - 1]!;
    olds.length--;
    oldDepths.length--;
    return before;
  };

  // ---- writes that may lengthen an array or an object's elements (instrument.ts): charged first --------
  const toObject = Object;
  const { toPropertyKey, asPropertyKey } = guards;
  const propertyWrite = guards.propertyWrite!;
  /**
   * `o[k]` as the target of a write (`=`, `+=`, `++`, destructuring, a for-in/of head): read and written as
   * V8 does, converting the key at each access, in the contract's strict or sloppy mode.
   */
  class Member {
    constructor(
      private readonly object: any,
      private readonly key: unknown,
      private readonly sloppy: boolean,
    ) {}
    get value(): unknown {
      return this.object[asPropertyKey(this.key) as PropertyKey];
    }
    /** Read for `++` or `--`, which make it a number at once: converted here, in chainsim's hands. */
    get numeric(): unknown {
      return numeric(this.object[asPropertyKey(this.key) as PropertyKey]);
    }
    set numeric(value: unknown) {
      this.value = value;
    }
    set value(value: unknown) {
      const object = this.object;
      let key = this.key as PropertyKey;
      if (object !== null && object !== undefined) {
        if (isObject(key)) key = toPropertyKey(key);
        value = propertyWrite(object, key, value);
        if (this.sloppy) {
          // A failed write is silent in sloppy code; a primitive's prototype may still hold a setter.
          apply(reflectSet, undefined, [isObject(object) ? object : toObject(object), key, value, object]);
          return;
        }
      }
      object[key] = value; // strict: V8's own TypeError when it fails (null and undefined in both modes)
    }
  }
  const member = (object: unknown, key: unknown, sloppy?: 1): Member => new Member(object, key, sloppy === 1);
  /** `o.#p -= y`, `o.#p++` (instrument.ts privateOfOther): `o`, evaluated once, handed to the update. */
  const withValue = (value: unknown, update: (value: unknown) => unknown): unknown => update(value);
  /** `key in object` (instrument.ts): V8 refuses a primitive `object` before it converts the key, so only then is the key seen. */
  const has = (key: unknown, object: unknown): boolean => (isObject(object) ? (asPropertyKey(key, true) as PropertyKey) in object : (key as PropertyKey) in (object as object));
  /**
   * `o[k] -= y` (instrument.ts): the property read, `y` evaluated, both converted by the arithmetic meter
   * function (a long numeric string charged), the result written, as V8 orders them.
   */
  const compound = (target: Member, operate: (a: unknown, b: unknown) => unknown, right: () => unknown): unknown => {
    const before = target.value;
    const result = operate(before, right());
    target.value = result;
    return result;
  };

  /**
   * A computed key of an object literal, converted here (V8 gets the string or symbol): an index from 8 may
   * make V8 reserve up to 1.5 × (index + 1) slots for the new object, charged as a write past its end would
   * be from an empty store, up to the 5,000 slots a new object keeps before V8 weighs a dictionary.
   */
  const propertyKey = (key: unknown): unknown => {
    const name = typeof key === "number" || typeof key === "string" || typeof key === "symbol" ? key : guards.toPropertyKey(key, false);
    guards.keyUse(name);
    return name;
  };
  /** The elements defining `key` on a new object may grow its store by (0 for a name); V8 reserves half again. */
  const newElements = (key: unknown): number => {
    const index = typeof key === "symbol" ? -1 : guards.arrayIndex(key);
    if (index < 8) return 0;
    return index < 5000 ? index + 1 : 5000;
  };
  const keyed = (key: unknown): unknown => {
    const name = propertyKey(key);
    guards.reservesElements(newElements(name));
    return name;
  };
  /**
   * A computed class field: its key is converted when the class is defined (a static field is charged then);
   * an instance field's charge is kept by site, the largest any definition of the class gave, and paid by
   * each instance through `field`.
   */
  const fieldCharges = setPrototypeOf([], null) as number[];
  const fieldKeys = setPrototypeOf([], null) as unknown[];
  const fieldkey = (key: unknown, site: number, isStatic?: 1): unknown => {
    const name = propertyKey(key);
    const elements = newElements(name);
    if (isStatic === 1) guards.reservesElements(elements);
    else if (!(fieldCharges[site]! >= elements)) fieldCharges[site] = elements;
    fieldKeys[site] = name;
    return name;
  };
  /**
   * A field's initialiser (instrument.ts): the first field of a class pays its fields' steps and weight, a
   * computed instance field its key's charge (`site`), and an anonymous function gets its field's name
   * (`name`, or the computed key), as V8 would have given it.
   */
  const field = (site: number, weight: number, steps: number, value?: unknown, anonymous?: 1, name?: string): unknown => {
    if (steps > 0) step(weight, steps);
    const elements = site >= 0 ? fieldCharges[site] : undefined;
    if (elements !== undefined && elements > 0) guards.reservesElements(elements);
    if (anonymous === 1 && typeof value === "function" && getOwnPropertyDescriptor(value, "name")?.value === "") {
      const key = site >= 0 ? fieldKeys[site] : name;
      const description = typeof key === "symbol" ? key.description : undefined;
      const text = typeof key === "symbol" ? (description === undefined ? "" : `[${description}]`) : toText(key);
      defineProperty(value, "name", { value: text, writable: false, enumerable: false, configurable: true });
    }
    return value;
  };
  /**
   * A class was defined (instrument.ts): its prototype, with the instances to come, and itself are linked.
   * Defining one costs 4 steps and 4 KB (V8 compiles and makes the class, its prototype, their maps and the
   * inserted static block: about 20 µs and 16 KB for a class literal run once, sixth review of 2026-11-26).
   */
  const classmade = (defined: Function): void => {
    charge(CLASS_STEPS);
    alloc(CLASS_BYTES);
    guards.made(defined.prototype, 1);
    guards.made(defined);
  };
  const CLASS_STEPS = 4;
  const CLASS_BYTES = 4096;
  /** The value of a `__proto__:` in an object literal, about to be the new object's prototype. */
  const protolink = (proto: unknown): unknown => {
    guards.linkUnder(proto, 0);
    return proto;
  };
  const meterFunctions = [enter, leave, step, push, pop, args, spread, sized, str, caught, regexp, enumerated, iterated, ...comparisons, member, keyed, fieldkey, field, classmade, protolink, ...arithmetic, pre, post, old, numericText, closingIterable, compound, asPropertyKey, has, withValue];

  // ---- source text: functions show no body, so the instrumented text never reaches a contract ----------
  const functionText = {
    toString(this: unknown): string {
      if (typeof this !== "function") throw new TypeError("Function.prototype.toString requires that 'this' be a Function");
      const name = getOwnPropertyDescriptor(this, "name")?.value;
      const text = typeof name === "string" ? name : "";
      // A name can be millions of characters (`defineProperty(f, "name", …)`): the text is a string made.
      guards.makesString(text.length + 27);
      return `function ${text}() { [native code] }`;
    },
  }.toString;
  defineProperty(functionPrototype, "toString", { value: functionText, writable: true, enumerable: false, configurable: true });

  // ---- stack traces: only the contract's own frames, without columns (instrumentation shifts them) ----
  const describeError = (error: any): string => {
    let title: string;
    let text: string;
    try {
      const name = error.name;
      title = name === undefined ? "Error" : toText(name);
      const message = error.message;
      text = message === undefined ? "" : toText(message);
    } catch (failure) {
      caught(failure); // V8's own overflow in a contract's getter ends the run (seventeenth review of 2026-11-26)
      return "Error";
    }
    // Made as any string is: the cap first (a name and a message near it each would pass it together).
    if (title.length + text.length > config.maxStringLength) die(MEMORY_LIMIT);
    return str(withoutMetering(`${title}: ${text}`));
  };
  /**
   * The first line of a stack trace, read without running any code of the contract's: while V8 formats a
   * stack it formats any other stack read then natively, with the host's own frames and file names, and
   * charges nothing of it (a `name` getter reading another error's `stack`: nineteenth review of
   * 2026-11-26). So `name` and `message` count only where they are primitives held as data properties on
   * the error's prototype chain; a getter, a proxy or an object there reads as V8's default
   * (docs/contracts.md §14).
   */
  const stackField = (error: unknown, key: string): string | undefined => {
    const found = guards.isObject(error) ? guards.lookup(error as object, key) : undefined;
    const value = found ? found.value : undefined;
    return value === undefined || value === null || typeof value === "object" || typeof value === "function" || typeof value === "symbol" ? undefined : toText(value);
  };
  const stackTitle = (error: unknown): string => {
    const title = stackField(error, "name") ?? "Error";
    const text = stackField(error, "message") ?? "";
    if (title.length + text.length > config.maxStringLength) die(MEMORY_LIMIT);
    // As V8 joins them (Error.prototype.toString): either alone when the other is empty.
    return str(title === "" ? text : text === "" ? title : `${title}: ${text}`);
  };
  /**
   * A trace shows the contract's 10 innermost frames. V8 captures frames of chainsim's guards too (an Error's
   * stand-in 3, a guarded `replace` 9 between a contract and its callback), so it captures more and the
   * contract's are picked: with only 10 captured, what the ledger stored depended on chainsim's code
   * (twentieth review of 2026-11-26). A guard nesting deeper still leaves fewer (docs/contracts.md §14).
   */
  const CONTRACT_FRAMES = 10;
  const CAPTURED_FRAMES = 32;
  const formatStack = (error: unknown, sites: any[]): string => {
    const title = stackTitle(error);
    let text = title;
    for (let i = 0, kept = 0; i < sites.length && kept < CONTRACT_FRAMES; i++) {
      const site = sites[i];
      if (site.getFileName() !== "contract.js") continue;
      kept++;
      // V8 infers an anonymous function's name from what it is assigned to, which can be the write helper.
      const inferred = site.getFunctionName();
      const name = typeof inferred === "string" && apply(stringIndexOf, inferred, ["__chainsim"]) >= 0 ? null : inferred;
      // A function's name is the contract's to set, to any string: the frames are a string made as well.
      if (typeof name === "string" && text.length + name.length > config.maxStringLength) die(MEMORY_LIMIT);
      text += `\n    at ${site.isConstructor() ? "new " : ""}${name ? name : "<anonymous>"} (contract.js:${site.getLineNumber()})`;
    }
    guards.makesString(text.length - title.length);
    return text;
  };
  defineProperty(NativeError, "prepareStackTrace", { value: formatStack, writable: false, enumerable: false, configurable: false });
  defineProperty(NativeError, "stackTraceLimit", { value: CAPTURED_FRAMES, writable: false, enumerable: false, configurable: false });

  // ---- host bridges ---------------------------------------------------------------------------------
  const call = (name: string, argsJson: string) => {
    sizeCharge(argsJson.length);
    const spent = used;
    used = 0;
    const json = refs.call.applySyncPromise(undefined, [name, argsJson, spent]) as string;
    // The answer is charged by its JSON text, escapes included (a stored value of lone surrogates is six
    // times as long as JSON), and what it holds stays in the isolate (twenty-third review of 2026-11-26).
    sizeCharge(json.length);
    guards.holdsString(json.length);
    const answer = parse(json);
    budget = answer.budget;
    if (apply(hasOwn, answer, ["e"])) throw answer.e;
    return answer.r;
  };
  installUtils(global, {
    charge: (units = 0) => {
      charge(config.builtinSteps);
      sizeCharge(units);
    },
    crypto: (name: string, argsJson: string) => {
      if (apply(hasOwn, config.costlyBuiltinSteps, [name])) charge(config.costlyBuiltinSteps[name]! - config.builtinSteps);
      // Hashing and verifying on the host cost about 8 µs per KiB, arguments crossing included.
      if (argsJson.length >= 1024) charge(ceil(argsJson.length / 1024));
      return refs.crypto.applySync(undefined, [name, argsJson]);
    },
    log: (text: string) => {
      const line = text.length > config.maxLogLength ? apply(stringSlice, text, [0, config.maxLogLength]) + "…" : text;
      refs.log.applySync(undefined, [line]);
    },
  });

  // ---- the run ----------------------------------------------------------------------------------------
  /**
   * The JSON of a built-in's checked arguments (chain-builtins.ts): primitives, and asset keys that are plain
   * copies of two strings; an object's fields are encoded as primitives only, never walked further. Strings
   * go through the guards' `quoteJson` (its work charged before V8 escapes, its length bounded).
   */
  const encodeArgs = (list: unknown[]): string => {
    const primitive = (value: unknown): string => {
      if (typeof value === "string") return guards.quoteJson!(value);
      if (typeof value === "boolean") return value ? "true" : "false";
      if (typeof value === "number") return value === value && value !== Infinity && value !== -Infinity ? "" + value : "null";
      return "null";
    };
    const encode = (value: unknown): string => {
      if (value !== null && typeof value === "object" && !isArray(value)) {
        const key = value as { issuer?: unknown; code?: unknown };
        return "{\"issuer\":" + primitive(key.issuer) + ",\"code\":" + primitive(key.code) + "}";
      }
      return primitive(value);
    };
    let out = "[";
    for (let i = 0; i < list.length; i++) out += (i ? "," : "") + encode(list[i]);
    return out + "]";
  };
  /** Built by hand: JSON.stringify of an object would consult a toJSON a contract may have put on Object.prototype. */
  const report = (fields: { lost?: true; value?: string | boolean; other?: true; thrown?: { exception: string; linenum: number; stack: string } }): string => {
    let out = `{"used":${used},"stackPeak":${stackPeak},"memory":${memory}`;
    if (dead !== "") return out + `,"dead":${quote(dead)}}`;
    if (fields.lost) out += `,"lost":true`;
    if (fields.other) out += `,"other":true`;
    if (fields.value !== undefined) out += `,"value":${quote(fields.value)}`;
    if (fields.thrown) out += `,"thrown":{"exception":${quote(fields.thrown.exception)},"linenum":${fields.thrown.linenum},"stack":${quote(fields.thrown.stack)}}`;
    return out + "}";
  };
  /** A thrown value as the failure record shows it (docs/contracts.md §12), computed here so nothing unbounded crosses. */
  const thrown = (error: unknown) => {
    let exception = "";
    let stackText = "";
    try {
      if (error !== null && typeof error === "object" && apply(isPrototypeOf, errorPrototype, [error])) {
        exception = describeError(error);
        const s = (error as { stack?: unknown }).stack;
        if (typeof s === "string") stackText = s;
      } else {
        exception = toText(error);
      }
    } catch {
      exception = exception || "Error";
    }
    if (exception.length > 1024) exception = apply(stringSlice, exception, [0, 1024]);
    exception = withoutMetering(exception);
    let frames = "";
    let linenum = 0;
    let from = 0;
    while (from < stackText.length && frames.length < 2048) {
      let end = apply(stringIndexOf, stackText, ["\n", from]);
      if (end < 0) end = stackText.length;
      const line = apply(stringTrim, apply(stringSlice, stackText, [from, end]), []);
      const at = apply(stringIndexOf, line, ["(contract.js:"]);
      if (at >= 0) {
        frames += (frames ? "\n" : "") + line;
        if (linenum === 0) linenum = +apply(stringSlice, line, [at + 13, line.length - 1]) || 0;
      }
      from = end + 1;
    }
    return { exception, linenum, stack: apply(stringSlice, frames, [0, 2048]) };
  };

  // What installing cost is not the contract's.
  used = 0;
  memory = 0;
  stackPeak = 0;
  budget = 0;
  let begun = false;
  return {
    begin(initialBudget: number, envJson: string, readOnly: boolean, contractLength: number) {
      if (begun) throw new Error("an isolate runs one contract");
      begun = true;
      budget = initialBudget;
      sourceLength = contractLength;
      const chainBridge = {
        charge: () => charge(config.builtinSteps),
        call: (name: string, list: unknown[]) => call(name, encodeArgs(list)),
        utf8Length: (text: string) => refs.utf8Length.applySync(undefined, [text]),
      };
      installChain(global, chainBridge, parse(envJson), readOnly);
      // Building Utils and Chain went through guarded built-ins (Object.freeze, spread): not the contract's cost.
      used = 0;
      memory = 0;
      stackPeak = 0;
      for (let i = 0; i < guards.runStarts.length; i++) guards.runStarts[i]!();
    },
    run(wrapper: Function, entry: string, input: string): string {
      try {
        const contract = apply(wrapper, undefined, meterFunctions);
        const entries = apply(contract, global, []);
        const fn = entries !== null && typeof entries === "object" ? getOwnPropertyDescriptor(entries, entry)?.value : undefined;
        if (typeof fn !== "function") return report({ lost: true });
        const value = apply(fn, undefined, [input]);
        if (dead !== "") return report({});
        if (typeof value === "boolean") return report({ value });
        if (typeof value !== "string") return report({ other: true });
        if (value.length > config.maxReturnLength) die("Return value exceeding limit");
        return report({ value });
      } catch (error) {
        try {
          caught(error);
        } catch {
          // caught() ended the run: reported below
        }
        if (dead !== "") return report({});
        let description;
        try {
          description = thrown(error);
        } catch {
          description = { exception: "Error", linenum: 0, stack: "" };
        }
        return report({ thrown: description });
      }
    },
    counts: () => `[${used},${stackPeak},${memory}]`,
  };
}
