// An installer evaluated inside each isolate from its source text (guards/kit.ts says how): calls with
// argument lists, chains of proxies and bound functions, symbols, and the errors a contract can make
// (docs/contracts.md §13).
import type { GuardKit } from "./kit.js";

export function installCallGuards(kit: GuardKit): void {
  const { global, meter, work, makesString, replace, charged, arrayLike, list, chains, held } = kit;
  const { MEMORY_LIMIT, STACK_LIMIT } = kit;
  const apply = Reflect.apply;
  const construct = Reflect.construct;
  const getOwnPropertyDescriptor = Reflect.getOwnPropertyDescriptor;
  const getPrototypeOf = Reflect.getPrototypeOf;
  // collections.ts has replaced these by now: the kit's are the natives.
  const { WeakMap: WeakMapCtor, WeakSet: WeakSetCtor, defineProperty, setPrototypeOf, isExtensible, weakMapGet: weakGet, weakMapSet: weakSet, weakMapHas: weakHas, weakSetAdd, weakSetHas } = kit.natives;
  const MAX_ARGUMENTS = 65536;
  /** Chains of proxies or bound functions deeper than this are refused (V8 walks them recursively). */
  const MAX_CHAIN = 64;

  charged(global.Symbol, "for", (_r, args) => {
    makesString(typeof args[0] === "string" ? args[0].length : 0);
    args[0] = kit.asPropertyKey(args[0], true); // the registry is keyed by text, as property keys are
  });
  // ---- calls with an argument list ---------------------------------------------------------------------
  // The list is copied here, its length read once (ECMAScript's CreateListFromArrayLike), and pushed on
  // V8's stack: it holds model stack while the call runs.
  const argumentList = (source: unknown): unknown[] => {
    if (source === null || (typeof source !== "object" && typeof source !== "function")) throw new TypeError("CreateListFromArrayLike called on non-object");
    const { value: items, length: n } = arrayLike(source);
    if (n > MAX_ARGUMENTS) meter.fatal(STACK_LIMIT);
    work(n);
    // The copy, and what the callee makes of it (its `arguments` or rest parameter), as a spread is charged.
    meter.alloc(16 * n);
    const copy = list<unknown>();
    for (let i = 0; i < n; i++) copy[i] = (items as Record<number, unknown>)[i];
    return copy;
  };
  const withArguments = (args: unknown[], call: () => unknown) => {
    const token = meter.push(16 * args.length);
    try {
      return call();
    } finally {
      meter.pop(token, undefined);
    }
  };
  const FunctionProto = getPrototypeOf(function () {}) as object;
  replace(FunctionProto, "apply", () => ({
    apply(this: unknown, thisArg: unknown, source?: unknown) {
      if (typeof this !== "function") throw new TypeError("Function.prototype.apply was called on a non-function");
      const args = source === null || source === undefined ? list<unknown>() : argumentList(source);
      return withArguments(args, () => apply(this as Function, thisArg, args));
    },
  }).apply);
  const ReflectObject = global.Reflect;
  replace(ReflectObject, "apply", () => ({
    apply(target: Function, thisArg: unknown, source: unknown) {
      if (typeof target !== "function") throw new TypeError("Function.prototype.apply was called on a non-function");
      const args = argumentList(source);
      return withArguments(args, () => apply(target, thisArg, args));
    },
  }).apply);
  replace(ReflectObject, "construct", () => ({
    construct(target: Function, source: unknown, ...rest: Function[]) {
      // Only an absent newTarget means the target itself; an explicit undefined is refused, as in V8.
      if (typeof target !== "function") construct(target, []); // throws V8's own TypeError, before the list is read
      const args = argumentList(source);
      if (rest.length > 0) prototypeOfNew(rest[0]);
      return withArguments(args, () => (rest.length === 0 ? construct(target, args) : construct(target, args, rest[0]!)));
    },
  }).construct);

  /**
   * The prototype V8 will give an object constructed with `newTarget`, checked before any of the
   * constructor's code runs (docs/contracts.md §13, prototype chains). A function's or class's own
   * `prototype` was checked when set; a proxy's or a bound function's comes from a trap or a getter, read
   * here and again by V8.
   */
  const prototypeOfNew = (newTarget: unknown) => {
    if (typeof newTarget !== "function") return; // V8's TypeError
    kit.linkUnder((newTarget as { prototype?: unknown }).prototype, 0);
  };


  // ---- chains: V8 follows proxies and bound functions recursively, without contract frames -------------
  const deeper = (inner: unknown): number => {
    const below = inner !== null && (typeof inner === "object" || typeof inner === "function") ? (apply(weakGet, chains, [inner])?.depth ?? 0) : 0;
    if (below >= MAX_CHAIN) throw new TypeError(`Chains of more than ${MAX_CHAIN} proxies or bound functions are not allowed in contracts`);
    return below + 1;
  };
  const NativeProxy = global.Proxy;
  const nativeReflect: Record<string, Function> = {};
  const TRAPS = ["getPrototypeOf", "setPrototypeOf", "isExtensible", "preventExtensions", "getOwnPropertyDescriptor", "defineProperty", "has", "get", "set", "deleteProperty", "ownKeys", "apply", "construct"];
  for (let i = 0; i < TRAPS.length; i++) nativeReflect[TRAPS[i]!] = (Reflect as unknown as Record<string, Function>)[TRAPS[i]!]!;
  /**
   * V8 gets the contract's handler wrapped in one of ours, which looks each trap up at each operation as
   * ECMAScript does: every trap call costs a little work, and the keys an `ownKeys` trap returns (which V8
   * then walks natively, once per listing) are charged by their count, not by the target's.
   */
  /** Each trap call (with the call's own 16): 1/16 step, what running it through the forwarder costs (~0.4 µs). */
  const TRAP_UNITS = 240;
  const forwarding = (handler: object): ProxyHandler<object> => {
    const forwarder: Record<string, Function> = setPrototypeOf({}, null);
    for (let i = 0; i < TRAPS.length; i++) {
      const name = TRAPS[i]!;
      const fallback = nativeReflect[name]!;
      // Held like every guard: a handler's traps can be natives that reach this proxy again.
      forwarder[name] = (...args: unknown[]) => {
        const token = meter.push(kit.LEVEL_FRAME);
        try {
          work(TRAP_UNITS);
          // A sloppy function target: its `caller` and `arguments` read by the trap's fallback or by V8's
          // checks of what a trap answers (every own key, for ownKeys) walk the whole stack (kit.stackWalk).
          if (typeof args[0] === "function") {
            if (name === "ownKeys") kit.functionListing(args[0]);
            else if (args[1] === "caller" || args[1] === "arguments") kit.keyUse(args[1]);
          }
          const trap = (handler as Record<string, unknown>)[name];
          if (trap === undefined || trap === null) {
            // What V8 does without the trap links objects as the guarded built-ins do (guards/kit.ts linkUnder).
            if (name === "setPrototypeOf") kit.relink(args[0], args[1]);
            if (name === "construct") prototypeOfNew(args[2]);
            return apply(fallback, undefined, args);
          }
          if (typeof trap !== "function") throw new TypeError(`'${toString(trap)}' returned for property '${name}' of object '[object Object]' is not a function`);
          if (name === "ownKeys") return listedKeys(apply(trap, handler, args));
          const result = apply(trap, handler, args);
          // A function proxy's `prototype` is what V8 gives the objects it constructs with it as newTarget, read
          // by V8 itself through this trap: checked at each answer, not only at chainsim's own read before (a
          // trap answering one object deeper each time made chains of 2,000; review of 2026-11-27).
          if (name === "get" && args[1] === "prototype" && typeof args[0] === "function") kit.linkUnder(result, 0);
          // V8 compares what some traps answer with the target's own frozen property (kit.sameAsTarget).
          if (name === "get") kit.sameAsTarget(args[0], args[1], result);
          else if (name === "set" || name === "defineProperty") kit.sameAsTarget(args[0], args[1], name === "set" ? args[2] : descriptorValue(args[2]));
          else if (name === "getOwnPropertyDescriptor") kit.sameAsTarget(args[0], args[1], descriptorValue(result));
          return result;
        } finally {
          meter.pop(token, undefined);
        }
      };
    }
    return forwarder;
  };
  /**
   * The keys an `ownKeys` trap answered, read once into a list of chainsim's (V8 reads its length and each
   * element, as here, and refuses what is not a key): charged by their count, and each key as a key.
   */
  const listedKeys = (answer: unknown): unknown => {
    if (!kit.isObject(answer)) return answer; // V8's TypeError
    const { value: items, length } = arrayLike(answer);
    kit.makesEntries(length, KEY_BYTES);
    const keys = list<unknown>();
    for (let i = 0; i < length; i++) {
      const key = (items as Record<number, unknown>)[i];
      kit.keyUse(key);
      keys[i] = key;
    }
    return keys;
  };
  /** A descriptor's `value`, read without running a contract's getter (V8 reads it natively, from its own copy). */
  const descriptorValue = (descriptor: unknown): unknown => {
    if (!kit.isObject(descriptor)) return undefined;
    const own = getOwnPropertyDescriptor(descriptor, "value");
    return own !== undefined && "value" in own ? own.value : undefined;
  };
  const toString = (value: unknown) => (typeof value === "symbol" ? "Symbol()" : "" + (value as string));
  const KEY_BYTES = 16;
  /** A proxy and chainsim's forwarding handler (13 closures): about 2 KB. */
  const PROXY_BYTES = 2048;
  const PROXY_UNITS = 512;
  const proxyParts = (target: object, handler: object) => {
    meter.alloc(PROXY_BYTES);
    work(PROXY_UNITS);
    const depth = deeper(target);
    // A handler that is itself a proxy is walked by V8 for each trap lookup: it counts in the chain too.
    const handlerDepth = deeper(handler);
    return { depth: depth > handlerDepth ? depth : handlerDepth, forwarder: kit.isObject(handler) ? forwarding(handler) : handler };
  };
  const GuardedProxy = function Proxy(this: unknown, target: object, handler: ProxyHandler<object>) {
    if (new.target === undefined) throw new TypeError("Constructor Proxy requires 'new'");
    const { depth, forwarder } = proxyParts(target, handler);
    const proxy = construct(NativeProxy, [target, forwarder]);
    apply(weakSet, chains, [proxy, { depth, target }]);
    return proxy;
  };
  defineProperty(GuardedProxy, "length", { value: 2, configurable: true });
  const nativeRevocable = NativeProxy.revocable;
  defineProperty(GuardedProxy, "revocable", {
    value: {
      revocable(target: object, handler: ProxyHandler<object>) {
        const { depth, forwarder } = proxyParts(target, handler);
        const result = nativeRevocable(target, forwarder);
        apply(weakSet, chains, [result.proxy, { depth, target }]);
        return result;
      },
    }.revocable,
    writable: true,
    enumerable: false,
    configurable: true,
  });
  defineProperty(global, "Proxy", { value: GuardedProxy, writable: true, enumerable: false, configurable: true });
  // V8 calls a bound function without running any JavaScript, so bound built-ins given as getters or
  // conversions (`get: Reflect.get.bind(null, o, "x")` on `o.x`) would recurse natively, unseen by the stack
  // model: a contract gets a proxy of the bound function whose calls hold a frame. `instanceof` still looks
  // through it to the target, as for a bound function (its @@hasInstance is the proxy's own).
  // Error.prototype.toString in JavaScript: its result is capped and charged as any string made, and reading
  // `name` and `message` (which a contract can make this method again) happens inside the guard's frame.
  replace(global.Error.prototype, "toString", (original) => ({
    toString(this: unknown) {
      if (!kit.isObject(this)) return apply(original, this, []); // V8's TypeError
      const name = (this as { name?: unknown }).name;
      const title = name === undefined ? "Error" : kit.toText(name);
      const message = (this as { message?: unknown }).message;
      const text = message === undefined ? "" : kit.toText(message);
      if (title === "") return text;
      if (text === "") return title;
      makesString(title.length + 2 + text.length);
      return title + ": " + text;
    },
  }).toString);
  const BIND_BYTES = 512;
  const BIND_UNITS = 256;
  const hasInstanceSymbol = Symbol.hasInstance;
  const boundOf = new WeakMapCtor<object, Function>();
  const isInstance = {
    [hasInstanceSymbol](this: unknown, value: unknown): boolean {
      const bound = kit.isObject(this) ? apply(weakGet, boundOf, [this]) : undefined;
      return bound === undefined ? false : apply(ordinaryHasInstance, bound, [value]);
    },
  }[hasInstanceSymbol];
  const ordinaryHasInstance = (FunctionProto as Record<symbol, Function>)[hasInstanceSymbol]!;
  const reflectGet = Reflect.get;
  replace(FunctionProto, "bind", (original) => ({
    bind(this: unknown, ...args: unknown[]) {
      const depth = deeper(this);
      // A bound function, chainsim's proxy of it and its handler: about 512 bytes, and work to match.
      work(args.length + BIND_UNITS);
      meter.alloc(BIND_BYTES + 8 * args.length);
      const bound = apply(original, this, args) as Function;
      // Its name is made anew, "bound " + the target's name as V8 read it (a getter's, an inherited one, a
      // proxy's answer: nineteenth review of 2026-11-26), so charged by what it made.
      const name = getOwnPropertyDescriptor(bound, "name")?.value;
      if (typeof name === "string" && name.length > kit.LONG_TEXT) makesString(name.length);
      const handler: ProxyHandler<Function> = {
        apply: (target, thisArg, list) => held(() => apply(target, thisArg, list)),
        construct: (target, list, newTarget) => held(() => construct(target, list, newTarget === proxy ? target : newTarget)),
        get: (target, key, receiver) => (key === hasInstanceSymbol ? isInstance : reflectGet(target, key, receiver)),
      };
      const proxy: Function = new NativeProxy(bound, handler);
      apply(weakSet, boundOf, [proxy, bound]);
      apply(weakSet, chains, [proxy, { depth }]);
      return proxy;
    },
  }).bind);

  // ---- errors: telling V8's own limits from a contract's imitation ----------------------------------
  // A guard trip is never recorded (docs/contracts.md §13), so a contract must not be able to fake one by
  // throwing its own RangeError("Maximum call stack size exceeded"). Every error constructor a contract can
  // reach records what it makes; the natives stay out of reach (wrappers' prototypes and `constructor`s
  // point at wrappers). An engine error reaches a contract only through a catch, so the first catch that
  // sees it decides; a later catch (after the contract could have rewritten it) never counts it.
  const made = new WeakSetCtor<object>();
  const seen = new WeakSetCtor<object>();
  const objectToString = Object.prototype.toString;
  const toStringTag = Symbol.toStringTag;
  const NativeRangeErrorProto = global.RangeError.prototype;
  const engineReason = (message: string): string | undefined =>
    message === "Maximum call stack size exceeded" ? STACK_LIMIT + " (engine)" : message === "Array buffer allocation failed" ? MEMORY_LIMIT + " (engine)" : undefined;
  const ERROR_BYTES = 1024;
  const wrapError = (name: string, parent: Function | undefined): Function | undefined => {
    const Native = global[name];
    if (typeof Native !== "function") return undefined;
    const Guarded: Function = kit.named(name, (newTarget, _self, args) => {
      // V8 captures frames with each error (about 1 KB): called as a built-in's callback, nothing else pays.
      meter.alloc(ERROR_BYTES);
      kit.traceCaptured();
      // V8 skips the frames up to the constructor's, looking for it over the whole stack if it is not there.
      if (newTarget !== undefined && newTarget !== Guarded) kit.stackWalk();
      if (name === "AggregateError" && args.length > 0) {
        // V8 lists the errors natively: the iterator is asked for once, here, and its values charged as elements.
        const errors = kit.iterated(args[0]);
        if (errors !== undefined) {
          kit.makesElements(errors[1]);
          args[0] = errors[0];
        }
      }
      const error = construct(Native, args, newTarget === undefined || newTarget === Guarded ? Native : newTarget);
      apply(weakSetAdd, made, [error]);
      return error;
    });
    kit.standIn(name, Native, Guarded, { ...(parent && { parent }), skip: ["prepareStackTrace", "stackTraceLimit"] });
    return Guarded;
  };
  const GuardedError = wrapError("Error", undefined);
  // Stack traces show the contract's 10 innermost frames whatever this says (bootstrap.ts fixes V8's own);
  // it exists because code reads and sets it.
  defineProperty(GuardedError, "stackTraceLimit", { value: 10, writable: true, enumerable: true, configurable: true });
  // Given a function, V8 skips frames until it sees that function's, over the whole stack if it is not there.
  replace(GuardedError, "captureStackTrace", (original) => ({
    captureStackTrace(...args: unknown[]) {
      meter.alloc(ERROR_BYTES);
      kit.traceCaptured();
      if (typeof args[1] === "function") kit.stackWalk();
      return apply(original, undefined, args);
    },
  }).captureStackTrace);
  for (const name of ["RangeError", "TypeError", "SyntaxError", "ReferenceError", "EvalError", "URIError", "AggregateError"]) wrapError(name, GuardedError);
  kit.madeByContract = (error: object): boolean => apply(weakSetHas, made, [error]);
  kit.engineLimit = (error: unknown): string | undefined => {
    if (error === null || typeof error !== "object") return undefined;
    if (apply(weakSetHas, seen, [error])) return undefined;
    apply(weakSetAdd, seen, [error]);
    if (apply(weakSetHas, made, [error]) || apply(weakHas, chains, [error])) return undefined;
    if (getPrototypeOf(error) !== NativeRangeErrorProto || !isExtensible(error)) return undefined;
    const message = getOwnPropertyDescriptor(error, "message");
    if (!message || typeof message.value !== "string" || getOwnPropertyDescriptor(error, toStringTag)) return undefined;
    const reason = engineReason(message.value);
    if (reason === undefined) return undefined;
    // Only an object V8 made as an error answers "[object Error]" with no toStringTag in the way.
    defineProperty(error, toStringTag, { value: undefined, writable: true, enumerable: false, configurable: true });
    const tag = apply(objectToString, error, []);
    delete (error as Record<symbol, unknown>)[toStringTag];
    return tag === "[object Error]" ? reason : undefined;
  };

  // Built-ins that look a property key up (docs/contracts.md §13, "Long property keys"): the key is handed
  // to V8 through asPropertyKey, so a long one is charged where V8 converts it. Replaced last, after every
  // installer took the natives it uses (collections.ts does __defineGetter__ and __defineSetter__).
  // [owner, name, the key's argument, whether V8 words a failed conversion as a key's]
  const keyTakers: [object, string, number, boolean][] = [
    [global.Reflect, "get", 1, false],
    [global.Reflect, "has", 1, true],
    [global.Reflect, "deleteProperty", 1, true],
    [global.Reflect, "getOwnPropertyDescriptor", 1, false],
    [global.Object, "getOwnPropertyDescriptor", 1, false],
    [global.Object, "hasOwn", 1, true],
    [global.Object.prototype, "hasOwnProperty", 0, true],
    [global.Object.prototype, "propertyIsEnumerable", 0, true],
    [global.Object.prototype, "__lookupGetter__", 0, true],
    [global.Object.prototype, "__lookupSetter__", 0, true],
  ];
  for (let i = 0; i < keyTakers.length; i++) {
    const [owner, name, at, keyMessages] = keyTakers[i]!;
    charged(owner, name, (_r, args) => {
      if (at < args.length) args[at] = kit.asPropertyKey(args[at], keyMessages);
    });
  }
}
