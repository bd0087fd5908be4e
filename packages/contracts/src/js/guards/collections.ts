// An installer evaluated inside each isolate from its source text (guards/kit.ts says how): arrays, typed
// arrays, Set, Map, and the object functions that list keys, charged by size before the work
// (docs/contracts.md §13).
import type { GuardKit } from "./kit.js";

export function installCollectionGuards(kit: GuardKit): void {
  const { global, meter, work, longText, makesString, makesElements, makesEntries, integer, toText, replace, charged, arrayLike, isTypedArray, keyCount, iterates, iterated, typedLength, min, max, list, toPropertyKey } = kit;
  const { MEMORY_LIMIT, LEVEL_FRAME, chains } = kit;
  const apply = Reflect.apply;
  const construct = Reflect.construct;
  const defineProperty = Object.defineProperty;
  const getOwnPropertyDescriptor = Reflect.getOwnPropertyDescriptor;
  const getPrototypeOf = Reflect.getPrototypeOf;
  const setPrototypeOf = Object.setPrototypeOf;
  const isArray = Array.isArray;
  const toObject = Object;
  const hasProperty = Reflect.has;
  const SetCtor = Set;
  const setHas = Set.prototype.has;
  const setAdd = Set.prototype.add;
  const setDelete = Set.prototype.delete;
  const weakGet = WeakMap.prototype.get;
  const weakSetAdd = WeakSet.prototype.add;
  const isConcatSpreadable = Symbol.isConcatSpreadable;
  const species = Symbol.species;
  const NativeArrayCtor = Array;
  const reflectGet = Reflect.get;
  const iteratorSymbol = Symbol.iterator;
  const TypedArrayProto = getPrototypeOf(Int8Array.prototype) as object;
  const ArrayProto = Array.prototype;
  const TypedArray = getPrototypeOf(Int8Array) as object;
  const byteLength = getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength")!.get!;
  const isArrayBuffer = (value: unknown): boolean => {
    try {
      apply(byteLength, value, []);
      return true;
    } catch {
      return false;
    }
  };
  const limit = kit.limits.maxStringLength;
  /** Bytes the memory model counts per entry of a collection V8 builds. */
  const KEY_BYTES = 16;
  const SET_ENTRY = 24;
  const MAP_ENTRY = 40;
  /** CreateDataProperty: the descriptor has no prototype, so no field a contract put on Object.prototype is read. */
  const createProperty = (target: object, key: number | string, value: unknown) => {
    const descriptor = setPrototypeOf({ value, writable: true, enumerable: true, configurable: true }, null) as PropertyDescriptor;
    return defineProperty(target, key, descriptor);
  };

  // ---- Array.prototype: the length read once, charged, and the same length seen by V8 ----------------
  /** `cost(length, args)` runs before the original, on the receiver as `arrayLike` gives it. */
  /** The natives that construct their result with the receiver's species (nativeSpecies). */
  const SPECIES_METHODS: Record<string, boolean> = setPrototypeOf({ slice: true, splice: true, map: true, filter: true, flatMap: true }, null) as Record<string, boolean>;
  const arrayMethod = (name: string | symbol, cost: (length: number, args: unknown[], target: unknown) => void) =>
    replace(global.Array.prototype, name, (original) => ({
      method(this: unknown, ...args: unknown[]) {
        if (this === null || this === undefined) return apply(original, this, args);
        const { value: target, length } = arrayLike(this, name !== "push" && name !== "at" && name !== "pop");
        cost(length, args, target);
        // Items written into a typed array are made numbers there (objects behind stand-ins).
        if ((name === "push" || name === "unshift" || name === "splice") && isTypedArray(target)) kit.numbersMade(args, args.length, name === "splice" ? 2 : 0);
        // On an object that is not an array, V8 writes the new elements as any write past the end.
        const added = name === "push" || name === "unshift" ? args.length : name === "splice" ? max(args.length - 2, 0) : 0;
        const writesWithin = name === "copyWithin" || name === "reverse" || name === "fill" || name === "sort";
        if ((added > 0 || (writesWithin && length > 0)) && kit.isObject(this) && arrayBehind(this) === undefined) elementWrite(this, length + added - 1);
        const receiver = SPECIES_METHODS[name as string] === true ? nativeSpecies(target) : target;
        const result = apply(original, receiver, args);
        return (result === target || result === receiver) && target !== this ? this : result;
      },
    }).method);
  /**
   * A callback a native calls once per element may itself be a native (`a.forEach(f.call, g)`), which no
   * contract step counts: each call costs CALLBACK_UNITS (1/32 of a step).
   */
  const CALLBACK_UNITS = 128;
  const callbacks = (count: number, args: unknown[]) => {
    if (typeof args[0] === "function") work(count * CALLBACK_UNITS);
  };
  // Methods that make an array as long as the receiver. map, slice and splice make theirs with the species
  // constructor, which for a plain array is the guarded Array: it charges the result itself.
  for (const name of ["slice", "splice", "map", "filter", "toReversed", "toSpliced", "with", "flatMap"]) {
    const speciesLength = name === "slice" || name === "splice" || name === "map";
    arrayMethod(name, (length, args, target) => {
      if (speciesLength && resultChargesItself(target)) work(length);
      else makesElements(length);
      if (name === "map" || name === "filter" || name === "flatMap") callbacks(length, args);
      // A typed array's species is a typed array: map's answers become numbers.
      if (name === "map" && isTypedArray(target)) numberAnswers(args);
    });
  }
  // Methods that walk the receiver in place.
  for (const name of ["reverse", "copyWithin", "indexOf", "lastIndexOf", "includes", "find", "findIndex", "findLast", "findLastIndex", "every", "some", "forEach", "reduce", "reduceRight", "shift", "unshift"]) {
    const searches = name === "indexOf" || name === "lastIndexOf" || name === "includes";
    arrayMethod(name, (length, args) => {
      work(length + args.length);
      // Each element may be a string as long as the one searched for, compared code unit by code unit.
      if (searches) work(length * longText(args[0]));
      else callbacks(length, args);
    });
  }
  arrayMethod("fill", (length, args, target) => {
    // Converted once, here, and given to V8 as numbers (a `valueOf` answers once).
    const start = args[1] === undefined ? 0 : (args[1] = integer(args[1]));
    const end = args[2] === undefined ? length : (args[2] = integer(args[2]));
    const from = start < 0 ? max(length + start, 0) : min(start, length);
    const to = end < 0 ? max(length + end, 0) : min(end, length);
    if (to > from) makesElements(to - from); // holes become elements
    // A typed array makes a number of the value for each element it writes: an object is made one here, once
    // (V8 would convert it again for each element, its number-making unseen: seventeenth review of 2026-11-26).
    if (to > from && isTypedArray(target)) {
      if (kit.isObject(args[0])) args[0] = toNumber(kit.numberPrimitive(args[0]));
      work((to - from) * kit.numberText(args[0]));
    }
  });
  for (const name of ["sort", "toSorted"]) arrayMethod(name, (length, args, target) => sortCost(length, name === "toSorted", args, target));
  arrayMethod("push", (_length, args) => makesElements(args.length));
  // Constant work, but they read a length (a getter, a long numeric string: through arrayLike's view) and
  // convert what a contract controls: held like every guard, so that none recurses into itself unseen.
  for (const name of ["at", "pop"]) arrayMethod(name, () => {});
  // ECMAScript's Array.prototype.toString, so that its fallback when `join` is not callable is the guarded
  // Object.prototype.toString (text.ts), whose result is charged: V8's would call its own natively.
  const objectToString = Object.prototype.toString;
  for (const owner of [global.Array.prototype, TypedArrayProto]) {
    replace(owner, "toString", () => ({
      toString(this: unknown) {
        if (this === null || this === undefined) throw new TypeError("Cannot convert undefined or null to object");
        const object = toObject(this) as { join?: unknown };
        const join = object.join;
        return apply(typeof join === "function" ? join : objectToString, object, []);
      },
    }).toString);
  }
  // Iterators are lazy: what consumes one natively is charged by the live size of what it iterates.
  // An array-like whose length is a getter or a long numeric string is iterated through arrayLike's view,
  // whose length is read once (V8's iterator reads it again at each step).
  for (const name of ["keys", "values", "entries", iteratorSymbol]) {
    replace(global.Array.prototype, name, (original) => ({
      method(this: unknown) {
        const iterated = this === null || this === undefined ? this : arrayLike(this, false).value;
        return iterates(apply(original, iterated, []), this);
      },
    }).method);
  }
  function sortCost(length: number, copies: boolean, args: unknown[], receiver?: unknown) {
    let log = 1;
    for (let m = length; m > 1; m = (m - (m % 2)) / 2) log++;
    if (copies) makesElements(length);
    work(length * log);
    callbacks(length * log, args);
    // The default order compares strings: each element takes part in about log2(n) comparisons, each
    // costing up to its length.
    if (args[0] === undefined && isArray(receiver)) {
      const items = receiver as unknown[];
      let text = 0;
      let objects = false;
      for (let i = 0; i < length && i < items.length; i++) {
        text += longText(items[i]);
        if (kit.isObject(items[i])) objects = true;
      }
      work(text * log);
      // An object's text is known only once converted, at each comparison: the same order, charged there.
      if (objects) args[0] = textOrder;
    } else {
      // V8 makes a number of what the comparator answers: a long string would be read whole each time.
      numberAnswers(args);
    }
  }
  /** ECMAScript's SortCompare without a comparator (V8 sets undefined apart first), charging long texts. */
  const textOrder = (x: unknown, y: unknown): number => {
    const token = meter.push(kit.LEVEL_FRAME);
    try {
      const a = toText(x);
      const b = toText(y);
      work(min(longText(a), longText(b)));
      return a < b ? -1 : b < a ? 1 : 0;
    } finally {
      meter.pop(token, undefined);
    }
  };

  // join (and so toString, which calls this.join) in JavaScript: V8's own recursion through nested arrays
  // has no contract frame; here each level goes through the guarded toString and join, which hold frames
  // (kit.replace). A cycle joins as "", as in V8.
  const joining = new SetCtor<object>();
  /** Each element converted and kept as a piece: about 55 ns. */
  const JOIN_UNITS = 24;
  const OBJECT_ELEMENT_UNITS = 128;
  const join = (receiver: unknown, length: number, separator: unknown): string => {
    const array = receiver as Record<number, unknown>;
    const glue = separator === undefined ? "," : toText(separator);
    if (apply(setHas, joining, [array])) return "";
    apply(setAdd, joining, [array]);
    try {
      work(JOIN_UNITS * length);
      const pieces = list<string>();
      let total = 0;
      for (let i = 0; i < length; i++) {
        const element = array[i];
        // An object converts through its own methods (toString, join again): a call's worth more.
        if (kit.isObject(element)) work(OBJECT_ELEMENT_UNITS);
        const piece = element === undefined || element === null ? "" : toText(element);
        pieces[i] = piece;
        total += piece.length + (i > 0 ? glue.length : 0);
        if (total > limit) meter.fatal(MEMORY_LIMIT);
      }
      meter.alloc(8 * length);
      makesString(total);
      return kit.joined(pieces, glue);
    } finally {
      apply(setDelete, joining, [array]);
    }
  };
  replace(global.Array.prototype, "join", () => ({
    join(this: unknown, separator?: unknown) {
      if (this === null || this === undefined) throw new TypeError("Cannot convert undefined or null to object");
      const { value: array, length } = arrayLike(toObject(this));
      return join(array, length, separator);
    },
  }).join);
  // flat in JavaScript for the same reason (V8 flattens recursively).
  replace(global.Array.prototype, "flat", () => ({
    flat(this: unknown, depth?: unknown) {
      if (this === null || this === undefined) throw new TypeError("Cannot convert undefined or null to object");
      // ECMAScript's order: the length, the depth, then the result (ArraySpeciesCreate), then the walk.
      const top = arrayLike(toObject(this));
      const levels = depth === undefined ? 1 : integer(depth);
      const result = speciesResult(top.value);
      let n = 0;
      const into = (items: unknown, length: number, left: number) => {
        makesElements(length);
        for (let i = 0; i < length; i++) {
          if (!hasProperty(items as object, i)) continue;
          const element = (items as Record<number, unknown>)[i];
          if (left > 0 && isArray(element)) {
            const token = meter.push(LEVEL_FRAME);
            const inner = arrayLike(element);
            into(inner.value, inner.length, left - 1);
            meter.pop(token, undefined);
          } else {
            result.put(n++, element);
          }
        }
      };
      into(top.value, top.length, levels);
      return result.done();
    },
  }).flat);
  // concat in JavaScript (ECMAScript's Array.prototype.concat): each spreadable length read once and
  // charged before its elements are walked.
  const isSpreadable = (value: unknown): boolean => {
    if (value === null || (typeof value !== "object" && typeof value !== "function")) return false;
    const flag = (value as Record<symbol, unknown>)[isConcatSpreadable];
    return flag !== undefined ? !!flag : isArray(value);
  };
  /**
   * The result ArraySpeciesCreate(original, 0) makes, filled in order. A plain result is filled while it has
   * no prototype (no setter a contract put on Array.prototype or Object.prototype can see the writes, and a
   * plain write is ten times faster than defining each element) and gets Array.prototype when done.
   */
  const speciesResult = (original: unknown): { put(index: number, value: unknown): void; done(length?: number): unknown[] } => {
    let C: unknown;
    if (isArray(original)) {
      C = (original as { constructor?: unknown }).constructor;
      if (C !== null && (typeof C === "object" || typeof C === "function")) {
        C = (C as Record<symbol, unknown>)[species];
        if (C === null) C = undefined;
      }
      if (C === GuardedArray) C = undefined;
      if (C !== undefined && typeof C !== "function") throw new TypeError("object.constructor[Symbol.species] is not a constructor");
    }
    if (C === undefined) {
      const out = list<unknown>();
      return {
        put: (index, value) => {
          out[index] = value;
        },
        done: (length) => {
          if (length !== undefined) out.length = length;
          return setPrototypeOf(out, ArrayProto) as unknown[];
        },
      };
    }
    const made = madeBySpecies(C as Function, [0]) as unknown[];
    return {
      put: (index, value) => createProperty(made, index, value),
      done: (length) => {
        if (length !== undefined) (made as { length: number }).length = length;
        return made;
      },
    };
  };
  /**
   * What an array's species (or Array.from's and Array.of's receiver) constructs, refused when it is a typed
   * array: V8 would make a number of each element it writes there natively, unseen (an element answering
   * 4 Mi digits: 1 ms for no step; fifteenth review of 2026-11-26). Anything else is returned as made.
   */
  const madeBySpecies = (C: Function, args: unknown[]): unknown => {
    const made = construct(C, args);
    if (isTypedArray(made)) throw new TypeError("A typed array made by an array's species or by Array.from's or Array.of's receiver is not allowed in contracts");
    return made;
  };
  /** A constructor V8 may call for an array's species: through madeBySpecies. */
  const speciesWrapper = (C: unknown): unknown => {
    if (typeof C !== "function") return C; // undefined, null or V8's own TypeError
    return function (...args: unknown[]) {
      return madeBySpecies(C, args);
    };
  };
  /**
   * V8's native species methods (slice, splice, map, filter, flatMap) construct their result with the
   * receiver's species and write into it natively. A receiver whose species is Array's own (looked up
   * without running a getter) is handed over as it is; any other goes behind a view whose `constructor`
   * answers a holder of the wrapped species, read as V8 reads them (`constructor`, then its species, once).
   */
  const nativeSpecies = (receiver: unknown): unknown => {
    if (!isArray(receiver) || kit.isProxy(receiver)) return receiver;
    if (plainSpecies(receiver as object)) return receiver;
    // A view must answer a read-only, non-configurable own `constructor` as it is (V8 checks): not wrappable.
    const own = getOwnPropertyDescriptor(receiver as object, "constructor");
    if (own !== undefined && own.configurable === false && own.writable === false) {
      throw new TypeError("An array with a read-only own constructor and a species other than Array's is not supported in contracts");
    }
    return kit.view(receiver as object, (target, key, viewer) => {
      const value = reflectGet(target, key, viewer);
      if (key !== "constructor" || value === null || (typeof value !== "object" && typeof value !== "function")) return value;
      const holder = setPrototypeOf({}, null) as Record<symbol, unknown>;
      holder[species] = speciesWrapper((value as Record<symbol, unknown>)[species]);
      return holder;
    });
  };
  const arraySpeciesGetter = getOwnPropertyDescriptor(NativeArrayCtor, species)?.get;
  /** Whether `constructor` is found, as a data property, to be Array (the stand-in) with its own species getter. */
  const plainSpecies = (array: object): boolean => {
    const made = kit.lookup(array, "constructor");
    if (made === undefined) return true; // no constructor: V8 makes a plain array
    if (made === null || !("value" in made) || made.value !== GuardedArray) return false;
    const speciesOwn = getOwnPropertyDescriptor(GuardedArray, species);
    return speciesOwn !== undefined && speciesOwn.get === arraySpeciesGetter;
  };
  replace(global.Array.prototype, "concat", () => ({
    concat(this: unknown, ...items: unknown[]) {
      if (this === null || this === undefined) throw new TypeError("Array.prototype.concat called on null or undefined");
      const first = toObject(this);
      const result = speciesResult(first);
      let n = 0;
      for (let p = -1; p < items.length; p++) {
        const part = p < 0 ? first : items[p];
        if (!isSpreadable(part)) {
          if (n >= 2 ** 53 - 1) throw new TypeError("Invalid array length");
          result.put(n++, part);
          continue;
        }
        const { value: source, length } = arrayLike(part);
        if (n + length > 2 ** 53 - 1) throw new TypeError("Invalid array length");
        makesElements(length);
        for (let k = 0; k < length; k++, n++) {
          if (hasProperty(source as object, k)) result.put(n, (source as Record<number, unknown>)[k]);
        }
      }
      return result.done(n);
    },
  }).concat);
  defineProperty(global.Array.prototype.concat, "length", { value: 1, configurable: true });

  // Array.from and %TypedArray%.from: an iterable charged by its known size, an array-like by its length.
  const fromCost = (args: unknown[]) => {
    const items = args[0];
    if (items === null || items === undefined) return;
    const iterable = iterated(items);
    let count: number;
    if (iterable !== undefined) {
      count = iterable[1];
      args[0] = iterable[0];
    } else {
      const { value: source, length } = arrayLike(items);
      count = length;
      args[0] = source;
    }
    makesElements(count);
    callbacks(count, [args[1]]);
  };
  for (const owner of [global.Array, TypedArray]) {
    replace(owner, "from", (original) => ({
      method(this: unknown, ...args: unknown[]) {
        if (owner === TypedArray && typeof this === "function" && args[0] !== null && args[0] !== undefined) {
          // The values (or what the map function answers for each) become numbers: listed first, charged.
          const values = listOf(apply(guardedArrayFrom, undefined, [args[0], args[1], args[2]]) as unknown[]);
          kit.numbersMade(values, values.length);
          return apply(original, this, [values]);
        }
        fromCost(args);
        return apply(original, owner === TypedArray ? this : receiverConstructor(this), args);
      },
    }).method);
  }
  /** Array.from's and Array.of's receiver, when it is a constructor of a contract's: through madeBySpecies. */
  const receiverConstructor = (C: unknown): unknown => (typeof C === "function" && C !== GuardedArray ? speciesWrapper(C) : C);
  replace(global.Array, "of", (original) => ({
    of(this: unknown, ...items: unknown[]) {
      return apply(original, receiverConstructor(this), items);
    },
  }).of);
  const guardedArrayFrom = global.Array.from as Function;
  /**
   * A list of chainsim's handed to V8 (it holds number stand-ins): without a prototype, so that V8 reads it
   * as an array-like and runs no iterator a contract put on Array.prototype (which would be handed the list).
   */
  const listOf = (values: unknown[]): unknown[] => kit.natives.setPrototypeOf(values, null) as unknown[];
  charged(TypedArray, "of", (_r, args) => kit.numbersMade(args, args.length));

  // ---- Array itself, and array lengths: V8 reserves what a length asks for at once ------------------
  // `new Array(n)` and a write making `length` larger make V8 allocate the new slots at once (80 MB for
  // 10,000,000) at the price of one call: both are charged by the length before V8 sees it. The stand-in is
  // also `Array.prototype.constructor`, so that no contract reaches the native; V8's species fast paths
  // give way to its generic ones (map, filter, slice, splice, flatMap), which the prices allow for.
  const NativeArray = global.Array as ArrayConstructor;
  const GuardedArray = function Array(this: unknown, ...args: unknown[]) {
    // A single number is a length (anything else, elements); an invalid one is V8's RangeError.
    if (args.length === 1 && typeof args[0] === "number" && args[0] === args[0] >>> 0) makesElements(args[0]);
    return construct(NativeArray, args, new.target === undefined || new.target === GuardedArray ? NativeArray : new.target);
  };
  kit.standIn("Array", NativeArray, GuardedArray);
  const speciesGetter = getOwnPropertyDescriptor(NativeArray, species)!.get;
  /**
   * Whether a species-creating native (map, slice, splice) will make its result with `new Array(n)`, which
   * charges itself: a plain array with nothing changed on the way to the constructor.
   */
  const resultChargesItself = (receiver: unknown): boolean => {
    if (!isArray(receiver) || kit.isProxy(receiver) || getPrototypeOf(receiver as object) !== ArrayProto) return false;
    if (getOwnPropertyDescriptor(receiver as object, "constructor") !== undefined) return false;
    const constructor = getOwnPropertyDescriptor(ArrayProto, "constructor");
    return constructor !== undefined && constructor.value === GuardedArray && getOwnPropertyDescriptor(GuardedArray, species)?.get === speciesGetter;
  };
  /** The array whose `length` a write to `receiver.length` sets: the receiver, or the array behind its proxies. */
  const arrayBehind = (receiver: unknown): unknown[] | undefined => {
    if (!kit.isObject(receiver)) return undefined;
    const target = objectBehind(receiver);
    return isArray(target) ? (target as unknown[]) : undefined;
  };
  const toNumber = Number;
  /**
   * `value` is about to become the `length` of `receiver` (an assignment, Reflect.set, defineProperty,
   * Object.assign): growth is charged first. Answers what to write: an object is converted here as V8's
   * ArraySetLength converts it (twice), so that nothing converts it again after the charge.
   */
  const lengthWrite = (receiver: unknown, value: unknown): unknown => {
    const array = arrayBehind(receiver);
    if (array === undefined) return value;
    let length = value;
    if (kit.isObject(value)) {
      const first = toNumber(value);
      length = toNumber(value);
      if (first >>> 0 !== length) throw new RangeError("Invalid array length");
    }
    const n = toNumber(length);
    if (n === n >>> 0 && n > array.length) makesElements(n - array.length);
    return length;
  };
  /** The object a write to `receiver` reaches: the receiver, or the target behind its proxies. */
  const objectBehind = (receiver: object): object => {
    let o = receiver;
    for (let hops = 0; hops <= 64 && kit.isProxy(o); hops++) o = apply(weakGet, chains, [o])!.target!;
    return o;
  };
  /** For an object that is not an array: the highest index written to it + 1 (an array has its length). */
  const highWater = new WeakMap<object, number>();
  const weakSetEntry = WeakMap.prototype.set;
  /**
   * A write to index `index` of `receiver` (docs/contracts.md §13, "Writes that can make an array longer").
   * V8 keeps at most 2 × high + 16 slots for an object whose highest index + 1 is `high`, and grows them
   * (to 1.5 × (index + 1) + 16) only for an index within 1,024 of what it keeps; an index further out turns
   * the elements into a dictionary. So a write below `reach` is charged as growth, 1.5 elements per
   * element written past the end, and one beyond it as a dictionary entry.
   */
  const elementWrite = (receiver: object, index: number): void => {
    const target = objectBehind(receiver);
    if (kit.isProxy(target) || kit.isTypedArray(target)) return;
    const array = isArray(target);
    const high = array ? (target as unknown[]).length : (apply(weakGet, highWater, [target]) ?? 0);
    if (index < high) return;
    if (index < 2 * high + 1040) {
      kit.reservesElements(index + 1 - high);
    } else {
      makesEntries(1, DICTIONARY_ENTRY);
    }
    if (!array) apply(weakSetEntry, highWater, [target, index + 1]);
  };
  const DICTIONARY_ENTRY = 32;
  /**
   * `value` is about to be written to `receiver[key]` (`key` already a property key, or a number): a new
   * length, or an element past the end, is charged first. Answers what to write (lengthWrite).
   */
  const propertyWrite = (receiver: unknown, key: unknown, value: unknown): unknown => {
    kit.keyUse(key);
    if (!kit.isObject(receiver)) return value;
    if (key === "length") return lengthWrite(receiver, value);
    // A function's prototype is the prototype of every object it will construct (docs/contracts.md §13).
    if (key === "prototype" && typeof receiver === "function") kit.linkUnder(value, 0);
    const index = kit.arrayIndex(key);
    if (index >= 0) elementWrite(receiver, index);
    return kit.typedValue(receiver, key, value);
  };
  kit.propertyWrite = propertyWrite;
  kit.elementCount = (value: unknown): number => {
    if (!kit.isObject(value)) return 0;
    const target = objectBehind(value);
    return isArray(target) ? 0 : (apply(weakGet, highWater, [target]) ?? 0);
  };

  // ---- typed arrays: their own length, never a property a contract could redefine ------------------
  /**
   * A callback whose answers V8 makes numbers of (a typed array's `map`, a `sort` comparator): an object's
   * primitive is taken here (as V8 would, once) and a long string charged.
   */
  const numberAnswers = (args: unknown[]) => {
    const callback = args[0];
    if (typeof callback !== "function") return;
    args[0] = function (this: unknown, ...values: unknown[]) {
      return kit.numberPrimitive(apply(callback, this, values));
    };
  };
  const typedMethod = (name: string | symbol, cost: (length: number, args: unknown[]) => void) =>
    charged(TypedArrayProto, name, (receiver, args) => cost(typedLength(receiver), args));
  for (const name of ["slice", "map", "filter", "toReversed", "with"]) {
    typedMethod(name, (length, args) => {
      makesElements(length);
      if (name === "map" || name === "filter") callbacks(length, args);
      if (name === "map") numberAnswers(args);
    });
  }
  for (const name of ["reverse", "copyWithin", "fill", "indexOf", "lastIndexOf", "includes", "find", "findIndex", "findLast", "findLastIndex", "every", "some", "forEach", "reduce", "reduceRight"]) {
    typedMethod(name, (length, args) => {
      work(length);
      if (name !== "fill" && name !== "indexOf" && name !== "lastIndexOf" && name !== "includes") callbacks(length, args);
    });
  }
  for (const name of ["sort", "toSorted"]) typedMethod(name, (length, args) => sortCost(length, name === "toSorted", args));
  replace(TypedArrayProto, "set", (original) => ({
    method(this: unknown, source: unknown, offset?: unknown) {
      let from = source;
      if (isTypedArray(source)) work(typedLength(source));
      else {
        const { value: items, length } = arrayLike(toObject(source));
        work(length);
        // Read once into a list of chainsim's, whose values V8 makes numbers of (objects behind stand-ins).
        const values = list<unknown>();
        for (let i = 0; i < length; i++) values[i] = (items as Record<number, unknown>)[i];
        kit.numbersMade(values, length);
        from = values;
      }
      return apply(original, this, [from, offset]);
    },
  }).method);
  replace(TypedArrayProto, "join", (original) => ({
    join(this: unknown, separator?: unknown) {
      if (!isTypedArray(this)) return apply(original, this, [separator]); // V8's TypeError, before any work
      return join(this, typedLength(this), separator);
    },
  }).join);
  for (const name of ["keys", "values", "entries", iteratorSymbol]) {
    replace(TypedArrayProto, name, (original) => ({
      method(this: unknown) {
        return iterates(apply(original, this, []), this);
      },
    }).method);
  }

  // Every value a built-in iterator yields costs: a native consumer handed a contract "iterator" whose
  // `next` is a built-in one (bound, or called through `call`) walks it without any contract step.
  const PER_STEP = 64;
  let yielded = 0;
  kit.runStarts[kit.runStarts.length] = () => (yielded = 0);
  const iterators: object[] = [([] as any)[iteratorSymbol](), new Set().values(), new Map().values(), ("" as any)[iteratorSymbol](), /a/g[Symbol.matchAll]("")];
  for (let i = 0; i < iterators.length; i++) {
    // An array iterator reads its source's index: on an array-like or a long prototype chain, a lookup.
    const walksIndices = i === 0;
    replace(getPrototypeOf(iterators[i]!), "next", (original) => ({
      next(this: unknown) {
        if (++yielded % PER_STEP === 0) meter.charge(1);
        if (walksIndices) {
          const extra = kit.yieldUnits(this);
          if (extra > 0) work(extra);
        }
        return apply(original, this, []);
      },
    }).next);
  }

  // ---- Set, Map, WeakSet, WeakMap: built from an iterable of known size, charged per entry ------------
  const guardCollection = (name: string, bytesEach: number) => {
    const Native = global[name];
    const Guarded: Function = kit.named(name, (newTarget, _self, args) => {
      if (newTarget === undefined) throw new TypeError(`Constructor ${name} requires 'new'`);
      const iterable = iterated(args[0]);
      if (iterable !== undefined) {
        makesEntries(iterable[1], bytesEach);
        args[0] = iterable[0];
      }
      const made = construct(Native, args, newTarget === Guarded ? Native : newTarget);
      if (name === "Set" || name === "Map") apply(weakSetAdd, kit.collections, [made]);
      return made;
    });
    kit.standIn(name, Native, Guarded);
    // A long string key is compared in full with an equal key of another string object. V8 hashes a string
    // longer than 16,383 code units by its length alone, so such a key may be compared with every entry
    // (fifth review of 2026-11-26): it costs its length for each.
    const keyed = (receiver: unknown, args: unknown[]) => {
      const length = longText(args[0]);
      if (length === 0) return;
      const entries = length > kit.UNHASHED_TEXT && kit.isObject(receiver) ? (kit.sizeOf(receiver) ?? 0) : 0;
      work(length * (1 + entries));
    };
    for (const method of name === "Map" || name === "WeakMap" ? ["get", "has", "set", "delete"] : ["has", "add", "delete"]) charged(Native.prototype, method, keyed);
    if (name === "Set" || name === "Map") {
      const size = getOwnPropertyDescriptor(Native.prototype, "size")!.get!;
      charged(Native.prototype, "forEach", (receiver, args) => {
        const count = apply(size, receiver, []) as number;
        work(count);
        callbacks(count, args);
      });
    }
    for (const method of ["keys", "values", "entries", iteratorSymbol]) {
      replace(Native.prototype, method, (original) => ({
        method(this: unknown) {
          return iterates(apply(original, this, []), this);
        },
      }).method);
    }
  };
  guardCollection("Set", SET_ENTRY);
  guardCollection("Map", MAP_ENTRY);
  guardCollection("WeakSet", SET_ENTRY);
  guardCollection("WeakMap", MAP_ENTRY);

  // ---- binary data --------------------------------------------------------------------------------
  const guardConstructor = (name: string, bytes: (args: unknown[], perElement: number) => number, numbersFrom = 1) => {
    const Native = global[name];
    if (typeof Native !== "function") return;
    const perElement = (Native as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT ?? 1;
    const Guarded: Function = kit.named(name, (newTarget, _self, args) => {
      if (newTarget === undefined) throw new TypeError(`Constructor ${name} requires 'new'`);
      // An offset or a length (the arguments from `numbersFrom`) given as a long numeric string is read whole.
      kit.numbersMade(args, args.length, numbersFrom);
      const n = bytes(args, perElement);
      if (n > 0) {
        meter.alloc(n);
        work(n);
      }
      return construct(Native, args, newTarget === Guarded ? Native : newTarget);
    });
    kit.standIn(name, Native, Guarded);
  };
  /**
   * A byte length converted once, for the charge, and handed to V8 as that number: a `valueOf` must not
   * answer V8 another size. Beyond 2⁵³ - 1, V8's own RangeError (nothing is charged).
   */
  const byteCount = (args: unknown[]): number => {
    const n = integer(args[0]);
    args[0] = n;
    return n > MAX_SAFE ? -1 : n; // negative: V8's RangeError to come, nothing charged
  };
  const MAX_SAFE = 2 ** 53 - 1;
  /**
   * A resizable buffer (`maxByteLength`) reserves address space for its maximum (about 9 µs each, measured)
   * and commits only its length: a share of the reservation is charged as memory, so that a run cannot
   * reserve the machine's address space (32,000 of 4 GiB each exhaust it), and the reserving as work. Its
   * growth is charged when it grows (resize). The option is read once, here: V8 gets the number.
   */
  const RESERVATION_SHARE = 1024;
  const RESERVATION_BYTES = 4096;
  const MAX_RESERVATION = 2 ** 32;
  const bufferBytes = (args: unknown[]): number => {
    const length = byteCount(args);
    if (length < 0) return 0; // V8's RangeError comes before the options are read
    const options = args[1];
    if (!kit.isObject(options)) return length;
    const maxByteLength = (options as { maxByteLength?: unknown }).maxByteLength;
    if (maxByteLength === undefined) {
      args[1] = undefined;
      return length;
    }
    const max = integer(maxByteLength);
    args[1] = { maxByteLength: max };
    const reserved = max - length;
    // Beyond 4 GiB V8 throws its RangeError and reserves nothing.
    if (reserved <= 0 || max > MAX_RESERVATION) return length;
    meter.alloc((reserved - (reserved % RESERVATION_SHARE)) / RESERVATION_SHARE);
    return length + RESERVATION_BYTES;
  };
  guardConstructor("ArrayBuffer", bufferBytes, 2); // its length and options: converted by bufferBytes
  const isResizable = getOwnPropertyDescriptor(ArrayBuffer.prototype, "resizable")!.get!;
  charged(ArrayBuffer.prototype, "resize", (buffer, args) => {
    // V8 refuses a receiver that is not a resizable buffer before it converts the length.
    if (!isArrayBuffer(buffer) || !apply(isResizable, buffer, [])) return;
    const grows = byteCount(args) - (apply(byteLength, buffer, []) as number);
    if (grows > 0) {
      meter.alloc(grows);
      work(grows);
    }
  });
  charged(ArrayBuffer.prototype, "slice", (buffer) => {
    const bytes = isArrayBuffer(buffer) ? (apply(byteLength, buffer, []) as number) : 0;
    meter.alloc(bytes);
    work(bytes);
  });
  for (const name of ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array", "Float32Array", "Float64Array"]) {
    guardConstructor(name, (args, perElement) => {
      const first = args[0];
      if (first === null || typeof first !== "object") return integer(first) * perElement;
      if (isTypedArray(first)) return typedLength(first) * perElement;
      if (isArrayBuffer(first)) return 0; // a view: the buffer's bytes were charged when it was made
      // V8 lists the values first (an iterable's, or an array-like's), then converts each to a number:
      // listed here by the guarded Array.from, so that each long string's conversion is charged.
      const values = listOf(apply(guardedArrayFrom, undefined, [first]) as unknown[]);
      kit.numbersMade(values, values.length);
      args[0] = values;
      return values.length * perElement;
    });
  }

  // A DataView's offsets and values are made numbers: held like every guard, long strings charged (kit.replace).
  guardConstructor("DataView", () => 0);
  // So are a typed array's `at` and `subarray` arguments.
  for (const name of ["at", "subarray"]) charged(TypedArrayProto, name, () => {});
  if (typeof global.DataView === "function") {
    const DataViewProto = global.DataView.prototype;
    for (const type of ["Int8", "Uint8", "Int16", "Uint16", "Int32", "Uint32", "Float32", "Float64"]) {
      charged(DataViewProto, "get" + type, () => {});
      charged(DataViewProto, "set" + type, () => {});
    }
  }

  // ---- objects: listing keys, charged by how many there will be ---------------------------------------
  for (const name of ["keys", "values", "entries", "getOwnPropertyNames", "getOwnPropertySymbols", "getOwnPropertyDescriptors"]) {
    charged(global.Object, name, (_r, args) => {
      makesEntries(keyCount(args[0]), KEY_BYTES);
      if (name === "getOwnPropertyDescriptors" || name === "entries" || name === "values") kit.functionListing(args[0]);
    });
  }
  charged(global.Reflect, "ownKeys", (_r, args) => makesEntries(keyCount(args[0]), KEY_BYTES));
  // ---- natives that write properties: a length or an element past the end goes through propertyWrite ---
  const nativeDefine = Object.defineProperty;
  const nativeCreate = Object.create;
  const hasOwn = Object.prototype.hasOwnProperty;
  const ownKeys = Reflect.ownKeys;
  const DESCRIPTOR_FIELDS = ["enumerable", "configurable", "value", "writable", "get", "set"];
  const DESCRIPTOR_UNITS = 12;
  /**
   * A descriptor's fields, read once as ECMAScript's ToPropertyDescriptor reads them (a `get` or `set` that
   * is not callable is V8's TypeError as soon as it is read), into an object no prototype can add a field to.
   */
  const copyDescriptor = (attributes: object): Record<string, unknown> => {
    // Six fields looked up along the descriptor's prototype chain.
    work(DESCRIPTOR_UNITS * kit.chainDepth(attributes));
    // No prototype, so no field a contract could add; V8 names it in messages as an object literal (`[object Object]`).
    const out = setPrototypeOf({}, null) as Record<string, unknown>;
    for (let i = 0; i < DESCRIPTOR_FIELDS.length; i++) {
      const field = DESCRIPTOR_FIELDS[i]!;
      if (!hasProperty(attributes, field)) continue;
      const value = (attributes as Record<string, unknown>)[field];
      if ((field === "get" || field === "set") && value !== undefined && typeof value !== "function") {
        const alone = setPrototypeOf({}, null) as Record<string, unknown>;
        alone[field] = value;
        nativeDefine({}, "x", alone as PropertyDescriptor); // V8's "Getter must be a function: …"
      }
      out[field] = value;
    }
    return out;
  };
  /** The descriptor V8 gets for defining `key` on `target`: read once, an array's new length charged. */
  const defining = (target: object, key: string | symbol, attributes: unknown): unknown => {
    if (!kit.isObject(attributes)) return attributes; // V8's TypeError
    const descriptor = copyDescriptor(attributes);
    // V8 reads a constructor's `prototype` as it constructs: a getter could answer it another object than
    // any check saw (bound functions and arrows have no `prototype` of their own to protect it).
    if (key === "prototype" && typeof target === "function" && (descriptor as PropertyDescriptor).get !== undefined) {
      throw new TypeError("A getter as a function's prototype is not allowed in contracts");
    }
    if (key !== "length") {
      const value = propertyWrite(target, key, descriptor.value);
      if (value !== descriptor.value) descriptor.value = value; // a typed array's element: a number's stand-in
    }
    else if (apply(hasOwn, descriptor, ["value"]) && arrayBehind(target) !== undefined) descriptor.value = lengthWrite(target, descriptor.value);
    return descriptor;
  };
  for (const owner of [global.Object, global.Reflect]) {
    replace(owner, "defineProperty", (original) => ({
      defineProperty(target: unknown, key: unknown, attributes: unknown) {
        if (!kit.isObject(target)) return apply(original, undefined, [target, key, attributes]); // V8's TypeError
        const name = toPropertyKey(key);
        const descriptor = defining(target, name, attributes);
        // A frozen property redefined: compared in full (`descriptor` is chainsim's copy, or V8's TypeError to come).
        if (kit.isObject(descriptor)) kit.sameAsTarget(target, name, (descriptor as PropertyDescriptor).value);
        return apply(original, undefined, [target, name, descriptor]);
      },
    }).defineProperty);
  }
  /** ECMAScript's ObjectDefineProperties: every descriptor read first, in its order, then each defined. */
  const defineAll = (target: object, properties: unknown): object => {
    if (properties === null || properties === undefined) throw new TypeError("Cannot convert undefined or null to object");
    const props = toObject(properties) as Record<string | symbol, unknown>;
    makesEntries(keyCount(props), 2 * KEY_BYTES);
    const keys = ownKeys(props);
    const definitions = list<[string | symbol, unknown]>();
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const own = getOwnPropertyDescriptor(props, key);
      if (own === undefined || !own.enumerable) continue;
      const attributes = props[key];
      if (!kit.isObject(attributes)) nativeDefine({}, key, attributes as PropertyDescriptor); // V8's TypeError
      definitions[definitions.length] = [key, defining(target, key, attributes)];
    }
    for (let i = 0; i < definitions.length; i++) {
      const definition = definitions[i]!;
      const descriptor = definition[1] as PropertyDescriptor;
      kit.sameAsTarget(target, definition[0], descriptor.value);
      nativeDefine(target, definition[0], descriptor);
    }
    return target;
  };
  replace(global.Object, "defineProperties", (original) => ({
    defineProperties(target: unknown, properties: unknown) {
      if (!kit.isObject(target)) return apply(original, undefined, [target, properties]); // V8's TypeError
      return defineAll(target, properties);
    },
  }).defineProperties);
  /**
   * A prototype link costs a step, as `new` does: a chain a contract builds through built-ins called as
   * callbacks (`Array(n).fill(0).reduce(Object.create, {})`) is as long as the steps it paid, since V8 walks a
   * chain on each lookup that misses.
   */
  const LINK_UNITS = 4096;
  replace(global.Object, "create", () => ({
    create(proto: unknown, properties?: unknown) {
      if (proto !== null) work(LINK_UNITS);
      const made = nativeCreate(proto as object | null); // V8's TypeError for a bad prototype
      kit.linkUnder(proto, 0);
      return properties === undefined ? made : defineAll(made, properties);
    },
  }).create);
  const relinking = (target: unknown, proto: unknown) => {
    if (!kit.isObject(proto)) return;
    work(LINK_UNITS);
    kit.relink(target, proto);
  };
  for (const owner of [global.Object, global.Reflect]) charged(owner, "setPrototypeOf", (_r, args) => relinking(args[0], args[1]));
  // The __proto__ setter links too (a built-in callback could call it once per element).
  const protoAccessor = getOwnPropertyDescriptor(Object.prototype, "__proto__")!;
  const nativeProtoSet = protoAccessor.set!;
  const protoSet = {
    set __proto__(value: unknown) {
      relinking(this, value);
      apply(nativeProtoSet, this, [value]);
    },
  };
  const guardedProtoSet = getOwnPropertyDescriptor(protoSet, "__proto__")!.set!;
  nativeDefine(Object.prototype, "__proto__", { get: protoAccessor.get, set: guardedProtoSet, enumerable: false, configurable: true });
  for (const name of ["__defineGetter__", "__defineSetter__"]) {
    replace(global.Object.prototype, name, (original) => ({
      method(this: unknown, key: unknown, fn: unknown) {
        return apply(original, this, [kit.asPropertyKey(key, true), fn]);
      },
    }).method);
  }
  replace(global.Reflect, "set", (original) => ({
    set(target: unknown, key: unknown, value: unknown, ...receiver: unknown[]) {
      if (!kit.isObject(target)) return apply(original, undefined, [target, key, value]); // V8's TypeError
      const name = toPropertyKey(key);
      if (receiver.length === 0) return apply(original, undefined, [target, name, propertyWrite(target, name, value)]);
      const written = propertyWrite(receiver[0], name, value);
      // A number's stand-in only where V8 makes the number: a typed array written as itself (another target's setter would get it).
      return apply(original, undefined, [target, name, receiver[0] === target ? written : value, receiver[0]]);
    },
  }).set);
  /**
   * Object.assign as ECMAScript writes it, in JavaScript: each key is learnt as the copy goes (a getter can
   * add keys), and each write goes through propertyWrite. The key listing is charged before it is made; each
   * key copied costs ASSIGN_UNITS (about 0.4 µs here, and a margin).
   */
  const ASSIGN_UNITS = 256;
  const isEnumerable = Object.prototype.propertyIsEnumerable;
  replace(global.Object, "assign", () => ({
    assign(target: unknown, ...sources: unknown[]) {
      if (target === null || target === undefined) throw new TypeError("Cannot convert undefined or null to object");
      const to = toObject(target) as Record<string | symbol, unknown>;
      for (let i = 0; i < sources.length; i++) {
        const source = sources[i];
        if (source === null || source === undefined) continue;
        const from = toObject(source) as Record<string | symbol, unknown>;
        makesEntries(keyCount(from), KEY_BYTES);
        const keys = ownKeys(from);
        work(keys.length * ASSIGN_UNITS);
        for (let k = 0; k < keys.length; k++) {
          const key = keys[k]!;
          if (!apply(isEnumerable, from, [key])) continue; // [[GetOwnProperty]], as Object.assign asks it
          const value = from[key];
          to[key] = propertyWrite(to, key, value); // strict: V8's own TypeError when the write fails
        }
      }
      return to;
    },
  }).assign);
  for (const name of ["freeze", "seal", "preventExtensions"]) charged(global.Object, name, (_r, args) => makesEntries(keyCount(args[0]), 2 * KEY_BYTES));
  for (const name of ["isFrozen", "isSealed"]) charged(global.Object, name, (_r, args) => work(keyCount(args[0])));
  // Object.is compares two strings of equal length in full, as === does (bootstrap.ts comparisons).
  charged(global.Object, "is", (_r, args) => {
    if (typeof args[0] === "string" && typeof args[1] === "string" && args[0].length === args[1].length) work(longText(args[0]));
  });
  /**
   * Object.fromEntries as ECMAScript writes it, in JavaScript, so that each key defined goes through
   * propertyWrite (an index far past the new object's elements). A bad entry is refused by V8's own
   * fromEntries, given that entry alone (its message), after the iterator is closed.
   */
  replace(global.Object, "fromEntries", (original) => ({
    method(iterable: unknown) {
      if (iterable === null || iterable === undefined) return apply(original, undefined, [iterable]); // V8's TypeError
      const known = iterated(iterable);
      if (known !== undefined) makesEntries(known[1], 2 * KEY_BYTES);
      const source = (known === undefined ? iterable : known[0]) as Record<symbol, unknown>;
      const method = source[iteratorSymbol];
      if (typeof method !== "function") return apply(original, undefined, [source]); // V8's "is not iterable"
      const iterator = apply(method, source, []) as Record<string, unknown>;
      if (!kit.isObject(iterator)) throw new TypeError("Result of the Symbol.iterator method is not an object");
      const next = iterator.next;
      if (typeof next !== "function") throw new TypeError(`${kit.notCallable(next)} is not a function`);
      const made: Record<string | symbol, unknown> = {};
      for (;;) {
        const result = apply(next as Function, iterator, []) as { done?: unknown; value?: unknown };
        if (!kit.isObject(result)) throw new TypeError(`Iterator result ${toText(result)} is not an object`);
        if (result.done) return made;
        const entry = result.value;
        try {
          if (!kit.isObject(entry)) apply(original, undefined, [[entry]]); // V8's "Iterator value … is not an entry object"
          const key = toPropertyKey((entry as Record<number, unknown>)[0]);
          const value = (entry as Record<number, unknown>)[1];
          propertyWrite(made, key, undefined);
          createProperty(made, key as string, value);
        } catch (error) {
          const close = iterator.return;
          if (close !== undefined && close !== null) {
            try {
              apply(close as Function, iterator, []);
            } catch {
              // the entry's error wins, as in IteratorClose
            }
          }
          throw error;
        }
      }
    },
  }).method);
}
