// An installer evaluated inside each isolate from its source text (guards/kit.ts says how): the chains V8
// walks in the hash tables of Sets and Maps, charged before each lookup (docs/contracts.md §13, "Numbers as
// keys of Sets and Maps").
import type { GuardKit } from "./kit.js";

/**
 * V8 keeps a Set's or a Map's entries in a table of `capacity / 2` buckets, each a chain of the entries
 * (deleted ones included, until the table is rebuilt) whose hash falls in it. A string's or an object's hash
 * is seeded or random, but a number's is not: ComputeUnseededHash of an int32, ComputeLongHash of a double's
 * bits. So a contract can choose 16,384 integers of one bucket at every table size, and each `add`, `has`,
 * `get`, `set` or `delete` then walks them all (`new Set` of them, or `has` of a missing one, in a loop
 * reached the clock every time: twenty-third review of 2026-11-26). This keeps a model of each table as V8
 * grows, purges and shrinks it (OrderedHashTable's EnsureCapacityForAdding, Shrink and Clear), with the
 * numbers each bucket holds, and charges an operation on a number one unit per number in its bucket.
 */
export function installHashTableGuards(kit: GuardKit): void {
  const { global, work, replace } = kit;
  const apply = Reflect.apply;
  const getOwnPropertyDescriptor = Reflect.getOwnPropertyDescriptor;
  const WeakMapCtor = WeakMap;
  const weakGet = WeakMap.prototype.get;
  const weakSet = WeakMap.prototype.set;
  const Int32ArrayCtor = Int32Array;
  const Uint32ArrayCtor = Uint32Array;
  const Float64ArrayCtor = Float64Array;
  const setSize = getOwnPropertyDescriptor(Set.prototype, "size")!.get!;
  const mapSize = getOwnPropertyDescriptor(Map.prototype, "size")!.get!;
  const setValues = Set.prototype.values;
  const mapKeys = Map.prototype.keys;
  const setIteratorNext = Object.getPrototypeOf(new Set().values()).next as Function;
  const mapIteratorNext = Object.getPrototypeOf(new Map().keys()).next as Function;

  /** V8's ComputeUnseededHash of an int32 (its multiplication by 2057 spelled as shifts: no Math here). */
  const intHash = (key: number): number => {
    let x = key >>> 0;
    x = (~x + (x << 15)) >>> 0;
    x = (x ^ (x >>> 12)) >>> 0;
    x = (x + (x << 2)) >>> 0;
    x = (x ^ (x >>> 4)) >>> 0;
    x = (x + (x << 3) + (x << 11)) >>> 0;
    x = (x ^ (x >>> 16)) >>> 0;
    return x & 0x3fffffff;
  };
  // V8's ComputeLongHash of a double's 64 bits, in two 32-bit halves (no BigInt here).
  const bits = new Float64ArrayCtor(1);
  const halves = new Uint32ArrayCtor(bits.buffer);
  let hi = 0;
  let lo = 0;
  /** (hi, lo) += (h, l) << s, for s < 32. */
  const addShifted = (h: number, l: number, s: number) => {
    const sh = s === 0 ? h : ((h << s) | (l >>> (32 - s))) >>> 0;
    const sl = (l << s) >>> 0;
    const low = lo + sl;
    lo = low >>> 0;
    hi = (hi + sh + (low > 0xffffffff ? 1 : 0)) >>> 0;
  };
  /** (hi, lo) ^= (hi, lo) >> s, for 0 < s < 32. */
  const xorShiftedRight = (s: number) => {
    const rl = ((lo >>> s) | (hi << (32 - s))) >>> 0;
    lo = (lo ^ rl) >>> 0;
    hi = (hi ^ (hi >>> s)) >>> 0;
  };
  const longHash = (value: number): number => {
    bits[0] = value;
    // Little-endian: halves[0] is the low word.
    const h0 = halves[1]!;
    const l0 = halves[0]!;
    // hash = ~hash + (hash << 18)
    hi = ~h0 >>> 0;
    lo = ~l0 >>> 0;
    addShifted(h0, l0, 18);
    // hash ^= hash >> 31
    const r31l = ((lo >>> 31) | (hi << 1)) >>> 0;
    lo = (lo ^ r31l) >>> 0;
    hi = (hi ^ (hi >>> 31)) >>> 0;
    // hash *= 21: hash + (hash << 2) + (hash << 4)
    const m0h = hi;
    const m0l = lo;
    addShifted(m0h, m0l, 2);
    addShifted(m0h, m0l, 4);
    xorShiftedRight(11);
    // hash += hash << 6
    addShifted(hi, lo, 6);
    xorShiftedRight(22);
    return lo & 0x3fffffff;
  };
  /** The hash V8 gives a number as a key (Object::GetSimpleHash): -0 is 0, NaN one fixed value. */
  const numberHash = (key: number): number => {
    if (key !== key) return 0x3fffffff;
    if (key >= -2147483648 && key <= 2147483647 && (key | 0) === key) return intHash(key | 0);
    return longHash(key);
  };

  interface Table {
    /** V8's capacity (entries); buckets are half of it. */
    capacity: number;
    live: number;
    deleted: number;
    /** Numbers each bucket's chain holds, deleted ones included. */
    numbers: Int32Array;
  }
  const INITIAL_CAPACITY = 4;
  const REBUILD_UNITS = 512;
  const tables = new WeakMapCtor<object, Table>();
  /** The size of a Set or Map (its brand), or -1 for anything else. */
  const sizeOf = (receiver: unknown, isMap: boolean): number => {
    if (!kit.isObject(receiver)) return -1;
    try {
      return apply(isMap ? mapSize : setSize, receiver, []) as number;
    } catch {
      return -1;
    }
  };
  /** Rebuilds the model as V8 rebuilds the table: `capacity`, the live entries only. */
  const rebuild = (receiver: object, isMap: boolean, table: Table, capacity: number): void => {
    table.capacity = capacity < INITIAL_CAPACITY ? INITIAL_CAPACITY : capacity;
    table.deleted = 0;
    const mask = table.capacity / 2 - 1;
    table.numbers = new Int32ArrayCtor(mask + 1);
    const iterator = apply(isMap ? mapKeys : setValues, receiver, []);
    const next = isMap ? mapIteratorNext : setIteratorNext;
    // V8 copies every entry; walking them here costs about as much, and the model's own table and iterator
    // about a microsecond (a `clear` or a `delete` that shrinks, in a loop: twice a generic guarded call's time).
    work(REBUILD_UNITS + table.live);
    for (;;) {
      const step = apply(next, iterator, []) as { done: boolean; value: unknown };
      if (step.done) return;
      if (typeof step.value === "number") table.numbers[numberHash(step.value) & mask]!++;
    }
  };
  const tableOf = (receiver: object, isMap: boolean, size: number): Table => {
    let table = apply(weakGet, tables, [receiver]) as Table | undefined;
    if (table === undefined) {
      table = { capacity: INITIAL_CAPACITY, live: size, deleted: 0, numbers: new Int32ArrayCtor(INITIAL_CAPACITY / 2) };
      let capacity = INITIAL_CAPACITY;
      while (capacity < size) capacity *= 2;
      if (size > 0) rebuild(receiver, isMap, table, capacity);
      apply(weakSet, tables, [receiver, table]);
    }
    return table;
  };
  /** Charges the chain a lookup of `key` walks: the numbers in its bucket (others are spread at random). */
  const lookup = (table: Table, key: unknown): void => {
    if (typeof key === "number") work(table.numbers[numberHash(key) & (table.capacity / 2 - 1)]!);
  };

  /** Wraps `name` of a Set's or Map's prototype: its lookup charged first, the model kept after. */
  const guard = (isMap: boolean, name: string, change: "adds" | "deletes" | "reads" | "clears") => {
    const proto = (isMap ? global.Map : global.Set).prototype;
    replace(proto, name, (original) => ({
      method(this: unknown, ...args: unknown[]) {
        const before = sizeOf(this, isMap);
        if (before < 0) return apply(original, this, args); // V8's TypeError for a wrong receiver
        const receiver = this as object;
        const table = tableOf(receiver, isMap, before);
        if (change !== "clears") lookup(table, args[0]);
        const result = apply(original, receiver, args);
        const after = sizeOf(receiver, isMap);
        if (change === "clears") {
          table.live = 0;
          rebuild(receiver, isMap, table, INITIAL_CAPACITY);
        } else if (change === "adds" && after > before) {
          // EnsureCapacityForAdding, before the entry goes in: a full table is purged or doubled.
          if (table.live + table.deleted >= table.capacity) rebuildBeside(receiver, isMap, table, args[0]);
          table.live = after;
          if (typeof args[0] === "number") table.numbers[numberHash(args[0]) & (table.capacity / 2 - 1)]!++;
        } else if (change === "deletes" && after < before) {
          table.live = after;
          table.deleted++;
          // Shrink: fewer live entries than a quarter of the capacity rebuilds it at half.
          if (after < table.capacity / 4) rebuild(receiver, isMap, table, table.capacity / 2);
        }
        return result;
      },
    }).method);
  };
  /**
   * The rebuild V8 made before adding `added` (already in the collection now): it purges deleted entries
   * at the same capacity when they fill half of it, else doubles; the new key is counted by the caller.
   */
  const rebuildBeside = (receiver: object, isMap: boolean, table: Table, added: unknown) => {
    const capacity = table.deleted >= table.capacity / 2 ? table.capacity : table.capacity * 2;
    rebuild(receiver, isMap, table, capacity);
    if (typeof added === "number") table.numbers[numberHash(added) & (table.capacity / 2 - 1)]!--;
  };
  for (const isMap of [false, true]) {
    guard(isMap, isMap ? "set" : "add", "adds");
    guard(isMap, "delete", "deletes");
    guard(isMap, "has", "reads");
    if (isMap) guard(isMap, "get", "reads");
    guard(isMap, "clear", "clears");
  }
  /**
   * An iterator, or forEach, walks the deleted entries still in the table as well as the live ones (the
   * live are charged by the collections' guards): a table keeps up to three deleted entries a live one
   * before it shrinks, and a fresh iterator's first `next` skipping 24,575 of them in a loop reached the
   * clock (review of 2026-11-27). HOLE_UNITS a deleted entry, when the iterator is made.
   */
  const HOLE_UNITS = 2;
  for (const isMap of [false, true]) {
    const proto = (isMap ? global.Map : global.Set).prototype;
    for (const name of ["keys", "values", "entries", Symbol.iterator, "forEach"]) {
      replace(proto, name, (original) => ({
        method(this: unknown, ...args: unknown[]) {
          const table = kit.isObject(this) ? (apply(weakGet, tables, [this]) as Table | undefined) : undefined;
          if (table !== undefined) work(HOLE_UNITS * table.deleted);
          return apply(original, this, args);
        },
      }).method);
    }
  }
}
