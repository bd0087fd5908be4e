// The guards of guards/*.ts: work V8 would do natively is charged before it is done, so that a heavy run
// ends on the deterministic models (never on the clock or V8's own limits), and what the guards replace
// keeps the meaning of plain JavaScript (docs/contracts.md §13).
import { expect } from "chai";
import vm from "node:vm";
import { BuiltinError, ContractFailure, DEFAULT_CONTRACT_LIMITS, GuardTripped, JsRuntime, type ExecutionRequest } from "../src/index.js";

const ENV = {
  thisAddress: "did:bid:contract",
  block: { timestamp: 1, number: 2 },
  tx: { initiator: "did:bid:user", sender: "did:bid:user", gasPrice: "100", hash: "00", feeLimit: "1000" },
  msg: { initiator: "did:bid:user", sender: "did:bid:user", nonce: 1, operationIndex: 0 },
};

/** Ways to give an array `a` a length of 500,000 with one call or one write (V8 reserves 4 MB at once). */
const lengthRoutes: [string, string][] = [
  ["new Array(n)", `const a = new Array(5e5);`],
  ["Array(n)", `const a = Array(5e5);`],
  ["the constructor of an array", `const a = new ([].constructor)(5e5);`],
  ["Reflect.construct of the prototype's constructor", `const a = Reflect.construct(Object.getPrototypeOf([]).constructor, [5e5]);`],
  ["a subclass", `class X extends Array {} const a = new X(5e5);`],
  ["Array.from with a constructor answering a kept array", `const a = []; Array.from.call(function () { return a; }, { length: 1e6 });`],
  ["a length assignment", `const a = []; a.length = 1e6;`],
  ["a computed length assignment", `const a = []; const key = "len" + "gth"; a[key] = 1e6;`],
  ["a key object converting to length", `const a = []; a[{ toString: () => "length" }] = 1e6;`],
  ["a compound assignment", `const a = []; a.length += 1e6;`],
  ["a logical assignment", `const a = []; a.length ||= 1e6;`],
  ["an object converting to the length", `const a = []; a.length = { valueOf: () => 1e6 };`],
  ["destructuring", `const a = []; [a.length] = [1e6];`],
  ["an object pattern's default", `const a = []; ({ n: a["length"] = 1e6 } = {});`],
  ["a rest element", `const a = []; [...a.length] = [1e6];`],
  ["a for-of head", `const a = []; for (a.length of [1e6]);`],
  ["a for-in head", `const a = []; for (a.length in { 1000000: 1 });`],
  ["a sloppy function", `const a = []; (function () { a.length = 1e6; })();`],
  ["Reflect.set", `const a = []; Reflect.set(a, "length", 1e6);`],
  ["Reflect.set with the array as receiver", `const a = []; Reflect.set({ length: 0 }, "length", 1e6, a);`],
  ["Object.defineProperty", `const a = []; Object.defineProperty(a, "length", { value: 1e6 });`],
  ["Reflect.defineProperty", `const a = []; Reflect.defineProperty(a, "length", { value: 1e6 });`],
  ["Object.defineProperties", `const a = []; Object.defineProperties(a, { length: { value: 1e6 } });`],
  ["Object.assign", `const a = []; Object.assign(a, { length: 1e6 });`],
  ["a proxy's default set", `const a = []; new Proxy(a, {}).length = 1e6;`],
  ["a proxy of a proxy, through Object.assign", `const a = []; Object.assign(new Proxy(new Proxy(a, {}), {}), { length: 1e6 });`],
  ["a method of a subclass writing its own length", `class X extends Array { grow() { this.length = 1e6; } } const a = new X(); a.grow();`],
];

/** Where a built-in makes a number of an argument (`v` answers a long numeric string, `t` is a Float64Array, `d` a DataView, `r` a global RegExp). */
const numberRoutes: [string, string][] = [
  ["to string and number methods", `"abc".slice(v); "abc".charAt(v); "abc".startsWith("a", v); (1).toFixed(v); (1).toString(v); "a".repeat(v);`],
  ["to array and typed array methods", `[1].at(v); [1].slice(v); [1].includes(1, v); [1, 2].copyWithin(v); t.subarray(v); t.fill(v); t.with(0, v);`],
  ["written to typed arrays", `t[0] = v; t[-1] = v; Reflect.set(t, 1, v); Object.defineProperty(t, 2, { value: v }); Object.assign(t, { 3: v });`],
  ["in lists made numbers", `new Float64Array([v]); Float64Array.of(v); Float64Array.from([v]); t.set([v]); String.fromCharCode(v);`],
  ["to DataView, ArrayBuffer and typed array constructors", `d.getInt8(v); d.setInt8(0, v); new DataView(d.buffer, v); new Int8Array(d.buffer, v); d.buffer.slice(v);`],
  ["as JSON's indentation and a regular expression's lastIndex", `JSON.stringify([1], null, Object.assign(new Number(1), { valueOf: () => s })); r.lastIndex = v; r.test("a");`],
  // The fourteenth review (2026-11-26): split's limit, and lengths read by at, pop and an iterator's next.
  ["as split's limit and an array-like's length", `"abc".split(/b/, v); Array.prototype.at.call({ length: s }, 0); Array.prototype.pop.call({ get length() { return s; } }); Array.prototype.values.call({ length: v }).next();`],
];

/** Routes by which a contract hands V8 a property key: `key(i)` is a new string of 16,400 code units, `o` an object. */
const longKeyRoutes: [string, string][] = [
  ["written", "o[key(i)] = i;"],
  ["read", "o[key(i)];"],
  ["tested with in", "key(i) in o;"],
  ["given as an object's text", "o[{ toString: () => key(i) }];"],
  ["read by Reflect.get", "Reflect.get(o, key(i));"],
  ["tested by hasOwnProperty", "o.hasOwnProperty(key(i));"],
  ["of an object literal", "({ [key(i)]: 1 });"],
  ["destructured", "const { [key(i)]: v } = o;"],
  ["of a class's method", "(class { [key(i)]() {} });"],
  ["registered by Symbol.for", "Symbol.for(key(i));"],
];

/** V8's unseeded hash of an int32 key of a Set or Map (ComputeUnseededHash), and of a double's bits (ComputeLongHash). */
function intHash(key: number): number {
  let x = key >>> 0;
  x = (~x + (x << 15)) >>> 0;
  x = (x ^ (x >>> 12)) >>> 0;
  x = (x + (x << 2)) >>> 0;
  x = (x ^ (x >>> 4)) >>> 0;
  x = Math.imul(x, 2057) >>> 0;
  x = (x ^ (x >>> 16)) >>> 0;
  return x & 0x3fffffff;
}
const doubleBits = new Float64Array(1);
const doubleWords = new Uint32Array(doubleBits.buffer);
/** ComputeLongHash on the two 32-bit halves of the bits (BigInt made the search for colliding keys take minutes). */
function doubleHash(value: number): number {
  doubleBits[0] = value;
  let lo = doubleWords[0]!;
  let hi = doubleWords[1]!;
  // h = ~w + (w << 18)
  const sum = (~lo >>> 0) + ((lo << 18) >>> 0);
  hi = ((~hi >>> 0) + (((hi << 18) | (lo >>> 14)) >>> 0) + (sum > 0xffffffff ? 1 : 0)) >>> 0;
  lo = sum >>> 0;
  // h ^= h >> 31
  lo = (lo ^ ((lo >>> 31) | (hi << 1))) >>> 0;
  hi = (hi ^ (hi >>> 31)) >>> 0;
  // h *= 21 (lo * 21 stays below 2^53: exact)
  const product = lo * 21;
  hi = (Math.imul(hi, 21) + Math.floor(product / 2 ** 32)) >>> 0;
  lo = product >>> 0;
  // h ^= h >> 11
  lo = (lo ^ ((lo >>> 11) | (hi << 21))) >>> 0;
  hi = (hi ^ (hi >>> 11)) >>> 0;
  // h += h << 6
  const added = lo + ((lo << 6) >>> 0);
  hi = (hi + (((hi << 6) | (lo >>> 26)) >>> 0) + (added > 0xffffffff ? 1 : 0)) >>> 0;
  lo = added >>> 0;
  // h ^= h >> 22, of which only the low 30 bits count
  return ((lo ^ ((lo >>> 22) | (hi << 10))) >>> 0) & 0x3fffffff;
}
/** `count` numbers (from `make(i)`) whose hashes agree in their low 14 bits: one bucket of every table up to 16,384. */
function colliding(count: number, make: (i: number) => number, hash: (key: number) => number): number[] {
  const keys: number[] = [];
  for (let i = 1; keys.length < count; i++) if ((hash(make(i)) & 0x3fff) === 0) keys.push(make(i));
  return keys;
}
const COLLIDING_INTS = colliding(16385, (i) => i, intHash);
const COLLIDING_DOUBLES = colliding(16385, (i) => i + 0.25, doubleHash);

describe("guards: work charged before V8 does it, meaning kept", function () {
  this.timeout(60_000);
  const runtime = new JsRuntime(DEFAULT_CONTRACT_LIMITS);
  after(() => runtime.dispose());

  /** Runs `body` as a query; answers its value, or the failure. */
  async function query(body: string, topLevel = "", clockMs = 10 * DEFAULT_CONTRACT_LIMITS.timeMs): Promise<{ value?: unknown; failure?: ContractFailure; steps: number }> {
    const request: ExecutionRequest = {
      code: `${topLevel} function init() {} function main() {} function query(input) { ${body} }`,
      entry: "query",
      input: "",
      env: ENV,
      language: "javascript",
      readOnly: true,
      depth: 0,
      host: { call: async () => { throw new BuiltinError("no host here"); } },
      meter: { used: 0, limit: DEFAULT_CONTRACT_LIMITS.steps, exhausted: false },
      deadline: performance.now() + clockMs,
      log: () => {},
    };
    try {
      const run = await runtime.execute(request);
      return { value: run.value, steps: request.meter.used };
    } catch (error) {
      if (!(error instanceof ContractFailure)) throw error;
      return { failure: error, steps: request.meter.used };
    }
  }

  describe("heavy constructs end on a model (155, recorded), never on a guard", () => {
    const heavy: [string, string, string][] = [
      ["keys of a 20 MB typed array", `return String(Object.keys(new Uint8Array(20e6)).length)`, "Memory exceeding limit"],
      ["Reflect.ownKeys of a typed array", `return String(Reflect.ownKeys(new Uint8Array(20e6)).length)`, "Memory exceeding limit"],
      ["keys of a String object", `return String(Object.keys(new String("x".repeat(4e6))).length)`, "Memory exceeding limit"],
      ["keys through a proxy", `return String(Object.keys(new Proxy(new Uint8Array(20e6), {})).length)`, "Memory exceeding limit"],
      ["for-in over a typed array", `let n = 0; for (const k in new Uint8Array(20e6)) n++; return String(n)`, "Memory exceeding limit"],
      ["object rest of a typed array", `const { a, ...rest } = new Uint8Array(20e6); return String(Object.keys(rest).length)`, "Memory exceeding limit"],
      ["object spread of a typed array", `return String(Object.keys({ ...new Uint8Array(20e6) }).length)`, "Memory exceeding limit"],
      ["JSON.stringify of a typed array", `return String(JSON.stringify(new Uint8Array(20e6)).length)`, "Memory exceeding limit"],
      ["Object.assign from a typed array", `return String(Object.keys(Object.assign({}, new Uint8Array(20e6))).length)`, "Memory exceeding limit"],
      ["new Set of a typed array", `return String(new Set(new Uint8Array(20e6)).size)`, "Memory exceeding limit"],
      ["Array.from of an iterator", `const t = new Uint8Array(20e6); return String(Array.from(t.values()).length)`, "Memory exceeding limit"],
      ["a Set copied through an iterable that hands out its iterator", `const s = new Set(); for (let i = 0; i < 5000; i++) s.add(i); let n = 0; for (let i = 0; i < 2000; i++) n += new Set({ [Symbol.iterator]: () => s.values() }).size; return String(n)`, "Step exceeding limit"],
      ["array rest of a big Set", `const s = new Set(); for (let i = 0; i < 5000; i++) s.add(i); let n = 0; for (let i = 0; i < 2000; i++) { const [a, ...r] = s; n += r.length; } return String(n)`, "Step exceeding limit"],
      ["a Set built from an iterator whose next is a bound built-in one", `const s = new Set(); for (let i = 0; i < 5000; i++) s.add(i); let n = 0; for (let i = 0; i < 2000; i++) { const it = s.values(); n += new Set({ [Symbol.iterator]: () => ({ next: it.next.bind(it) }) }).size; } return String(n)`, "Step exceeding limit"],
      ["typed array join", `return String(new Float64Array(20e6 / 8).fill(1.5).join("").length)`, "Step exceeding limit"],
      ["typed array sort, repeated", `const t = new Float64Array(2e6); for (let i = 0; i < 100; i++) t.sort(); return "sorted"`, "Step exceeding limit"],
      ["concat of a spreadable with a huge length", `const o = { length: 9007199254740991, [Symbol.isConcatSpreadable]: true }; return String([].concat(o).length)`, "Step exceeding limit"], // the walk is charged first
      ["shift of an array-like with a huge length", `const o = { length: 9007199254740991 }; o[9007199254740990] = 1; Array.prototype.shift.call(o); return "done"`, "Step exceeding limit"],
      ["replacements whose total passes the string cap", `const big = "x".repeat(1e5); return String("a".repeat(100).replaceAll("a", () => big).length)`, "Memory exceeding limit"],
      ["replaceAll expanding $& at 4 million matches", `return String("a".repeat(4e6).replaceAll("a", "$&$&").length)`, "Step exceeding limit"],
      ["replace expanding $\` per match", `return String("a".repeat(100000).replace(/a/g, "$\`").length)`, "Step exceeding limit"],
      ["a replacer returning long strings", `const long = "x".repeat(1e6); return String("a".repeat(1000).replace(/a/g, () => long).length)`, "Step exceeding limit"],
      ["normalize to NFKD", `return String("\\ufdfa".repeat(1e6).normalize("NFKD").length)`, "Memory exceeding limit"],
      ["encodeURIComponent", `return String(encodeURIComponent("\\u4e00".repeat(2e6)).length)`, "Memory exceeding limit"],
      ["escape", `return String(escape("\\u4e00".repeat(2e6)).length)`, "Memory exceeding limit"],
      ["an HTML method with a long attribute", `return String("x".anchor('"'.repeat(1e6)).length)`, "Memory exceeding limit"],
      ["String.raw with a huge raw length", `return String(String.raw({ raw: { length: 1e9 } }, "xx").length)`, "Step exceeding limit"],
      ["a resizable buffer grown", `const b = new ArrayBuffer(16, { maxByteLength: 1e9 }); b.resize(5e8); return String(b.byteLength)`, "Memory exceeding limit"],
      ["ArrayBuffer slices", `const b = new ArrayBuffer(20e6); const kept = []; for (let i = 0; i < 10; i++) kept.push(b.slice(0)); return "sliced"`, "Memory exceeding limit"],
      ["freezing a big array", `return String(Object.isFrozen(Object.freeze(new Array(3e6).fill(0))))`, "Step exceeding limit"],
      // Found by the adversarial review of 2026-11-25: natives calling natives, charged by what they add up to.
      // Bounded loops: without the charge each of these succeeds within the step limit.
      ["join recursing through bound joins (exponential)", `let a = []; for (let k = 0; k < 30; k++) { const b = [a, a]; b.join = [].join.bind(b, ""); a = b; } return String(a.join("").length)`, "Step exceeding limit"],
      ["a native callback per element (forEach(call, toUpperCase))", `const call = (() => 0).call; const a = Array(4096).fill("\u0100".repeat(4095)); for (let i = 0; i < 20; i++) a.forEach(call, String.prototype.toUpperCase); return "walked"`, "Step exceeding limit"],
      ["copies made by a native callback are memory", `const call = (() => 0).call; const a = Array(4096).fill("\u0100".repeat(1023)); const keep = []; for (let i = 0; i < 40; i++) keep.push(a.map(call, String.prototype.toUpperCase)); return String(keep.length)`, "Step exceeding limit"],
      ["JSON.stringify's indentation", `let a = Array(2000).fill(0); for (let i = 0; i < 1900; i++) a = [a]; return String(JSON.stringify(a, null, "\u0100".repeat(10)).length)`, "Memory exceeding limit"],
      ["bound maps nested through reduce", `const bind = (() => 0).bind; const top = Array(20000).fill(0).reduce(bind.bind([].map, [0]), function base() { return 7; }); return String(top().length)`, "Stack exceeding limit"],
      ["an ownKeys trap returning 100,000 keys", `const keys = Object.keys(new Uint8Array(100000)); const p = new Proxy({}, { ownKeys: () => keys }); let n = 0; for (let i = 0; i < 10; i++) n += Object.keys(p).length; return String(n)`, "Step exceeding limit"],
      ["prototype chains built by a native callback", `const o = Array(400000).fill(undefined).reduce(Object.create, {}); return "built"`, "Step exceeding limit"],
      ["comparing long strings", `const a = "x".repeat(1 << 20); const b = a.slice(0, -1) + "x"; const c = a.slice(0, -1) + "y"; let n = 0; for (let i = 0; i < 200; i++) { if (a === b) n++; if (a < c) n++; if (a >= c) n++; if (a != b) n++; } return String(n)`, "Step exceeding limit"],
      ["comparing an object that converts to a long string", `const a = "x".repeat(1 << 20); const o = { valueOf: () => a.slice(0, -1) + "x" }; let n = 0; for (let i = 0; i < 200; i++) { if (o == a) n++; if (o < a) n++; } return String(n)`, "Step exceeding limit"],
      ["a switch on a long string", `const a = "x".repeat(1 << 20); const b = a.slice(0, -1) + "y"; let n = 0; for (let i = 0; i < 200; i++) switch (a) { case b: n++; break; case "c": n--; break; default: n += 2; } return String(n)`, "Step exceeding limit"],
      ["straight-line code", `const f = function (x) { ${"x = (x * 3) ^ 5;".repeat(2000)} return x; }; let x = 1; for (let i = 0; i < 100; i++) x = f(x); return String(x)`, "Step exceeding limit"],
      // Found by the adversarial review of 2026-11-25 (H4): V8 reserves a length's slots at once (8 bytes
      // each), so every way to make an array long with one call or one write is charged by the length.
      // Built-ins recursing natively through a contract's getters and conversions (no contract frame in between).
      ["a bound Reflect.get as its own getter", `const o = {}; Object.defineProperty(o, "x", { get: Reflect.get.bind(null, o, "x") }); return String(o.x)`, "Stack exceeding limit"],
      ["a bound String as its object's toString", `const o = {}; o.toString = String.bind(null, o); return String(o)`, "Stack exceeding limit"],
      ["Object.prototype.toString as its own @@toStringTag getter", `const o = {}; Object.defineProperty(o, Symbol.toStringTag, { get: Object.prototype.toString }); return Object.prototype.toString.call(o)`, "Stack exceeding limit"],
      ["the same through __defineGetter__", `const o = {}; o.__defineGetter__(Symbol.toStringTag, Object.prototype.toString); return Object.prototype.toString.call(o)`, "Stack exceeding limit"],
      ["the same through Object.create", `const o = Object.create(null, { [Symbol.toStringTag]: { get: Object.prototype.toString } }); return Object.prototype.toString.call(o)`, "Stack exceeding limit"],
      ["a guarded method as the getter of the length it reads", `const o = {}; Object.defineProperty(o, "length", { get: Array.prototype.map }); return String(o.length)`, "Stack exceeding limit"],
      ["a proxy whose handler's trap reaches the proxy again", `let p; const h = new Proxy({}, { get: (t, k) => (k === "get" ? Reflect.get.bind(null, p, "x") : undefined) }); p = new Proxy({}, h); return String(p.x)`, "Stack exceeding limit"],
      // Arrays copied element by element on V8's generic paths (about 25 ns each): the steps end them early.
      ["slice and splice of 100,000 elements, repeated", `const a = Array(100000).fill(7); for (;;) { a.slice(1); a.slice().splice(10, 50000); }`, "Step exceeding limit"],
      ["concat of 100,000 elements, repeated", `const a = Array(100000).fill(7); for (;;) a.concat(a);`, "Step exceeding limit"],
      ["flat of 100,000 elements, repeated", `const a = [Array(100000).fill(7)]; for (;;) a.flat();`, "Step exceeding limit"],
      ["toSpliced of 100,000 elements, repeated", `const a = Array(100000).fill(7); for (;;) a.toSpliced(1, 1);`, "Step exceeding limit"],
      // Found by the adversarial review of the length fixes (2026-11-25): without their charge, each of these
      // reaches V8's heap or the clock, or (bounded) succeeds within the step limit.
      ["argument lists of apply kept by a rest parameter", `const big = new Array(30000).fill(0); function f(...r) { return r; } const keep = []; for (let i = 0; i < 400; i++) keep.push(f.apply(null, big)); return "kept"`, "Memory exceeding limit"],
      ["Array.apply of a long list, kept", `const big = new Array(30000).fill(0); const keep = []; for (let i = 0; i < 400; i++) keep.push(Array.apply(null, big)); return "kept"`, "Memory exceeding limit"],
      ["arrays written far past their end, kept", `const keep = []; for (let i = 0; i < 6000; i++) { const a = []; a[1023] = 0; a[2574] = 0; keep.push(a); } return "kept"`, "Step exceeding limit"],
      ["objects written far past their elements, kept", `const keep = []; for (let i = 0; i < 6000; i++) { const o = {}; o[1023] = 0; o["2574"] = 0; o[4900] = 0; keep.push(o); } return "kept"`, "Step exceeding limit"],
      ["the same through a proxy", `const keep = []; for (let i = 0; i < 6000; i++) { const t = {}; const p = new Proxy(t, {}); p[1023] = 0; p[2574] = 0; p[4900] = 0; keep.push(t); } return "kept"`, "Step exceeding limit"],
      ["the same through Reflect.set and defineProperty", `const keep = []; const d = { value: 0, writable: true, enumerable: true, configurable: true }; for (let i = 0; i < 6000; i++) { const a = {}; Reflect.set(a, 1023, 0); Object.defineProperty(a, 2574, d); Reflect.defineProperty(a, 4900, d); keep.push(a); } return "kept"`, "Step exceeding limit"],
      ["the same through Object.assign", `const keep = []; for (let i = 0; i < 6000; i++) keep.push(Object.assign({}, { 1023: 0, 2574: 0, 4900: 0 })); return "kept"`, "Step exceeding limit"],
      ["the same through push on an array-like", `const push = [].push; const keep = []; for (let i = 0; i < 6000; i++) { const o = { length: 1023 }; push.call(o, 0); o.length = 2574; push.call(o, 0); o.length = 4900; push.call(o, 0); keep.push(o); } return "kept"`, "Step exceeding limit"],
      ["Error.prototype.toString doubling a long name", `let s = "x".repeat(1 << 21); const e = new Error(); for (let i = 0; i < 7; i++) { e.name = s; e.message = s; s = e.toString(); } return String(s.length)`, "Memory exceeding limit"],
      ["an error's stack joining a long name and message", `const s = "x".repeat(1 << 21); const e = new Error(); e.name = s; e.message = s + "y"; return String(e.stack.length)`, "Memory exceeding limit"],
      ["a walk of an array-like over a deep prototype chain", `const p = Array(30).fill(0).reduce(Object.create, { 0: 1 }); const o = Object.create(p); o.length = 2e6; Array.prototype.includes.call(o, 7); return "walked"`, "Step exceeding limit"],
      ["a Set of a holey array over a deep prototype chain", `const b = Object.create(Array.prototype); b[0] = 1; const p = Array(28).fill(0).reduce(Object.create, b); const a = new Array(1e5); Object.setPrototypeOf(a, p); for (let i = 0; i < 30; i++) new Set(a); return "built"`, "Step exceeding limit"],
      ["walks of an array-like whose length is a getter", `const o = { get length() { return 4096; } }; const includes = Array.prototype.includes; for (let i = 0; i < 3000; i++) includes.call(o, 1); return "walked"`, "Step exceeding limit"],
      ["Object.assign of a long string onto arrays", `const s = "x".repeat(4e5); for (let i = 0; i < 4; i++) Object.assign([], s); return "assigned"`, "Step exceeding limit"],
      // Found by the second review of 2026-11-26: each reached V8's heap or the clock before a model.
      ["for-in over a 30-deep prototype chain", `const o = Array(30).fill(0).reduce(Object.create, {}); let n = 0; for (;;) { for (const k in o) n++; }`, "Step exceeding limit"],
      ["walks after Array.prototype is given 100,000 elements", `Array.prototype.length = 100000; Array.prototype.fill(0); const a = new Array(256).fill(1); for (;;) a.includes(7);`, "Step exceeding limit"],
      ["a built-in called on a 30-deep chain as a callback", `const o = Array(30).fill(0).reduce(Object.create, {}); const inc = Array.prototype.includes; const d = new Array(1e5).fill(0); for (;;) d.forEach(inc, o);`, "Step exceeding limit"],
      ["object spread of a sparse object, kept", `const o = {}; o[1023] = 0; o[2574] = 0; const keep = []; for (;;) keep.push({ ...o });`, "Step exceeding limit"],
      ["Object.fromEntries of iterators as a callback", `const it = [].values(); const d = new Array(100000).fill(it); for (;;) d.forEach(Object.fromEntries);`, "Step exceeding limit"],
      ["joins of 100,000 one-character strings, kept", `const a = new Array(100000).fill("a"); const keep = []; for (;;) keep.push(a.join(""));`, "Step exceeding limit"],
      ["String.raw of 100,000 segments, kept", `const a = new Array(100000).fill("a"); const keep = []; for (;;) keep.push(String.raw({ raw: a }));`, "Step exceeding limit"],
      ["proxies made by Proxy.revocable as a callback, kept", `const t = {}; const d = new Array(30000).fill({}); const r = Proxy.revocable.bind(null, t); const keep = []; for (;;) keep.push(d.map(r));`, "Memory exceeding limit"],
      ["errors made by Error as a callback, kept", `const d = new Array(30000).fill(0); const keep = []; for (;;) keep.push(d.map(Error));`, "Step exceeding limit"],
      ["functions bound by bind as a callback, kept", `function f() {} const d = new Array(30000).fill(0); const keep = []; for (;;) keep.push(d.map(f.bind, f));`, "Memory exceeding limit"],
      ["objects from Object.fromEntries with far indices, kept", `const e = [[1023, 0], [2574, 0]]; const keep = []; for (;;) keep.push(Object.fromEntries(e));`, "Step exceeding limit"],
      ["object literals with far computed indices, kept", `const keep = []; const a = 1023, b = 2574; for (;;) keep.push({ [a]: 0, [b]: 0 });`, "Step exceeding limit"],
      ["a 30,000-deep prototype chain built by Object.create as a callback", `const deep = Array(30000).fill(0).reduce(Object.create, {}); return "built"`, "Prototype chain exceeding limit"],
      ["descriptors read along a 30-deep chain", `function F() {} let deep = {}; for (let i = 0; i < 30; i++) { F.prototype = deep; deep = new F(); } const o = {}; for (let i = 0; i < 20000; i++) Object.defineProperty(o, "x", deep); return "defined"`, "Step exceeding limit"],
      ["instances of a class with far computed index fields, kept", `const a = 1023, b = 2574; class C { [a] = 0; [b] = 0; } const keep = []; for (;;) keep.push(new C());`, "Step exceeding limit"],
      // The third review (2026-11-26): text V8 makes from a contract's values, links through the __proto__ setter.
      ["V8 messages quoting a 4 MB key, kept", `const k = "x".repeat(4000000); const keep = []; for (let i = 0; i < 40; i++) { try { undefined[k]; } catch (e) { keep.push(e.message); } } return String(keep.length)`, "Memory exceeding limit"],
      ["a long symbol's text as a fresh key each time", `const k = "\u0100".repeat(4000000); const o = {}; const s = Symbol(k); let n = 0; for (;;) { if (o[s.toString()] === undefined) n++; }`, "Memory exceeding limit"],
      ["a 14,000-deep chain linked by the __proto__ setter as sort's comparator", `const s = Object.getOwnPropertyDescriptor(Object.prototype, "__proto__").set; const objs = new Array(14000).fill(0).map(Object); objs.sort(s.call.bind(s)); return "linked"`, "Prototype chain exceeding limit"],
      // The fourth review (2026-11-26): class fields defined at each construction or definition, unpaid.
      ["instances of a class with 2,000 fields", `class C { ${Array.from({ length: 2000 }, (_, i) => `k${i} = 0;`).join(" ")} } for (;;) new C();`, "Step exceeding limit"],
      ["instances whose one field is an object of 3,000 properties, kept", `class C { a = { ${Array.from({ length: 3000 }, (_, i) => `p${i}: 0`).join(", ")} }; } const keep = []; for (;;) keep.push(new C());`, "Step exceeding limit"],
      ["classes of 2,000 static fields, defined in a loop", `for (;;) { class C { ${Array.from({ length: 2000 }, (_, i) => `static k${i};`).join(" ")} } }`, "Step exceeding limit"],
      ["String.raw of objects converting through RegExp toString", `const raw = new Array(20000).fill(/x/); for (;;) String.raw({ raw });`, "Step exceeding limit"],
      ["a replacement template of 900 characters", `const s = "a".repeat(64); const t = "x".repeat(900) + "$&"; for (;;) s.replace(/a/g, t);`, "Step exceeding limit"],
      // The fifth review (2026-11-26): texts chainsim's own toString methods build, digits in another radix.
      ["a function's 4 Mi-character name as text", `const f = function () {}; Object.defineProperty(f, "name", { value: "x".repeat(4194304) }); return String(f.toString().length)`, "Memory exceeding limit"],
      ["RegExp toString of a 4 M-character source, kept", `const s = "x".repeat(4e6); const keep = []; for (let i = 0; i < 10; i++) keep.push(RegExp.prototype.toString.call({ source: s, flags: "" })); return String(keep.length)`, "Memory exceeding limit"],
      ["5e-324 in base 2 as a callback", `const f = parseFloat.call.bind(Number.prototype.toString, 5e-324, 2); const d = new Array(1000).fill(0); for (let i = 0; i < 200; i++) d.forEach(f); return "done"`, "Step exceeding limit"],
      ["5e-324 to 100 digits as a callback", `const f = parseFloat.call.bind(Number.prototype.toPrecision, 5e-324, 100); const d = new Array(1000).fill(0); for (let i = 0; i < 200; i++) d.forEach(f); return "done"`, "Step exceeding limit"],
      // Strings V8 reads whole to make numbers of (fifth review): 3,000 of 4 Mi characters were 8 s in one call.
      ["a typed array of 300 long numeric strings", `const d = new Array(300).fill("1".repeat(1e6)); new Float64Array(d); return "made"`, "Step exceeding limit"],
      ["a typed array from a map function answering a long numeric string", `const s = "1".repeat(1e6); Float64Array.from(new Array(300).fill(0), () => s); return "made"`, "Step exceeding limit"],
      ["a typed array set from long numeric strings", `const d = new Array(300).fill("1".repeat(1e6)); new Float64Array(300).set(d); return "set"`, "Step exceeding limit"],
      ["Number, parseFloat and isNaN as callbacks on long numeric strings", `const d = new Array(100).fill("1".repeat(1e6)); d.map(Number); d.map(parseFloat); d.map(isNaN); return "mapped"`, "Step exceeding limit"],
      ["String.fromCharCode of long numeric strings", `const d = new Array(300).fill("1".repeat(1e6)); return String(String.fromCharCode(...d).length)`, "Step exceeding limit"],
      // The linear engine's work and memory follow its states: \S{1,16} is about 180 (over 300 MB for 45,000 characters).
      ["a regular expression of many states over 45,000 characters", `return String(new RegExp("\\\\S{1,16}x").test("abcdefghi".repeat(5000)))`, "Step exceeding limit"],
      ["compiling patterns of many states", `const p = "\\\\S{1,9}".repeat(100); for (let i = 0; i < 2000; i++) new RegExp(p + "|" + i); return "compiled"`, "Step exceeding limit"],
      ["Map keys longer than 16,383 characters (hashed by their length alone)", `const L = 16400; const B = "x".repeat(L) + "y".repeat(200); const m = new Map(); for (let i = 0; i < 200; i++) m.set(B.slice(i, i + L), i); return String(m.size)`, "Step exceeding limit"],
      ["sorting String objects of a million characters", `const s = "x".repeat(1e6); const s1 = s + "a"; const s2 = s + "b"; const a = []; for (let i = 0; i < 200; i++) a.push(new String(i % 2 ? s1 : s2)); a.sort(); return "sorted"`, "Step exceeding limit"],
      // Operators that make a number of a long string (fifth review): each read it whole for one step.
      ...([
        ["subtraction", "n += s - 0;"],
        ["unary plus", "n += +s;"],
        ["a shift", "n |= s << 1;"],
        ["x++ on a variable", "let x = s; x++; n += x;"],
        ["o.p++ on a property", "const o = { p: s }; o.p++; n += o.p;"],
        ["-= on a variable", "let x = 0; x -= s; n += x;"],
        ["*= on a property", "const o = { p: 1 }; o.p *= s; n += o.p;"],
        ["a typed array's element", "const t = new Float64Array(1); t[0] = s; n += t[0];"],
        ["an object's valueOf", "n += { valueOf: () => s } * 1;"],
      ] as const).map(([what, step]): [string, string, string] => [`${what} on a long numeric string`, `const s = "1".repeat(1e6); let n = 0; for (let i = 0; i < 300; i++) { ${step} } return String(n)`, "Step exceeding limit"]),
      ["built-ins' numeric arguments given long strings", `const s = "0".repeat(1e6); let n = 0; for (let i = 0; i < 300; i++) n += "ab".charAt(s).length + [1].at(s) + new DataView(new ArrayBuffer(8)).getInt8(s); return String(n)`, "Step exceeding limit"],
      ["a comparator answering long numeric strings", `const a = new Array(50).fill("1".repeat(1e5)); for (let i = 0; i < 20; i++) a.sort(String); return "sorted"`, "Step exceeding limit"],
      // The sixth review (2026-11-26): captures in a pattern, conversions V8 repeats per element, String objects.
      ["a pattern of 1,000 captures over 50 characters", `const r = new RegExp("(a?)".repeat(1000) + "x"); r.test("a".repeat(50)); return "done"`, "Step exceeding limit"],
      ["Array.prototype.fill of a typed array with a long numeric string", `Array.prototype.fill.call(new Float64Array(300), "1".repeat(1e6)); return "done"`, "Step exceeding limit"],
      ["String objects of long numeric strings", `const S = new String("1".repeat(1e6)); const t = new Float64Array(1); let n = 0; for (let i = 0; i < 150; i++) { t[0] = S; n += "a".charAt(S).length; } return String(n)`, "Step exceeding limit"],
      ["String objects V8 boxes itself (Object(s), a sloppy function's this) made numbers in a list", `const s = "1".repeat(1e6); const box = Object(s); const l = []; for (let i = 0; i < 150; i++) l.push(box, Object.prototype.valueOf.call(s)); new Float64Array(l); return "done"`, "Step exceeding limit"],
      ["private fields and super properties holding long numeric strings, updated", `const s = "1".repeat(1e6); class B {} class A extends B { #p = 0; run() { let n = 0; for (let i = 0; i < 100; i++) { this.#p = s; this.#p++; this.#p = s; n += this.#p--; this.#p = s; this.#p -= 1; B.prototype.p = s; super.p *= 2; } return n; } } return String(new A().run())`, "Step exceeding limit"],
      // The ninth review (2026-11-26): work a single native call does that grew with more than its input's length.
      ["indexOf, lastIndexOf, includes, split, replace and replaceAll of a long pattern", `const s = "a".repeat(60000); const p = "a".repeat(20000) + "b" + "a".repeat(10000); const o = { toString: () => p }; for (const f of [() => s.indexOf(p), () => s.lastIndexOf("a".repeat(3000) + "b"), () => s.includes(o), () => s.split(p), () => s.replace(o, ""), () => s.replaceAll(p, "")]) { try { f(); } catch (e) {} } return "searched"`, "Step exceeding limit"],
      ["normalizing a long run of combining marks", `const s = "a" + "\\u0301\\u0323".repeat(20000); return String(s.normalize("NFC").length)`, "Step exceeding limit"],
      ["stack traces of functions named by long strings", `const s = "x".repeat(300000); function f(n) { return n === 0 ? new Error("e") : f(n - 1); } Object.defineProperty(f, "name", { value: s }); const o = {}; for (;;) o[f(10).stack];`, "Memory exceeding limit"],
      ["a stack trace longer than a string may be", `const s = "x".repeat(4000000); function f(n) { return n === 0 ? new Error("e") : f(n - 1); } Object.defineProperty(f, "name", { value: s }); return String(f(2).stack.length)`, "Memory exceeding limit"],
      ["resizable ArrayBuffers of 4 GiB reserved in a loop", `const keep = []; for (;;) keep.push(new ArrayBuffer(0, { maxByteLength: 2 ** 32 }));`, "Memory exceeding limit"],
      ["10,000 resizable ArrayBuffers, made 500 to a statement", `const B = ArrayBuffer; const o = { maxByteLength: 4096 }; for (let i = 0; i < 20; i++) [${"new B(0, o), ".repeat(500)}]; return "made"`, "Memory exceeding limit"],
      ["JSON.parse of a million nested arrays", `JSON.parse("[".repeat(1000000) + "]".repeat(1000000)); return "parsed"`, "Step exceeding limit"],
      ["properties updated by ++ and -- from objects whose valueOf answers a long numeric string", `const s = "1".repeat(1e6); const o = { a: [] }; let n = 0; for (let i = 0; i < 200; i++) { o.p = { valueOf: () => s }; o.p++; o.a[0] = { valueOf: () => s }; n += --o.a[0]; } return String(n)`, "Step exceeding limit"],
      ["properties given compound assignments from and of objects whose valueOf answers a long numeric string", `const s = "1".repeat(1e6); const o = { a: [] }; const x = { valueOf: () => s }; for (let i = 0; i < 200; i++) { o.p = { valueOf: () => s }; o.p -= 1; o.a[0] = 0; o.a[0] *= x; } return String(o.p)`, "Step exceeding limit"],
      // The tenth review (2026-11-26): a letter NFKD makes a mark, a method looked up twice, patterns just past 250, numbers of long strings.
      ["normalizing runs of U+FF9E, which NFKD makes marks", `const s = "a" + "\\u0301\\uFF9E".repeat(20000); s.normalize("NFKD"); return "normalized"`, "Step exceeding limit"],
      ["split and replaceAll with a Symbol.split getter answering a method, then nothing", `const P = "a".repeat(20000) + "b" + "a".repeat(10000); const s = "a".repeat(60000); let k = 0; const p = { get [Symbol.split]() { return k++ % 2 === 0 ? function () { return ["own"]; } : undefined; }, get [Symbol.replace]() { return k++ % 2 === 0 ? function () { return "own"; } : undefined; }, toString() { return P; } }; for (;;) { s.split(p); s.replaceAll(p, ""); }`, "Step exceeding limit"],
      ["indexOf, includes and split of a 252-unit pattern whose head mismatches", `const s = "a".repeat(4e5); const p = "ab" + "a".repeat(250); const r = [s.indexOf(p), s.includes(p), s.split(p).length]; return r.join()`, "Step exceeding limit"],
      ["lastIndex, typed at and subarray, DataView and typed array offsets of long numeric strings", `const s = "1".repeat(1e6); const S = Object(s); const r = /a/g; const t = new Int8Array(4); const b = new ArrayBuffer(8); for (;;) { r.lastIndex = s; r.test("a"); t.at(s); t.subarray(S); try { new DataView(b, s); } catch (e) {} try { new Int8Array(b, S); } catch (e) {} }`, "Step exceeding limit"],
      // The eleventh review (2026-11-26): a replacement template is read whole for each match.
      ["replacement templates of many $ sequences, for strings and patterns", `const t = "$1".repeat(5e4); const s = "a".repeat(10); for (;;) { "a".replace("a", t); s.replace(/a(x)?/g, t); s.replaceAll("a", t); }`, "Step exceeding limit"],
      // The twelfth review (2026-11-26): V8 makes a piece for each match, about 90 to 260 ns each.
      ["replaceAll of a million matches", `return String("a".repeat(1e6).replaceAll("a", "b").length)`, "Step exceeding limit"],
      ["typed array elements written by destructuring and for-of", `const s = "1".repeat(1e6); const t = new Float64Array(1); for (let i = 0; i < 100; i++) { [t[0]] = [s]; ({ a: t[0] } = { a: s }); for (t[0] of [s]); } return "done"`, "Step exceeding limit"],
      ["typed array elements defined and assigned", `const s = "1".repeat(1e6); const t = new Float64Array(1); for (let i = 0; i < 100; i++) { Object.defineProperty(t, 0, { value: s }); Reflect.defineProperty(t, 0, { value: s }); Object.assign(t, { 0: s }); } return "done"`, "Step exceeding limit"],
      ["a typed array's map answering long numeric strings", `const s = "1".repeat(1e6); new Float64Array(300).map(() => s); return "done"`, "Step exceeding limit"],
      // The seventh review (2026-11-26): V8 parses the throwing function again to word a TypeError about a call or a read.
      ["TypeErrors caught in a function of 100 KB", `let n = 0; function pad() { ${"a;".repeat(50000)} } for (let i = 0; i < 300; i++) { try { n(); } catch (e) {} } return "caught"`, "Step exceeding limit"],
      ["classes defined in a loop", `for (let i = 0; i < 3000; i++) (class {}); return "defined"`, "Step exceeding limit"],
      // The eighth review (2026-11-26): a TypeError an iterator's return throws while V8 closes it after an error is dropped by V8, unseen by any catch.
      ["TypeErrors dropped by V8 as it closes an iterator", `let n = null; const it = { [Symbol.iterator]() { return this; }, next() { return { done: false, value: 1 }; }, return() { function pad() { ${"a;".repeat(50000)} } return n.x; } }; for (let i = 0; i < 300; i++) { try { for (const x of it) throw 0; } catch (e) {} } return "closed"`, "Step exceeding limit"],
      ["the same through Array.from", `let n = null; const it = { [Symbol.iterator]() { return this; }, next() { return { done: false, value: 1 }; }, return() { function pad() { ${"a;".repeat(50000)} } return n.x; } }; for (let i = 0; i < 300; i++) { try { Array.from(it, () => { throw 0; }); } catch (e) {} } return "closed"`, "Step exceeding limit"],
      // The tenth review (2026-11-26): V8 hashes a key longer than 16,383 code units by its length alone, so
      // each new one is compared with every key of that length (300 of them: about 40 ms of V8's time, 2,000
      // reached the clock), by every route that looks a key up.
      ...longKeyRoutes.map(([name, use]): [string, string, string] => [`300 keys of 16,400 code units, ${name}`, `const B = "x".repeat(16400) + "y".repeat(400); const key = (i) => B.slice(i, i + 16400); const o = {}; for (let i = 0; i < 300; i++) { ${use} } return "done"`, "Step exceeding limit"]),
      // The thirteenth review (2026-11-26): an object whose valueOf answers 4 Mi digits, given where a built-in
      // makes a number of it, was read by V8 unseen (2.6 ms a time, one step).
      ...numberRoutes.map(([name, use]): [string, string, string] => [`an object answering a long numeric string, ${name}`, `const s = "1".repeat(4e6); const v = { valueOf: () => s }; const t = new Float64Array(4); const d = new DataView(new ArrayBuffer(8)); const r = /a/g; for (let i = 0; i < 100; i++) { try { ${use} } catch (e) {} } return "done"`, "Step exceeding limit"]),
      // The thirteenth review (2026-11-26): long keys a proxy's ownKeys trap answers or a JSON replacer lists, and
      // long strings V8 compares in full unseen (Object.is, a frozen property redefined, a proxy's answer checked
      // against its target's frozen property).
      ...[
        ["keys answered by a proxy's ownKeys trap", "Reflect.ownKeys(new Proxy({}, { ownKeys: () => ks }));"],
        ["keys listed by JSON.stringify's replacer", "JSON.stringify({}, ks);"],
      ].map(([name, use]): [string, string, string] => [`300 keys of 16,400 code units, ${name}`, `const base = "a".repeat(16400) + "b".repeat(300); const ks = []; for (let i = 0; i < 300; i++) ks[i] = base.slice(i, i + 16400); ${use} return "done"`, "Step exceeding limit"]),
      ...[
        ["compared by Object.is", "Object.is(a, b);"],
        ["redefining a frozen property", "Reflect.defineProperty(o, 'x', { value: b }); Object.defineProperty(frozen, 0, { value: b });"],
        ["answered by a proxy for its target's frozen property", "p.x; Object.getOwnPropertyDescriptor(q, 'x'); Reflect.defineProperty(r, 'x', { value: b });"],
      ].map(([name, use]): [string, string, string] => [`equal strings of 2 Mi code units ${name}`, `const a = "a".repeat(2e6); const b = ("a".repeat(2e6) + "\u0100").slice(0, 2e6); const o = {}; Object.defineProperty(o, "x", { value: a }); const frozen = Object.freeze([a]); const p = new Proxy(o, { get: () => b }); const q = new Proxy(o, { getOwnPropertyDescriptor: () => ({ value: b }) }); const r = new Proxy(o, { defineProperty: () => true }); for (let i = 0; i < 100; i++) { try { ${use} } catch (e) {} } return "done"`, "Step exceeding limit"]),
      // The fourteenth review (2026-11-26): chainsim's view of an array-like, handed back to a built-in, was
      // nested again each time.
      ["an array-like view handed back to the built-in that made it", `let x = { length: { valueOf() { return 1; } } }; for (;;) { Array.prototype.find.call(x, (v, i, a) => { x = a; }); x.foo; }`, "Step exceeding limit"],
      // The fifteenth review (2026-11-26): an exec installed while the input is converted (V8 then walked what
      // it answered), built-in `next`s that never say done, a built-in reviver, numbers written by push.
      ["an exec installed on the regular expression while its input is converted", `let n = 0; const evil = () => (n++ < 1 ? { 0: "a", length: 3e7, index: 0 } : null); for (;;) { n = 0; const re = /a/; RegExp.prototype[Symbol.replace].call(re, { toString() { re.exec = evil; return "abc"; } }, "x"); }`, "Step exceeding limit"],
      ...[
        ["new Set", "new Set(it);"],
        ["Array.from", "Array.from(it);"],
        ["array rest", "const [...rest] = it;"],
      ].map(([name, use]): [string, string, string] => [`${name} of an iterator whose next is a built-in that never says done`, `const it = { [Symbol.iterator]() { return this; }, next: Object.prototype.valueOf }; for (;;) { ${use} }`, "Step exceeding limit"]),
      ["array rest of an array, the array iterator's next replaced by a built-in", `Object.getPrototypeOf([][Symbol.iterator]()).next = Object.prototype.valueOf; for (;;) { const [...rest] = [1]; }`, "Step exceeding limit"],
      ["JSON.parse with a built-in reviver", `const t = "[" + "1,".repeat(99999) + "1]"; for (let i = 0; i < 10; i++) JSON.parse(t, Object.is); return "done"`, "Step exceeding limit"],
      ["objects answering 4 Mi digits pushed and spliced into a typed array", `const s = " ".repeat(4194000) + "5"; const o = { valueOf: () => s }; const u = new Uint8Array(4); for (let i = 0; i < 100; i++) { try { Array.prototype.push.call(u, o); } catch (e) {} try { Array.prototype.splice.call(u, 0, 1, o); } catch (e) {} } return "done"`, "Step exceeding limit"],
      // The sixteenth review (2026-11-26): a view of chainsim's as a prototype, patterns that scan to the end of
      // the text for each match, an @@iterator getter answering the built-in once, then a never-ending one.
      ["chainsim's views used as a 15-deep prototype chain, read on every miss", `let p = Object.prototype; for (let i = 0; i < 15; i++) { const a = [0]; Object.setPrototypeOf(a, p); a.constructor = {}; let cap; Array.prototype.map.call(a, (v, k, x) => { cap = x; }); p = cap; } const t = {}; Object.setPrototypeOf(t, p); for (;;) { ${"t.z; ".repeat(40)} }`, "Step exceeding limit"],
      ["replace, match and split with a pattern that scans to the end for each match", `const t = "x".repeat(3000); const re = /[^]*y|x/g; for (;;) { t.replace(re, ""); t.match(re); t.split(/[^]*y|x/); }`, "Step exceeding limit"],
      ["an @@iterator getter answering the built-in, then a never-ending iterator", `let n = 0; const V = Array.prototype.values; const evil = function () { return { next: Object.prototype.valueOf }; }; const a = [1]; Object.defineProperty(a, Symbol.iterator, { get() { return n++ % 2 === 0 ? V : evil; } }); for (;;) { new Set(a); Array.from(a); }`, "Step exceeding limit"],
      // A private field of another object updated: V8 read the long numeric string unseen (2.6 ms each time).
      ["a private field of another object updated, holding a long numeric string", `class C { #p = 0; static go(o, s) { const v = { valueOf: () => s }; for (let i = 0; i < 100; i++) { o.#p = s; o.#p++; o.#p = v; o.#p -= 1; } } } C.go(new C(), "1".repeat(4e6)); return "done"`, "Step exceeding limit"],
      // Unmetered, 200 of them reach V8's heap limit; metered, 3 exhaust the steps (1 per 128 elements made).
      ...lengthRoutes.map(([name, make]): [string, string, string] => [`arrays kept, made long by ${name}`, `const kept = []; for (let i = 0; i < 200; i++) { ${make} kept.push(a); } return String(kept.length)`, "Step exceeding limit"]),
      // The seventeenth review of 2026-11-26 (each reached the clock or V8's heap, or a whole budget took seconds).
      ["AggregateError listing a contract's iterator that never says done", `const it = { [Symbol.iterator]() { return this; }, next: Object.prototype.valueOf }; new AggregateError(it); return "made"`, "Step exceeding limit"],
      ["AggregateError listing an array whose iterator's next was replaced", `Object.getPrototypeOf([][Symbol.iterator]()).next = Object.prototype.valueOf; new AggregateError([1]); return "made"`, "Step exceeding limit"],
      ["a non-global regular expression with lastIndex near the end, scanning the whole text", `const t = "x".repeat(100000); const re = /[^]*y/; re.lastIndex = t.length - 1; for (;;) re.test(t);`, "Step exceeding limit"],
      ["a read-only lastIndex holding an object that answers a 4 Mi-digit string", `const s = "1".repeat(4194000); let n = 0; const O = { valueOf() { return n++ % 2 ? s : 0; } }; const re = /a/; Object.defineProperty(re, "lastIndex", { value: O, writable: false }); for (;;) re.exec("b");`, "Step exceeding limit"],
      ["Array.prototype.fill of a typed array with an object answering a long numeric string", `const s = " ".repeat(4194000) + "5"; const O = { valueOf() { return s; } }; const u = new Uint8Array(1000); for (;;) Array.prototype.fill.call(u, O);`, "Step exceeding limit"],
      ["writes through chainsim's view of a typed array with a length getter", `const W = new String(" ".repeat(4194000) + "5"); const u = new Uint8Array(8); Object.defineProperty(u, "length", { get() { return 1; } }); let cap; Array.prototype.find.call(u, (v, k, x) => { cap = x; }); for (;;) cap[5] = W;`, "Step exceeding limit"],
      ["definitions through chainsim's view of a typed array with a length getter", `const W = new String(" ".repeat(4194000) + "5"); const u = new Uint8Array(8); Object.defineProperty(u, "length", { get() { return 1; } }); let cap; Array.prototype.find.call(u, (v, k, x) => { cap = x; }); for (;;) Object.defineProperty(cap, 6, { value: W });`, "Step exceeding limit"],
      ["writes missing down a chain of 15 views as prototypes", `let p = Object.prototype; for (let i = 0; i < 15; i++) { const a = { get length() { return 1; }, 0: 0 }; Object.setPrototypeOf(a, p); let cap; Array.prototype.find.call(a, (v, k, x) => { cap = x; }); p = cap; } for (;;) { const u = Object.create(p); ${Array.from({ length: 60 }, (_, i) => `u.k${i} = 1;`).join(" ")} }`, "Step exceeding limit"],
      ["a sloppy function's caller and arguments read on a stack of 2,800 frames", `let n = 0; function nope() {} const k = "arguments"; function g() { for (;;) { ${"nope.caller; nope[k]; nope?.arguments; ({ caller: n } = nope); Object.getOwnPropertyDescriptors(nope); Reflect.get(nope, k); ".repeat(4)} } } function r() { if (++n < 2800) return r(); return g(); } r();`, "Step exceeding limit"],
      ["a replacement template of 290,000 unclosed $< in two-byte text", `const T = "$<".repeat(290000) + "\\u0100"; for (;;) "x".replace(/(?<a>x)/, T);`, "Step exceeding limit"],
      ["Object.prototype.toString of an object with a 4 Mi-unit Symbol.toStringTag, read each time", `const o = { [Symbol.toStringTag]: "a".repeat(4000000) }; const ts = Object.prototype.toString; for (;;) ts.call(o).charCodeAt(0);`, "Memory exceeding limit"],
      ["Error.captureStackTrace skipping to a function not on a stack of 2,800 frames", `let n = 0; const o = {}; const cap = Error.captureStackTrace; function nope() {} function g() { for (;;) { cap(o, nope); cap(o, nope); cap(o, nope); cap(o, nope); } } function r() { if (++n < 2800) return r(); return g(); } r();`, "Step exceeding limit"],
      ["errors made with a new.target not on a stack of 2,800 frames", `let n = 0; function nope() {} function g() { for (;;) Reflect.construct(Error, [], nope); } function r() { if (++n < 2800) return r(); return g(); } r();`, "Step exceeding limit"],
      ["short strings made by + and read, kept (V8 copies each into one string)", `const s = "\\u0100".repeat(1000); const keep = []; let x; for (let i = 0; ; i++) keep.push([${Array.from({ length: 30 }, () => "(x = s + i, x[0], x)").join(", ")}]);`, "Memory exceeding limit"],
      ["a string of 1,000 pieces made again and read, 60 times a statement", `let s = "\\u0100"; for (let i = 0; i < 1000; i++) s = (i & 1 ? "a" : "\\u0101") + s; for (let i = 0; ; i++) { ${Array.from({ length: 59 }).reduce((e: string) => `(s + ${e})[0]`, "(i + s)[0]")}; }`, "Memory exceeding limit"],
      ["JSON.stringify of 100,000 lone surrogates, then a circular reference", `const s = "\\ud800".repeat(1e5); const a = [s]; a.push(a); for (;;) { try { JSON.stringify(a); } catch (e) {} }`, "Step exceeding limit"],
      ["functions named after a 4 Mi-unit symbol description, their names read", `const y = Symbol("a".repeat(4000000)); for (;;) { const o = { [y]: function () {} }; o[y].name.charCodeAt(0); const C = class { static [y]() {} }; C[y].name.charCodeAt(0); }`, "Memory exceeding limit"],
      ["Array.prototype.toString falling back to Object.prototype.toString of a 4 Mi-unit tag", `const o = { [Symbol.toStringTag]: "a".repeat(4000000), join: 1 }; const ts = Array.prototype.toString; for (;;) ts.call(o).charCodeAt(0);`, "Memory exceeding limit"],
      ["keys of a proxy of a sloppy function on a stack of 2,800 frames", `let n = 0; function nope() {} const P = new Proxy(nope, {}); function g() { for (;;) { ${"Object.keys(P); ({ ...P }); ".repeat(10)} } } function r() { if (++n < 2800) return r(); return g(); } r();`, "Step exceeding limit"],
      ["in down a chain of 15 views", `let p = Object.prototype; for (let i = 0; i < 15; i++) { const a = [0]; Object.setPrototypeOf(a, p); a.constructor = {}; let cap; Array.prototype.map.call(a, (v, k, x) => { cap = x; }); p = cap; } const t = Object.create(p); for (;;) { ${"'zz' in t; ".repeat(120)} }`, "Step exceeding limit"],
      ["instanceof down a chain of 15 views", `let p = Object.prototype; for (let i = 0; i < 15; i++) { const a = [0]; Object.setPrototypeOf(a, p); a.constructor = {}; let cap; Array.prototype.map.call(a, (v, k, x) => { cap = x; }); p = cap; } const t = Object.create(p); function F() {} for (;;) { ${"t instanceof F; ".repeat(40)} }`, "Step exceeding limit"],
      ["functions bound, their name from a getter answering 4 Mi units, read", `const s = "a".repeat(4000000); function f() {} Object.defineProperty(f, "name", { get() { return s; } }); for (;;) f.bind().name[0];`, "Memory exceeding limit"],
      ["a Symbol object's text, of a 4 Mi-unit description, read", `const w = Object(Symbol("a".repeat(4000000))); for (;;) w.toString()[0];`, "Memory exceeding limit"],
      ["a sloppy function's arguments read while it holds 30,000 of them", `const a = new Array(30000).fill(0); function g() { for (;;) { g.arguments; g.arguments; g.arguments; g.arguments; } } g(...a);`, "Step exceeding limit"],
      ["entries, values and spread of a sloppy function in dictionary mode, 2,800 frames deep", `let n = 0; function nope() {} Object.create(nope); function g() { for (;;) { ${"Object.entries(nope); Object.values(nope); ({ ...nope }); ".repeat(7)} } } function r() { if (++n < 2800) return r(); return g(); } r();`, "Step exceeding limit"],
      ["entries of a sloppy function in dictionary mode", `function nope() {} Object.create(nope); for (;;) { ${"Object.entries(nope); ".repeat(20)} }`, "Step exceeding limit"],
      ["array patterns of 10,000 holes", `const a = []; for (;;) { const [${",".repeat(10000)}] = a; }`, "Step exceeding limit"],
      ["array patterns of 200,000 holes over an iterator whose next is Object.prototype.valueOf", `const it = { [Symbol.iterator]() { return this; }, next: Object.prototype.valueOf }; for (;;) { const [${",".repeat(200000)}] = it; }`, "Step exceeding limit"],
      ["array patterns nested 32 deep", `const a = []; a[0] = a; for (;;) { const ${"[".repeat(32)}x${"]".repeat(32)} = a; }`, "Step exceeding limit"],
      // Errors captured over 32 optimized frames of 200 locals each: V8 decodes each frame whole (twenty-first review).
      ...[`k += a.map(Error).length;`, `try { new Array(-1); } catch (e) { k++; }`].map((made): [string, string, string] => [
        `errors made over optimized frames of 200 locals: ${made}`,
        `function inner() { const a = Array(512).fill("m"); let k = 0; for (;;) { ${made} } } function g(n, go) { let ${Array.from({ length: 200 }, (_, i) => `a${i} = n + ${i}`).join(", ")}; let r = 0; if (n > 0) r = g(n - 1, go); else if (go) r = inner(); return r + ${Array.from({ length: 200 }, (_, i) => `a${i}`).join(" + ")}; } let t = 0; for (let i = 0; i < 200; i++) t += g(0, false); return String(g(40, true));`,
        "Step exceeding limit",
      ]),
      // The twenty-third review: element keys that miss walk the whole chain (V8 caches no such miss), 37 ns a
      // prototype whose elements are in dictionary mode; chains are cut to 32 and o[k] counts 4 nodes.
      ...[`o[0],`, `0 in o,`, `Reflect.get(o, 0),`, `o instanceof F,`].map((read): [string, string, string] => [
        `${read} down a chain of 30 prototypes with dictionary elements`,
        `function F() {} let o = {}; for (let i = 0; i < 29; i++) { o = Object.create(o); Object.defineProperty(o, 5e6, { value: 1 }); } for (;;) { ${read.repeat(300)}0; }`,
        "Step exceeding limit",
      ]),
      // The twenty-third review: numbers of one bucket of V8's hash tables, each lookup walking them all.
      ...[["integers", COLLIDING_INTS], ["doubles", COLLIDING_DOUBLES]].flatMap(([kind, keys]): [string, string, string][] => [
        [`Sets made of 16,384 ${kind} of one bucket`, `const a = ${JSON.stringify((keys as number[]).slice(0, 16384))}; for (;;) new Set(a);`, "Step exceeding limit"],
        [`Maps made of 16,384 ${kind} of one bucket`, `const a = ${JSON.stringify((keys as number[]).slice(0, 16384))}.map((k) => [k, 1]); for (;;) new Map(a);`, "Step exceeding limit"],
        [`a missing key looked up among 8,192 ${kind} of its bucket`, `const s = new Set(${JSON.stringify((keys as number[]).slice(0, 8192))}); const x = ${(keys as number[])[16384]}; for (;;) { s.has(x); s.has(x); s.has(x); s.has(x); }`, "Step exceeding limit"],
        [`lookups down a chain of 16,384 deleted ${kind}, the table kept from shrinking`, `const a = ${JSON.stringify((keys as number[]).slice(0, 16384))}; const s = new Set(a); for (let i = 0; i < 20000; i++) s.add(-i - 0.5); for (const k of a) s.delete(k); const x = ${(keys as number[])[16384]}; for (;;) { ${"s.has(x); ".repeat(16)} }`, "Step exceeding limit"],
      ]),
      // Review of 2026-11-27: fresh iterators over a table of deleted entries; regular expressions made by the thousand.
      ["fresh Set iterators over 24,575 deleted entries", `const N = 32768; const arr = [...Array(N).keys()]; const s = new Set(arr); arr.slice(0, N - 8193).forEach(s.delete, s); for (;;) { ${"s.values().next(), ".repeat(30)}0; }`, "Step exceeding limit"],
      ["fresh Map iterators over 24,575 deleted entries", `const N = 32768; const arr = [...Array(N).keys()]; const m = new Map(arr.entries()); arr.slice(0, N - 8193).forEach(m.delete, m); for (;;) { ${"m.keys().next(), ".repeat(30)}0; }`, "Step exceeding limit"],
      ["regular-expression literals, 400 a loop", `for (;;) { ${"/a/;".repeat(400)} }`, "Step exceeding limit"],
      ["regular expressions made by new, 100 a loop", `const R = RegExp; for (;;) { ${"new R('a');".repeat(100)} }`, "Step exceeding limit"],
      ["regular expressions of Unicode properties of strings under v and i, made in a loop", `let k = 0; for (;;) { k++; try { new RegExp("[\\\\p{RGI_Emoji}]" + k, "vi"); } catch (e) {} }`, "Step exceeding limit"],
    ];
    for (const [name, body, exception] of heavy) {
      it(`${name}: 155 ${exception}`, async () => {
        // With the validators' own 1 s clock: a whole budget must end on the model in a tenth of it.
        const { value, failure } = await query(body, "", DEFAULT_CONTRACT_LIMITS.timeMs);
        expect(failure, `${name} answered ${String(value).slice(0, 80)}`).to.be.instanceOf(ContractFailure);
        expect(failure).to.not.be.instanceOf(GuardTripped);
        expect([failure!.code, failure!.exception]).to.deep.equal([155, exception]);
      });
    }
  });

  it("formats a stack trace without running a contract's getter, so no stack is formatted by V8's own formatter (nineteenth review of 2026-11-26)", async () => {
    // V8 formats any stack first read while it formats another natively, with the host's frames and names.
    const { value } = await query(`let inner = "unread"; const o = { get name() { inner = new Error("inner").stack; return "N"; } }; const outer = new Error("outer"); Object.setPrototypeOf(outer, o); const first = outer.stack.split("\\n")[0]; class E extends Error { get name() { return "E"; } } const e = new E("m"); e.message = "own"; return [first, inner, e.stack.split("\\n")[0], String(e)].join("|");`);
    expect(value).to.equal("Error: outer|unread|Error: own|E: own");
  });

  it("shows a contract's 10 innermost frames in a trace, whatever frames of chainsim's lie between them (twentieth review of 2026-11-26)", async () => {
    // With 10 frames captured, an Error's stand-in, a guarded replace and JSON.stringify's recursion used them up.
    const frames = (stack: string) => stack.split("\n").slice(1).map((line) => line.trim().split(" ")[1]).join(",");
    const { value } = await query(`function rec(n) { if (n) return rec(n - 1); return [new Error("x").stack, "ab".replace(/b/g, function cb() { return new Error("y").stack; })].join("|"); } return rec(20);`);
    const [plain, replaced] = String(value).split("|");
    expect(frames(plain!)).to.equal(new Array(10).fill("rec").join(","));
    expect(frames(replaced!)).to.equal(["cb", ...new Array(9).fill("rec")].join(","));
    const { failure } = await query(`const a = {}; const b = { a }; const c = { b }; a.c = c;\nJSON.stringify(a);`);
    expect([failure?.code, failure?.linenum]).to.deep.equal([151, 2]);
  });

  it("refuses a typed array as a prototype, by every route that sets one (seventeenth review of 2026-11-26)", async () => {
    // A write that misses the object reaches the typed array, which makes a number of the value natively.
    const { value } = await query(`const u = new Uint8Array(1); function F() {} const out = []; for (const f of [() => Object.create(u), () => Object.setPrototypeOf({}, u), () => Reflect.setPrototypeOf({}, u), () => { const o = {}; o.__proto__ = u; }, () => ({ __proto__: u }), () => { F.prototype = u; return new F(); }, () => Reflect.construct(Object, [], Object.assign(function () {}, { prototype: u })), () => { let n = 0; for (const k in Object.create(new Uint8Array(20e6))) n++; return n; }]) { try { f(); out.push("made"); } catch (e) { out.push(e.name + ":" + e.message); } } return out.join("|");`);
    expect(value).to.equal(new Array(8).fill("TypeError:A typed array as a prototype is not allowed in contracts").join("|"));
  });

  it("refuses a typed array as an array's species or as Array.from's and Array.of's receiver (fifteenth review of 2026-11-26)", async () => {
    // V8 would make a number of each element it writes there, natively and unseen.
    const { value } = await query(`const W = new String(" ".repeat(4194000) + "5"); const a = [W]; a.constructor = { [Symbol.species]: function () { return new Uint8Array(1); } }; const make = function () { return new Uint8Array(1); }; const out = []; for (const f of [() => a.flat(), () => a.map(() => W), () => a.slice(), () => a.filter(() => true), () => [].concat.call(a, [W]), () => Array.from.call(make, [W]), () => Array.of.call(make, W)]) { try { f(); out.push("made"); } catch (e) { out.push(e.name); } } return out.join();`);
    expect(value).to.equal(new Array(7).fill("TypeError").join());
  });

  it("runs RegExp.prototype's symbol methods only on a regular expression with the built-in exec (fourteenth review of 2026-11-26)", async () => {
    const { value } = await query(`const out = [["a-b".split(/-/).join(), "aXbX".replace(/X/g, "y"), [..."a1b2".matchAll(/\\d/g)].length, "a".match(/a/)[0], "abc".search(/c/)].join()]; class R extends RegExp {} const q = /a/; q.exec = () => null; for (const f of [() => RegExp.prototype[Symbol.replace].call({ exec: () => ({ 0: "a", length: 3e7, index: 0 }), flags: "" }, "abc", "x"), () => "a".replace(q, "b"), () => "a-b".split(new R("-")), () => "a1".matchAll(new R("\\\\d", "g")), () => "a-b".replace(new R("-"), "+")]) { try { out.push(String(f())); } catch (e) { out.push(e.name + ":" + e.message); } } return out.join("|");`);
    expect(value).to.equal(
      "a,b,ayby,2,a,2|TypeError:RegExp.prototype[Symbol.replace] is allowed in contracts only on a regular expression|TypeError:RegExp.prototype[Symbol.replace] is allowed in contracts only on a regular expression with the built-in exec|TypeError:RegExp.prototype[Symbol.split] is allowed in contracts only on a regular expression whose constructor is RegExp|TypeError:RegExp.prototype[Symbol.matchAll] is allowed in contracts only on a regular expression whose constructor is RegExp|a+b",
    );
  });

  it("words V8's messages without chainsim's instrumentation: a function printed shows no body, descriptors read as V8 reads them", async () => {
    // Found by the adversarial review of 2026-11-25: V8 prints a function value as its (instrumented) source.
    const long = "a = a + 1; ".repeat(20);
    const cases: [string, string][] = [
      [`"use strict"; function f(a) { return a + 1; } try { f.name = "x"; } catch (e) { return e.message; }`, "Cannot assign to read only property 'name' of function 'function f(a) { [native code] }'"],
      [`"use strict"; function f(a) { ${long} return a; } try { f.name = "x"; } catch (e) { return e.message; }`, "Cannot assign to read only property 'name' of function 'function f(a) { [native code] }'"],
      [`function f(a) { function g() { return 1; } return g() + a; } try { Map.prototype.get.call(f); } catch (e) { return e.message; }`, "Method Map.prototype.get called on incompatible receiver function f(a) { [native code] }"],
      [`"use strict"; const g = (a) => a * 2; try { g.name = "x"; } catch (e) { return e.message; }`, "Cannot assign to read only property 'name' of function '(a) =>{ [native code] }'"],
      // `[object Object]`, not V8's `#<Object>`: Object.prototype.toString is a guard (docs/contracts.md §14).
      [`try { Object.defineProperty({}, "x", { get() {}, value: 1 }); } catch (e) { return e.message; }`, "Invalid property descriptor. Cannot both specify accessors and a value or writable attribute, [object Object]"],
      [`const read = []; const d = { get get() { read.push("get"); return 5; }, get set() { read.push("set"); } }; try { Object.defineProperty({}, "x", d); } catch (e) { return e.message + " " + read; }`, "Getter must be a function: 5 get"],
      [`try { new ArrayBuffer(2 ** 53); } catch (e) { return e.name + ": " + e.message; }`, "RangeError: Invalid array buffer length"],
      // The tenth review (2026-11-26): V8 named an anonymous function after the write helper it was assigned through.
      [`const o = {}; const k = "f"; o[k] = function () { return new Error("q").stack; }; o[Symbol.iterator] = () => new Error("r").stack; return o.f() + "|" + o[Symbol.iterator]();`, "Error: q\n    at <anonymous> (contract.js:1)\n    at query (contract.js:1)|Error: r\n    at <anonymous> (contract.js:1)\n    at query (contract.js:1)"],
      // Arithmetic is instrumented (fifth review of 2026-11-26): the same values and messages as V8's.
      [`let x = 5, y = "3", o = { valueOf() { return 2 } }; const a = [x - y, x * o, -y, +y, ~o, x ** 2, 7 % 3, 1 << 3, -8 >> 1, -8 >>> 28, 6 & 3, 6 | 3, 6 ^ 3]; let i = 0; const b = [i++, i, ++i, i--, --i, i]; x -= 1; x *= o; const p = { q: "4", r: [1] }; p.q++; p.r[0] -= "2"; p.q **= 2; let u; u++; return JSON.stringify([a, b, x, p, u, -0 === 0, Object.is(-(0), -0)]);`, `[[2,10,-3,3,-3,25,1,8,-4,15,2,7,5],[0,1,2,2,0,0],8,{"q":25,"r":[-1]},null,true,true]`],
      [`const out = []; for (const f of [() => Symbol() - 1, () => -Symbol(), () => { let s = Symbol(); s++; }, () => ({ valueOf() { return {}; }, toString() { return {}; } }) * 2, () => { const c = 1; c++; }, () => { const c = 1; c -= 1; }]) { try { f(); out.push("ok"); } catch (e) { out.push(e.constructor.name + ": " + e.message); } } return out.join(" | ");`, "TypeError: Cannot convert a Symbol value to a number | TypeError: Cannot convert a Symbol value to a number | TypeError: Cannot convert a Symbol value to a number | TypeError: Cannot convert object to primitive value | TypeError: Assignment to constant variable. | TypeError: Assignment to constant variable."],
      // for-of over a contract's iterator: next read once, return read at the close, V8's messages (eighth review).
      [`const log = []; const it = { [Symbol.iterator]() { log.push("iter"); return this; }, get next() { log.push("getnext"); return () => { log.push("next"); return { done: log.length > 6, value: 1 }; }; }, get return() { log.push("getret"); return () => { log.push("ret"); return {}; }; } }; for (const x of it) { if (log.length > 4) break; } try { for (const x of it) throw 1; } catch (e) {} const gen = { [Symbol.iterator]() { let i = 0; return { next: () => ({ done: i > 2, value: i++ }) }; } }; const vals = []; for (const v of gen) vals.push(v); for (const c of "ab") vals.push(c); for (const [k, v] of new Map([[1, 2]])) vals.push(k + v); return log.join() + "|" + vals.join();`, "iter,getnext,next,next,next,getret,ret,iter,getnext,next|0,1,2,a,b,3"],
      [`const out = []; for (const f of [() => { for (const x of { [Symbol.iterator]() { return 5; } }); }, () => { for (const x of { [Symbol.iterator]() { return { next: 5 }; } }); }, () => { for (const x of { [Symbol.iterator]() { return { next: () => 5 }; } }); }, () => { for (const x of { [Symbol.iterator]() { return { next: () => ({ done: false }), return: () => 5 }; } }) break; }]) { try { f(); out.push("ok"); } catch (e) { out.push(e.message); } } return out.join(" | ");`, "Result of the Symbol.iterator method is not an object | number 5 is not a function | Iterator result 5 is not an object | Iterator result 5 is not an object"],
      // The digits of toFixed, toPrecision and toExponential are converted once (a valueOf answers once).
      [`let c = 0; const d = { valueOf() { c++; return 2; } }; return (1.5).toFixed(d) + (1.5).toPrecision(d) + (1.5).toExponential(d) + " " + c;`, "1.501.51.50e+0 3"],
      // The seventh review: the static block chainsim puts in a class stays out of V8's messages.
      [`"use strict"; class C {} try { C.prototype = {}; } catch (e) { return e.message; }`, "Cannot assign to read only property 'prototype' of function 'class C {}'"],
      // The sixth review: automatic semicolons, parenthesised targets, a setter's failed update, a Symbol's order.
      ["let i = 0\ni++\nreturn String(i)", "1"],
      ["let a, b = 5, c = 1; a = b\n++c\nreturn String([a, c])", "5,2"],
      ["let x = 1; (x)++; ++(x); (x) -= 1; return String(x)", "2"],
      [`const k = 1; Object.defineProperty(globalThis, "g", { get() { return 10; }, set(v) { try { k++; } catch (e) {} }, configurable: true }); return String(g++)`, "10"],
      [`const log = []; try { Symbol() - { valueOf() { log.push("b"); return 1; } }; } catch (e) { log.push(e.message); } return JSON.stringify(log)`, `["Cannot convert a Symbol value to a number"]`],
      // The i, u, v and d flags, which V8's linear engine always refuses, are refused before V8 parses the pattern.
      [`const out = []; for (const f of ["u", "v", "i", "d", "gi"]) { try { new RegExp("\\p{RGI_Emoji}", f); } catch (e) { out.push(e.message); } } return out.join("|");`, ["u", "v", "i", "d", "gi"].map((f) => `Invalid regular expression: /\p{RGI_Emoji}/${f}: Cannot be executed in linear time`).join("|")],
      // The engine's own `l` flag stays out of the message (fifth review of 2026-11-26).
      [`try { new RegExp("a{0,300}"); } catch (e) { return e.message; }`, "Invalid regular expression: /a{0,300}/: Cannot be executed in linear time"],
      [`return [(255).toString(16), (1.5).toFixed(2), (12.345).toPrecision(3), (1e21).toString(36), /a/g.toString(), String(function foo() {})].join();`, "ff,1.50,12.3,5v1j4f4ds7c000,/a/g,function foo() { [native code] }"],
      // Object.fromEntries in JavaScript: V8's messages, the iterator closed on a bad entry; computed keys.
      [`const log = []; const it = { [Symbol.iterator]() { let i = 0; return { next() { return i++ === 0 ? { done: false, value: 5 } : { done: true }; }, return() { log.push("closed"); return {}; } }; } }; try { Object.fromEntries(it); } catch (e) { return e.message + " " + log; }`, "Iterator value 5 is not an entry object closed"],
      [`Object.prototype.get = () => 1; return JSON.stringify(Object.fromEntries(new Map([["a", 1], [2, "b"]])));`, `{"2":"b","a":1}`],
      [`const k = "x"; const o = { [k]: 1, [k + "y"]() { return 2; }, get [k + "z"]() { return 3; }, [{ toString() { return "t"; } }]: 4, [20]: 5 }; return JSON.stringify(o) + o.xy() + o.xz;`, `{"20":5,"x":1,"xz":3,"t":4}23`],
      [`const log = []; const key = (s) => { log.push(s); return s; }; class C { [key("a")] = log.push("init a"); [key("b")]; static [key("s")] = 5; } log.push("defined"); const c = new C(); return log.join() + " " + JSON.stringify(c) + C.s + ("b" in c);`, `a,b,s,defined,init a {"a":5}5true`],
      // Field names given by V8 survive the field charge: plain, computed, private, symbol, static, numeric, string keys.
      [`const k = "kk", s = Symbol("sy"); class C { f = () => 1; [k] = function () {}; #p = () => 2; static [s] = () => 3; static g = class {}; 5 = () => 0; "a b" = () => 0; getP() { return this.#p.name; } } const c = new C(); return [c.f.name, c.kk.name, c.getP(), C[s].name, C.g.name, c[5].name, c["a b"].name].join("|");`, "f|kk|#p|[sy]|g|5|a b"],
      // Iterables whose @@iterator or next is not callable: V8's messages.
      [`const out = []; for (const f of [() => Object.fromEntries({ [Symbol.iterator]() { return { next: 5 }; } }), () => new Set({ [Symbol.iterator]: 5 }), () => [...{ [Symbol.iterator]() { return 1; } }]]) { try { f(); } catch (e) { out.push(e.message); } } return out.join("|");`, "number 5 is not a function|object is not iterable (cannot read property Symbol(Symbol.iterator))|Result of the Symbol.iterator method is not an object"],
      // Objects made by stand-in constructors are named in messages by their tag, as V8 names them once
      // Object.prototype.toString is a guard (docs/contracts.md §14).
      [`const out = []; for (const o of [new Map(), new Set(), new ArrayBuffer(1), new Uint8Array(1)]) { try { Object.setPrototypeOf(Object.preventExtensions(o), {}); } catch (e) { out.push(e.message); } } return out.join("|");`, "[object Map] is not extensible|[object Set] is not extensible|[object ArrayBuffer] is not extensible|[object Uint8Array] is not extensible"],
      // A computed field of a class whose base constructor returns the same object twice (no private field).
      [`class B { constructor(o) { return o; } } const k = "a"; class C extends B { [k] = 1; [k + "f"] = () => 1; } const o = {}; new C(o); new C(o); return o.a + " " + o.af.name;`, "1 af"],
      // Sanitizing a message full of meter names is linear in its length (it was quadratic, past the clock).
      [`const u = "__chain" + "sim("; const k = u.repeat(20000); try { undefined[k]; } catch (e) { return String(e.message.length); }`, "420045"],
      // An error class cut from Error.prototype, and a message V8 cut short inside instrumented text.
      [`"use strict"; Object.setPrototypeOf(TypeError.prototype, null); function f(a = g(1)) { return 1; } try { f.name = 1; } catch (e) { return Object.getOwnPropertyDescriptor(e, "message").value; }`, "Cannot assign to read only property 'name' of function 'function f(a = (intermediate value)) { [native code] }'"],
      ...[60, 72, 87].map((n): [string, string] => [`"use strict"; function f(${"a".repeat(n)}, a = g(1)) { return 1; } try { f.name = 1; } catch (e) { return /__ch|\\(\\d/.test(e.message) ? e.message : "clean"; }`, "clean"]),
    ];
    for (const [body, expected] of cases) expect((await query(body)).value, body).to.equal(expected);
  });

  describe("what crosses to the host is charged before V8 escapes it, and read once (twenty-third review of 2026-11-26)", () => {
    /** Runs `body` as a transaction's main with the validators' 1 s clock; `answer` is the host's. */
    async function transact(body: string, answer: (name: string, args: unknown[]) => unknown = () => false) {
      const calls: [string, unknown[]][] = [];
      const request: ExecutionRequest = {
        code: `function init() {} function main(input) { ${body} }`,
        entry: "main",
        input: "",
        env: ENV,
        language: "javascript",
        readOnly: false,
        depth: 0,
        host: { call: async (name, args) => (calls.push([name, args]), answer(name, args)) },
        meter: { used: 0, limit: DEFAULT_CONTRACT_LIMITS.steps, exhausted: false },
        deadline: performance.now() + DEFAULT_CONTRACT_LIMITS.timeMs,
        log: () => {},
      };
      try {
        return { value: (await runtime.execute(request)).value, calls, steps: request.meter.used };
      } catch (error) {
        if (!(error instanceof ContractFailure)) throw error;
        return { failure: error, calls, steps: request.meter.used };
      }
    }
    const ends = (failure: ContractFailure | undefined, exception: string) => {
      expect(failure).to.be.instanceOf(ContractFailure);
      expect(failure).to.not.be.instanceOf(GuardTripped);
      expect([failure!.code, failure!.exception]).to.deep.equal([155, exception]);
    };

    it("charges a built-in's arguments of lone surrogates before V8 escapes them (six code units each)", async () => {
      // 4 Mi lone surrogates in four arguments were 100 MB of escapes past V8's heap; in two, 0.45 s.
      const { failure, calls } = await transact(`const s = "\\ud800".repeat(4 * 1024 * 1024); Chain.payAsset(s, s, "c", "1", s, s);`);
      ends(failure, "Step exceeding limit");
      expect(calls).to.have.length(0);
      ends((await transact(`const s = "\\u0001".repeat(1024 * 1024); Chain.payCoin(s, "1");`)).failure, "Memory exceeding limit");
    });

    it("charges a host's answer by its JSON text and its lone surrogates, and keeps what it holds in the memory model", async () => {
      const load = (value: string) => (name: string) => (name === "load" ? value : false);
      // 87,381 lone surrogates (a stored value's most) took 5.7 ms a load to escape and parse, for 121 steps.
      const once = async (value: string) => (await transact(`Chain.load("k"); return "" + Chain.load("k").length;`, load(value))).steps;
      expect(await once("\ud800".repeat(87381))).to.be.at.least(2 * (100 + (32 * 87381) / 4096));
      expect(await once("\u00e9".repeat(1e6))).to.be.at.least(2 * (100 + 1e6 / 4096));
      ends((await transact(`for (;;) Chain.load("k");`, load("\ud800".repeat(87381)))).failure, "Step exceeding limit");
      // 200 loads of a million code units: 400 MB kept, where the model had seen none of it.
      ends((await transact(`const keep = []; for (let i = 0; i < 200; i++) keep.push(Chain.load("k")); return "" + keep.length;`, load("\u00e9".repeat(1e6)))).failure, "Memory exceeding limit");
    });

    it("reads an asset key's issuer and code once, and hands the host a plain copy of two strings", async () => {
      // A getter answered a string to the check and a self-referencing object to the encoding: V8's stack overflowed.
      const { value, calls } = await transact(`let n = 0; const inner = { code: "c" }; inner.issuer = inner; const v = { get issuer() { return ++n === 1 ? "i" : inner; }, code: "c" }; return Chain.getAccountAsset("a", v) + " " + n;`, () => "7");
      expect(value).to.equal("7 1");
      expect(calls).to.deep.equal([["getAccountAsset", ["a", { issuer: "i", code: "c" }]]]);
    });

    it("charges Utils.toBaseUnit's scan of its argument by its length", async () => {
      // A 4 Mi-unit string was 16 ms of scanning for the call's flat price: a budget of them reached the clock.
      ends((await transact(`const s = "1".repeat(4194300) + "x"; for (;;) { try { Utils.toBaseUnit(s); } catch (e) {} }`)).failure, "Step exceeding limit");
    });
  });

  it("charges a RegExp made 3,072 units however small, and a Set's iterator 2 units per deleted entry its table holds (review of 2026-11-27)", async () => {
    const literals = (n: number) => query(`for (let i = 0; i < ${n}; i++) { ${"/a/;".repeat(100)} } return "made";`);
    const regexps = (await literals(40)).steps - (await literals(0)).steps;
    expect(regexps).to.be.at.least(Math.floor((4000 * 3072) / DEFAULT_CONTRACT_LIMITS.sizeUnit));
    // 24,575 deleted entries ahead of 8,193 live ones (the table does not shrink): 2 units each per iterator.
    const iterators = (n: number) =>
      query(`const N = 32768; const arr = [...Array(N).keys()]; const s = new Set(arr); arr.slice(0, N - 8193).forEach(s.delete, s); for (let i = 0; i < ${n}; i++) s.values(); return "made";`);
    const holes = (await iterators(40)).steps - (await iterators(0)).steps;
    expect(holes).to.be.at.least(Math.floor((40 * 2 * 24575) / DEFAULT_CONTRACT_LIMITS.sizeUnit));
  });

  it("charges a Set's or Map's operations on numbers by the numbers in their bucket, as V8 grows, purges and shrinks its table (twenty-third review of 2026-11-26)", async () => {
    const build = async (keys: number[]) => (await query(`const s = new Set(${JSON.stringify(keys)}); return "" + s.size;`)).steps;
    const spread = Array.from({ length: 2000 }, (_, i) => i);
    // Each add walks the numbers before it in its bucket: 2,000²/2 units, about 490 steps. These agree in
    // their low 10 bits only: one bucket of V8's table of 2,048 entries, two of a table twice that size.
    const tenBits = colliding(2000, (i) => i, (key) => intHash(key) << 4);
    expect((await build(tenBits)) - (await build(spread))).to.be.at.least(400);
    // Deleted entries stay in their chains until V8 rebuilds the table: 100 lookups down 2,048 of them (a
    // table of 8,192 entries, kept from shrinking by 4,096 others), 50 steps.
    const others = JSON.stringify(Array.from({ length: 4096 }, (_, i) => -i - 0.5));
    const lookups = async (count: number) =>
      (await query(`const d = ${JSON.stringify(COLLIDING_INTS.slice(0, 2048))}; const s = new Set(d.concat(${others})); for (const k of d) s.delete(k); for (let i = 0; i < ${count}; i++) s.has(${COLLIDING_INTS[16384]}); return "" + s.size;`)).steps;
    expect((await lookups(100)) - (await lookups(0))).to.be.at.least(140);
    const { value } = await query(`const out = []; try { new Set(5); } catch (e) { out.push(e.message); } try { new Map([1]); } catch (e) { out.push(e.message); } class S extends Set { add(v) { out.push("add " + v); return super.add(v * 2); } } out.push([...new S([1, 2])].join()); const m = new Map([[1, "a"], [NaN, "n"], [-0, "z"]]); out.push(m.get(0), m.get(NaN), m.size); const s2 = new Set([1, 1, 2]); s2.delete(1); s2.clear(); s2.add(3); out.push(s2.size, s2.has(3)); try { Set.prototype.add.call(new Map(), 1); } catch (e) { out.push(e.message); } const it = { [Symbol.iterator]() { let i = 0; return { next: () => ({ done: i > 2, value: [i++, "v"] }), return() { out.push("closed"); return {}; } }; } }; out.push(new Map(it).size); try { new Map({ [Symbol.iterator]() { return { next: () => ({ done: false, value: 7 }), return() { out.push("closed"); return {}; } }; } }); } catch (e) { out.push(e.message); } return out.join("|");`);
    expect(value).to.equal("number 5 is not iterable (cannot read property Symbol(Symbol.iterator))|Iterator value 1 is not an entry object|add 1|add 2|2,4|z|n|3|1|true|Method Set.prototype.add called on incompatible receiver [object Map]|3|closed|Iterator value 7 is not an entry object");
  });

  describe("prototype chains end at 32 levels, by every route that links one (docs/contracts.md §13)", () => {
    /** guards/kit.ts CHAIN_LIMIT: 256 until the twenty-third review of 2026-11-26 (element misses walk it all). */
    const CHAIN = 32;
    // Found on 2026-11-26: 5,000 classes, each extending the last, cost a step each, and converting an
    // instance to a string then walked the chain three times: 0.76 of the clock for one budget.
    const chainOf = (n: number, link: string) => `let last = {}; for (let i = 0; i < ${n}; i++) { ${link} } return "linked";`;
    const twoChains = `const mk = () => { let r = {}, l = r; for (let i = 0; i < ${(CHAIN * 3) / 4}; i++) l = Object.create(l); return [r, l]; }; const [r1] = mk(); const [, l2] = mk();`;
    const routes: [string, string][] = [
      ["Object.create", chainOf(300, "last = Object.create(last);")],
      ["Object.create with descriptors", chainOf(300, "last = Object.create(last, { x: { value: i } });")],
      ["classes, each extending the last", `let C = class {}; for (let i = 0; i < 300; i++) C = class extends C {}; return "linked";`],
      ["constructors' statics, by setPrototypeOf", `let C = class {}; for (let i = 0; i < 300; i++) { const D = class {}; Object.setPrototypeOf(D, C); C = D; } return "linked";`],
      ["new, with the function's prototype the last object", `function F() {} ${chainOf(300, "F.prototype = last; last = new F();")}`],
      ["new of a bound function", `function F() {} ${chainOf(300, "F.prototype = last; last = new (F.bind(null))();")}`],
      ["an object literal's __proto__", chainOf(300, "last = { __proto__: last, i };")],
      ["Object.assign through the __proto__ setter", chainOf(300, `last = Object.assign({}, { ["__proto__"]: last });`)],
      ["Reflect.construct with a newTarget", `function G() {} class B {} ${chainOf(300, "G.prototype = last; last = Reflect.construct(B, [], G);")}`],
      ["Reflect.construct of a native", `function G() {} ${chainOf(300, "G.prototype = last; last = Reflect.construct(Map, [], G);")}`],
      ["a derived constructor keeping this and returning another object", `const keep = []; function G() {} class B {} class D extends B { constructor() { super(); keep.push(this); return {}; } } ${chainOf(300, "G.prototype = last; Reflect.construct(D, [], G); last = keep[keep.length - 1];")}`],
      ["a base constructor keeping this", `const keep = []; function G() {} class B { constructor() { keep.push(this); return {}; } } ${chainOf(300, "G.prototype = last; Reflect.construct(B, [], G); last = keep[keep.length - 1];")}`],
      ["a proxy constructor answering any prototype", `const P = new Proxy((class {}).bind(), { get: (t, k) => (k === "prototype" ? last : Reflect.get(t, k)) }); ${chainOf(300, "last = new P();")}`],
      ["a class extending such a proxy", `const P = new Proxy((class {}).bind(), { get: (t, k) => (k === "prototype" ? last : Reflect.get(t, k)) }); ${chainOf(300, "last = (class extends P {}).prototype;")}`],
      ["species constructors", `${chainOf(300, "function S() {} S.prototype = last; const a = [1]; a.constructor = { [Symbol.species]: S }; last = a.map((x) => x);")}`],
      ["proxies in the chain", chainOf(300, "last = Object.create(new Proxy(last, {}));")],
      ["joining two chains with setPrototypeOf", `${twoChains} Object.setPrototypeOf(r1, l2); return "joined";`],
      ["joining two chains with the __proto__ setter", `${twoChains} r1.__proto__ = l2; return "joined";`],
      ["joining through a proxy without a trap", `${twoChains} Object.setPrototypeOf(new Proxy(r1, {}), l2); return "joined";`],
      ["joining through a proxy's trap", `${twoChains} Object.setPrototypeOf(new Proxy(r1, { setPrototypeOf: (t, p) => Reflect.setPrototypeOf(t, p) }), l2); return "joined";`],
      // The sixth review: the object being constructed escaping before any check (a parameter default, a field).
      ["an object escaping its constructor's parameter default", `let esc; function F(a = (esc = this, null.x)) {} ${chainOf(300, "F.prototype = last; try { new F(); } catch (e) {} last = esc;")}`],
      ["an object escaping a class field initialiser", `let esc; class A { x = (esc = this, null.x); } function G() {} ${chainOf(300, "G.prototype = last; try { Reflect.construct(A, [], G); } catch (e) {} last = esc;")}`],
      ["a function's prototype set by defineProperty", `function F() {} ${chainOf(300, "Object.defineProperty(F, 'prototype', { value: last }); last = new F();")}`],
      ["a function's prototype set by destructuring", `function F() {} ${chainOf(300, "({ p: F.prototype } = { p: last }); last = new F();")}`],
      // Review of 2026-11-27: a newTarget whose `prototype` a trap or getter answers differently to V8's own read.
      ["Reflect.construct with a proxy newTarget answering deeper each time", `const h = []; h.get = [].pop; const T = new Proxy(function () {}, h); const s = {}; ${chainOf(300, "h.push(last, s); last = Reflect.construct(Object, [], T);")}`],
      ["the same, the constructor keeping this and throwing", `const h = []; h.get = [].pop; const T = new Proxy(function () {}, h); const s = {}; let kept; function C() { kept = this; throw 0; } ${chainOf(300, "h.push(last, s); try { Reflect.construct(C, [], T); } catch (e) {} last = kept;")}`],
      ["the same, the constructor answering a proxy of this", `const h = []; h.get = [].pop; const T = new Proxy(function () {}, h); const s = {}; function C() { return new Proxy(this, {}); } ${chainOf(300, "h.push(last, s); last = Reflect.construct(C, [], T);")}`],
      ["moving a class's prototype, instances under it", `class A {} const a = new A(); let l = {}; for (let i = 0; i < ${CHAIN - 2}; i++) l = Object.create(l); Object.setPrototypeOf(A.prototype, l); return "moved";`],
    ];
    it("refuses a getter as a function's prototype (V8 reads it as it constructs; bound functions and arrows have none of their own)", async () => {
      const { value } = await query(`const T = function () {}.bind(); try { Object.defineProperty(T, "prototype", { get: () => ({}) }); return "defined"; } catch (e) { return e.name + ": " + e.message; }`);
      expect(value).to.equal("TypeError: A getter as a function's prototype is not allowed in contracts");
    });

    it("counts a computed member as 4 syntax nodes: 300 element reads that miss cost 9 steps more than 3 nodes each would", async () => {
      const { steps } = await query(`const o = Object.create({}); ${"o[0], ".repeat(300)}0; return "read"`);
      expect(steps).to.be.at.least(Math.floor((300 * (4 + 1)) / 128));
    });

    for (const [name, body] of routes) {
      it(`${name}: 155 Prototype chain exceeding limit`, async () => {
        const { value, failure } = await query(`try { ${body} } catch (e) { return "caught " + e; }`);
        expect(failure, `answered ${String(value)}`).to.be.instanceOf(ContractFailure);
        expect([failure!.code, failure!.exception]).to.deep.equal([155, "Prototype chain exceeding limit"]);
      });
    }

    it(`a chain of ${CHAIN} works, and so do ordinary constructors, classes, mixins and prototypes moved`, async () => {
      const { value } = await query(
        `let C = class {}; for (let i = 0; i < ${CHAIN - 2}; i++) C = class extends C {}; const o = new C(); let d = 0; for (let p = Object.getPrototypeOf(o); p !== null; p = Object.getPrototypeOf(p)) d++;` +
          ` let q = {}; for (let i = 0; i < ${CHAIN - 1}; i++) q = Object.create(q);` +
          ` class A { constructor(x) { this.x = x; } } class B extends A { constructor() { super(2); } } function F() { this.y = 3; } let n = 0; for (let i = 0; i < 300; i++) n += new B().x + new F().y;` +
          ` const mixin = { hi() { return 7; } }; const m = Object.create(Object.setPrototypeOf({}, mixin)); Object.setPrototypeOf(A.prototype, mixin);` +
          ` return [d, o instanceof C, n, m.hi(), new B().hi(), { __proto__: mixin }.hi(), { ["__proto__"]: 1 }.__proto__ === 1].join();`,
      );
      expect(value).to.equal(`${CHAIN},true,1500,7,7,7,true`);
    });
  });

  it("meters the top level: its straight-line code, and the TypeErrors it catches (seventh review of 2026-11-26)", async () => {
    // Unmetered, 2,000 caught TypeErrors at the top level of a 40 KB contract each parsed it again: 0.5 to 12 s.
    const { failure } = await query(`return "ran"`, `var n = 0; ${"try { n(); } catch (e) {} ".repeat(2000)}`);
    expect([failure?.code, failure?.exception]).to.deep.equal([155, "Step exceeding limit"]);
    const { value, steps } = await query(`return String(a)`, `var a = 0; ${"a = a + 1; ".repeat(1999)}`);
    expect(value).to.equal("1999");
    expect(steps).to.be.greaterThan(90); // 1 per 128 syntax nodes of the top level, beyond query's own
  });

  it("converts a size once: V8 gets the number that was charged (ArrayBuffer, resize, fill)", async () => {
    // Found by the adversarial review of 2026-11-25: a valueOf answering 0 to the charge and 1e8 to V8.
    const twoFaced = `let c = 0; const size = { valueOf() { return c++ ? 1e8 : 16; } };`;
    const { value } = await query(`${twoFaced} const b = new ArrayBuffer(size); const r = new ArrayBuffer(0, { maxByteLength: 1e8 }); c = 0; r.resize(size); c = 0; const a = []; a[100] = 0; a.fill(1, { valueOf() { return c++ ? 0 : 99; } }); return [b.byteLength, r.byteLength, a.indexOf(1), c].join()`);
    expect(value).to.equal("16,16,99,1");
  });

  it("every built-in, as its own object's conversions and getters and called on it, ends on a model, never on V8's stack", async () => {
    // Found by the review of 2026-11-25: a native whose work reads what a contract controls can be what it
    // reads (`o.toString = String.prototype.trim`), recursing with no contract frame. Every function reachable
    // from the globals (and their prototypes) is tried.
    const listing = await query(`const out = []; const seen = new Set(); for (const g of Object.getOwnPropertyNames(globalThis)) { const v = globalThis[g]; if (v === null || (typeof v !== "object" && typeof v !== "function")) continue; for (const [owner, path] of [[v, g], [v.prototype, g + ".prototype"]]) { if (owner === null || (typeof owner !== "object" && typeof owner !== "function")) continue; for (const k of Reflect.ownKeys(owner)) { const d = Reflect.getOwnPropertyDescriptor(owner, k); for (const [kind, f] of [["value", d.value], ["get", d.get], ["set", d.set]]) if (typeof f === "function" && !seen.has(f)) { seen.add(f); out.push([path, typeof k === "symbol" ? k.description : k, typeof k === "symbol", kind]); } } } } return JSON.stringify(out);`);
    const functions = JSON.parse(listing.value as string) as [string, string, boolean, string][];
    expect(functions.length).to.be.above(300);
    const trips: string[] = [];
    for (const [path, key, symbol, kind] of functions) {
      const F = `Reflect.getOwnPropertyDescriptor(${path}, ${symbol ? key : JSON.stringify(key)}).${kind}`;
      const { failure } = await query(`const F = ${F}; const o = {}; for (const k of ["toString", "valueOf", "join", Symbol.toPrimitive]) o[k] = F; for (const k of [Symbol.toStringTag, "name", "message", "source", "flags", "global", "length", "constructor", "exec", "lastIndex", "0", "next", "done", "value", Symbol.iterator]) Object.defineProperty(o, k, { get: F, configurable: true }); try { F.call(o, o, o); } catch (e) {} try { new F(o); } catch (e) {} return "ok";`);
      if (failure instanceof GuardTripped) trips.push(`${path}.${key} (${kind}): ${failure.exception}`);
    }
    expect(trips).to.deep.equal([]);
  });

  it("counts a proxy's handler in its chain: a handler that is a proxy of a proxy… is refused past 64", async () => {
    const { failure } = await query(`let h = {}; for (let i = 0; i < 5000; i++) h = new Proxy({}, h); return String(new Proxy({}, h).foo)`);
    expect(failure?.exception).to.match(/^TypeError: Chains of more than 64 proxies or bound functions are not allowed in contracts/);
  });

  it("reads a length that answers differently on a second read once, for the charge and for V8 alike", async () => {
    const lying = `let r = 0; const o = { get length() { return r++ ? 9007199254740991 : 0; } };`;
    for (const use of ["new Uint8Array(o).length", "Reflect.apply(function () { return arguments.length; }, null, o)", "Array.prototype.indexOf.call(o, 1)", "Array.from(o).length", "[].concat(Object.assign(o, { [Symbol.isConcatSpreadable]: true })).length"]) {
      const { value, failure } = await query(`${lying} return String(${use}) + ":" + r;`);
      expect(failure?.exception, use).to.equal(undefined);
      expect(value, use).to.match(/^(0|-1):1$/);
    }
  });

  describe("what the guards replace means what plain JavaScript means", () => {
    // Each body runs in the contract runtime and in a plain V8 context; the answers must be equal.
    const ordinary = [
      `return [1, [2, [3, [4]]], null, undefined, "x"].join("|") + [].concat(1, [2, 3], [[4]], { length: 1, 0: 5, [Symbol.isConcatSpreadable]: true }).join();`,
      `class A extends Array {} const a = A.from([1, 2]).concat([3]); return String(a instanceof A) + a.length + A.of(7).concat(8).constructor.name;`,
      `const sparse = [1, , 3]; const c = sparse.concat([, 5]); return String(c.length) + (1 in c) + (3 in c) + c.flat().length;`,
      `const log = []; const h = { getOwnPropertyDescriptor(t, k) { log.push(String(k)); return Reflect.getOwnPropertyDescriptor(t, k); } }; const p = new Proxy({ b: 1 }, h); Proxy.revocable({}, h); new WeakMap([[p, 1]]).get(p); new WeakSet([p]).has(p); (function () {}).bind(p); return log.join() + "|" + Object.getOwnPropertyDescriptor(p, "b").value;`,
      `const log = []; const o = (v, n) => ({ toString() { log.push(n); return v; } }); const lim = { valueOf() { log.push("limit"); return 2; } }; const r = ["abcabc".indexOf(o("c", "i")), "abcabc".lastIndexOf(o("b", "l")), "abc".includes(o("b", "inc")), "a,b,c".split(o(",", "sep"), lim).join("|"), "abab".replace(o("b", "rep"), "X"), "abab".replaceAll(o("b", "all"), "Y"), "abc".split(undefined).length, "a-null-b".split(null).join("|")]; const errs = []; for (const f of [() => "a".includes(/a/), () => "a".replaceAll({ [Symbol.match]: true, flags: "x", toString() { return "a"; } }, "b"), () => "a".replaceAll({ [Symbol.match]: true, flags: null }, "b"), () => "a".replaceAll({ [Symbol.match]: true, flags: "g", toString() { return "a"; } }, "b"), () => "a".includes({ [Symbol.match]: false, toString() { return "a"; } }), () => "aXa".replaceAll(/a/g, "b")]) { try { errs.push(String(f())); } catch (e) { errs.push(e.name + ":" + e.message); } } const b = new ArrayBuffer(2, { maxByteLength: 8 }); b.resize(6); const c = new ArrayBuffer(2, { get maxByteLength() { log.push("max"); return undefined; } }); return [r.join(), errs.join("|"), log.join(), b.byteLength, b.maxByteLength, b.resizable, c.resizable, "e\\u0301\\u0323".normalize("NFC").length, "\\u1e0b\\u0323".normalize("NFD").length, "x\\u0301\\u0302\\u0303\\u0304\\u0323".normalize("NFC").length, JSON.stringify(JSON.parse('[{"a":[1,{}]},[]]'))].join(";");`,
      `const log = []; const o = { get p() { log.push("get"); return { valueOf() { log.push("valueOf"); return 5; }, toString() { log.push("toString"); return "9"; } }; }, set p(v) { log.push("set " + v); } }; const a = o.p++; const b = --o.p; const k = { toString() { log.push("key"); return "q"; } }; const q = { q: "7" }; const c = q[k]++; const t = { [Symbol.toPrimitive](hint) { log.push(hint); return 2; } }; const u = { t }; u.t++; const errs = []; for (const f of [() => { const w = { s: Symbol() }; w.s++; }, () => { const w = { o: { valueOf: () => ({}), toString: () => ({}) } }; w.o--; }]) { try { f(); } catch (e) { errs.push(e.name + ":" + e.message); } } return [a, b, c, q.q, u.t, log.join(), errs.join("|")].join(";");`,
      `const log = []; const v = (n, r) => ({ valueOf() { log.push(n); return r; } }); const o = { get p() { log.push("get"); return v("lval", 10); }, set p(x) { log.push("set " + x); } }; const r1 = (o.p -= (log.push("rhs"), v("rval", 3))); const a = [1, 2]; const k = { toString() { log.push("key"); return "1"; } }; a[k] **= 3; a.length -= 1; const z = {}; z.q |= 5; const errs = []; for (const f of [() => { null.p -= 1; }, () => { const w = Object.freeze({ p: 1 }); w.p -= 1; }, () => { undefined[0] *= 2; }, () => { const w = { p: Symbol() }; w.p -= 1; }]) { try { f(); errs.push("ok"); } catch (e) { errs.push(e.name + ":" + e.message); } } return [r1, a.join(), z.q, log.join(), errs.join("|")].join(";");`,
      `const log = []; let n = 0; const once = { get [Symbol.split]() { n++; return function () { return ["own"]; }; } }; const r = ["abc".split(once).join(), n]; Number.prototype[Symbol.replace] = function () { return "num"; }; Number.prototype[Symbol.split] = function () { return ["num"]; }; r.push("a5c".replace(5, "x"), "a5c".split(5).join()); delete Number.prototype[Symbol.replace]; delete Number.prototype[Symbol.split]; const p = { get [Symbol.match]() { log.push("match"); return true; }, get flags() { log.push("flags"); return "g"; }, get [Symbol.replace]() { log.push("replace"); return undefined; }, toString() { log.push("toString"); return "b"; } }; r.push("abc".replaceAll(p, "x")); const q = { get [Symbol.replace]() { log.push("replace"); return undefined; }, toString() { log.push("toString"); return "b"; } }; r.push(String.prototype.replace.call({ toString() { log.push("this"); return "abc"; } }, q, "x")); try { "abc".split({ toString() { log.push("sep"); return "b"; } }, Symbol()); } catch (e) { r.push(e.message); } for (const f of [() => "a".matchAll({ [Symbol.match]: true, flags: "x" }), () => "a".matchAll({ [Symbol.match]: true, flags: null }), () => "a".replace({ [Symbol.replace]: 1 }, ""), () => [..."a1b22".matchAll("\\\\d")].length, () => "aXbX".split("X", 1), () => "abc".search("c"), () => "a.b".match(".").index, () => "abc".replace(undefined, "x"), () => "a-null".split(null)]) { try { r.push(String(f())); } catch (e) { r.push(e.name + ":" + e.message); } } String.prototype[Symbol.split] = function (s, lim) { return ["custom", typeof lim]; }; r.push("abc".split("b", { valueOf() { return 3; } }).join()); delete String.prototype[Symbol.split]; return [r.join("|"), log.join()].join(";");`,
      `const long = "x".repeat(300) + "y"; const text = "a" + long + "b" + long + "c"; const r = []; for (const [t, p, at] of [["abcabc", "c", undefined], ["abcabc", "c", 3], ["abcabc", "", 4], ["abc", "", 9], ["abc", "c", -5], ["abc", "c", NaN], ["abc", "c", Infinity], ["abc", "c", "2"], [text, long, 0], [text, long, 5], [text, long, 400], [text, long + "z", 0], ["aaaa", "aa", 1], ["aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "a".repeat(20), undefined], ["aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "a".repeat(20), 5]]) r.push(t.indexOf(p, at), t.lastIndexOf(p, at), t.includes(p, at)); r.push(text.split(long).join("|"), text.replace(long, "R").length, text.replaceAll(long, "R")); const b = new ArrayBuffer(8); const v = new DataView(b, 2); v.setInt8(0, 7); const t = new Int8Array(b); r.push(t.at(-6), t.subarray(2, 3)[0], v.byteOffset, v instanceof DataView, DataView.name, DataView.length); r.push(JSON.stringify(JSON.parse('{"a[":"]\\\\\\"{","b":[{"c":"["}]}'))); let n = 0; for (let i = 0; i < 3; i++) { try { new ArrayBuffer(0, { maxByteLength: 2 ** 33 }); } catch (e) { n++; r.push(e.name + ":" + e.message); } } r.push(n); return r.join(",");`,
      `const r = []; for (const [t, p, v] of [["abcabc", "b", "X"], ["abc", "", "-"], ["", "", "-"], ["aaa", "aa", "[$&|$\`|$'|$$|$1]"], ["abcabc", "c", (m, i, s) => m + i + s.length], ["abc", "z", "Q"], ["a.b.c", ".", "$"], ["x", "x", "$<n>"]]) r.push(t.replace(p, v), t.replaceAll(p, v)); let k = 0; const f = (m) => m + m; Object.defineProperty(Object.prototype, Symbol.replace, { get() { return k++ ? function (s, w) { return [typeof w, w === f]; } : undefined; }, configurable: true }); r.push("a,b".replace(",", f), "a,b".replaceAll(",", f), k); delete Object.prototype[Symbol.replace]; return r.join("|");`,
      `class A { #p = 5; #q = "7"; get #g() { return this.#p; } set #g(v) { this.#p = v * 10; } run() { const a = this.#p++; const b = ++this.#p; this.#q -= 2; this.#g++; this.#g **= 2; return [a, b, this.#p, this.#q, typeof this.#q].join(); } } class B { get p() { return 2; } set p(v) { this.q = v; } } class C extends B { run() { super.p++; const x = super.p--; super.p **= 3; return [x, this.q, this.p].join(); } } return new A().run() + "|" + new C().run();`,
      `return [[1, [2, [3, [4, [5]]]]].flat(2), [[1, [2]]].flat(Infinity)].map(String).join("/");`,
      `return JSON.stringify({ a: [1, "x", null, true, { b: -0 }], c: new Number(3), d: undefined, e: () => 1, f: NaN, toString() {} }, null, 2);`,
      `return JSON.stringify({ a: 1, b: [1, 2], c: { d: 3 } }, ["a", "c", "d", 1]) + JSON.stringify([{ x: 1 }], (k, v) => (typeof v === "number" ? v * 2 : v), "--");`,
      `return JSON.stringify({ toJSON(k) { return "key:" + k; } }) + JSON.stringify(new Uint8Array([1, 2])) + JSON.stringify("\\u2028\\ud800");`,
      `return "abcabc".replace(/(?<x>b)(c)?/g, "[$<x>|$1|$2|$3|$01|$&|$\`|$'|$$|$<y>|$0]") + "x".replace("x", "$<a>$1$&$$");`,
      `return "aaa".replaceAll("", "-") + "a.b.c".replaceAll(".", "$&$&") + "abc".replace(/(b)/, "$10$11$1a");`,
      `return "abcb".replace(/b/g, (m, offset, whole) => m.toUpperCase() + offset + whole.length) + "2020-10".replace(/(?<y>\\d+)-(?<m>\\d+)/, (...a) => JSON.stringify(a[a.length - 1]));`,
      `const r = /a/y; r.lastIndex = 1; return "baab".replace(r, "X") + r.lastIndex + "aXbX".split("X").join() + "a1b2".split(/\\d/, 1);`,
      `return String.raw\`a\\n\${1}b\${2}\` + String.raw({ raw: ["x", "y", "z"] }, 1) + String.raw({ raw: "abc" }, "-", "+", "*");`,
      `function f() { return [this === undefined, arguments.length, ...arguments].join(); } return f.apply(undefined, { length: 3, 0: "a", 2: "c" }) + Reflect.apply(f, undefined, new Uint8Array([4, 5])) + f.apply(null);`,
      `class B { constructor(...a) { this.a = a; } } class C extends B {} const o = Reflect.construct(B, [1, 2], C); return String(o instanceof C) + o.a;`,
      `const e = new RangeError("r", { cause: 1 }); class MyError extends TypeError {} const m = new MyError("m"); return [e instanceof RangeError, e instanceof Error, e.name, e.message, e.cause, m instanceof TypeError, m.name, Error("x").message, new AggregateError([1, 2], "ag").errors.length, RangeError.prototype.constructor === RangeError].join();`,
      `const s = new Set("hello"); const m = new Map([[1, "a"], [2, "b"]]); class S extends Set {} const w = new WeakMap([[m, 1]]); return [...s].join("") + m.size + new Map(m).get(2) + new S([1, 1, 2]).size + (new S() instanceof S) + w.get(m) + new Set(m.keys()).size;`,
      `const t = new Int16Array([1, -2, 3]); const u = new Uint8Array(new ArrayBuffer(8), 2, 3); return [t.join(), u.length, new Float32Array(new Set([1.5, 2])).join(), new Uint8Array({ length: 2, 0: 7 }).join(), Int8Array.from([1, 2], (x) => x * 3).join(), t.map((x) => x * 2).join(";"), String(t), t.toSorted().join()].join("/");`,
      `return Array.from({ length: 3 }, (_, i) => i * i).join() + Array.from("héllo").length + Array.from(new Map([[1, 2]])).join() + Object.entries(Object.fromEntries(new Map([["a", 1]]))).join();`,
      `const proto = { inherited: 1 }; const o = Object.create(proto); o.own = 2; const keys = []; for (const k in o) keys.push(k); for (const k in [5, 6]) keys.push(k); for (const k in "ab") keys.push(k); return keys.join();`,
      `const { a, ...rest } = { a: 1, b: 2, c: 3 }; const [x, ...others] = new Set([1, 2, 3]); let p, q; ({ p, ...q } = { p: 1, r: 2 }); return JSON.stringify([rest, x, others, p, q]);`,
      `let closed = 0; const iterable = { [Symbol.iterator]() { let i = 0; return { next: () => ({ value: i++, done: i > 5 }), return() { closed++; return {}; } }; } }; for (const v of iterable) { if (v === 1) break; } const [first] = iterable; return String(closed) + first + Array.from(iterable).length + new Set(iterable).size;`,
      `return "\\u1e9b\\u0323".normalize("NFKD").length + "," + escape("ä b") + "," + encodeURIComponent("a b&ü") + "," + decodeURIComponent("%C3%BC") + "," + "x".anchor('a"b') + "x".bold();`,
      `function f(x = (1, 2)) { return x; } class K { y = (3, 4); } const o = { ...(0, { z: 5 }) }; const keys = []; for (const k in (0, { w: 1 })) keys.push(k); return [f(), new K().y, o.z, keys, ((...a) => a.length)(...(0, [6, 7]))].join();`,
      `class A extends Array { static get [Symbol.species]() { return Array; } } const a = A.from([1, [2]]); return [a.concat(3) instanceof A, a.flat() instanceof A, a.flat().length, A.of(1).concat([2]).constructor.name].join();`,
      `class B extends Array {} const b = B.from([[1], [2]]); return [b.flat() instanceof B, b.flat().join(), [[1]].flat(-1).length].join();`,
      `const r = /a/ymg; const s = new RegExp(r); return [r.flags, s.flags, RegExp(r) === r, new RegExp(r) === r, RegExp(r, "g") === r, new RegExp({ source: "b+", flags: "g", [Symbol.match]: true }).flags, new RegExp("x", "gy").toString(), String(/q/gs)].join();`,
      `const out = []; for (const f of ["gg", "z", "gy y"]) { try { new RegExp("a", f); } catch (e) { out.push(e.name + ":" + e.message); } } return out.join("|");`,
      `const s = Symbol("s"); const out = []; for (const t of [() => [s].join(), () => "a".padEnd(3, s), () => "a".replace("a", s), () => String.raw({ raw: ["a", "b"] }, s), () => new RegExp(s), () => "x".concat(s), () => "abc".split(s)]) { try { out.push(t()); } catch (e) { out.push(e.name); } } return out.join();`,
      `function g() {} g.toJSON = () => "fn"; const bool = new Boolean(false); bool.valueOf = () => true; const fake = Object.create(Number.prototype); return JSON.stringify({ g, bool, fake, n: Object.assign(new Number(3), { valueOf: () => 4 }), s: new String("t") }) + JSON.stringify([1], null, new Number(2)) + JSON.stringify({ a: 1, 2: 3 }, [new String("a"), new Number(2)]);`,
      `const out = []; try { Reflect.construct(function () {}, [], undefined); } catch (e) { out.push(e.name + ":" + e.message); } try { Reflect.construct(1, []); } catch (e) { out.push(e.name + ":" + e.message); } return out.join("|") + (Reflect.construct(Array, [3]).length) + Reflect.construct.length;`,
      `return [Array.prototype.values === Array.prototype[Symbol.iterator], Set.prototype.values === Set.prototype[Symbol.iterator], Map.prototype.entries === Map.prototype[Symbol.iterator], Set.prototype.keys === Set.prototype.values, typeof Error.stackTraceLimit, Object.getOwnPropertyNames(Error).includes("captureStackTrace")].join();`,
      `const log = []; const h = { get(t, k, r) { log.push(String(k)); return Reflect.get(t, k, r); }, ownKeys(t) { log.push("keys"); return ["b", "a"]; }, getOwnPropertyDescriptor(t, k) { return { value: k, enumerable: true, configurable: true }; } }; const p = new Proxy({ a: 1, b: 2 }, h); h.has = () => false; const { proxy, revoke } = Proxy.revocable({}, {}); revoke(); let revoked; try { proxy.x; } catch (e) { revoked = e.name; } return [p.a, Object.keys(p).join(), JSON.stringify(p), "z" in p, log.join(), revoked, typeof new Proxy(function () { return 1; }, {})].join("|");`,
      `const log = []; const o = (name, v) => ({ valueOf() { log.push(name); return v; }, toString() { log.push(name + "!"); return "s"; } }); const t = { [Symbol.toPrimitive](hint) { log.push(hint); return 2; } }; const r = [o("a", 1) < o("b", 2), o("c", 3) > o("d", 2), o("e", 1) <= o("f", 1), o("g", NaN) >= o("h", 1), o("i", 1) == 1, o("j", 1) == o("j", 1), null == undefined, null == 0, undefined != null, "1" == 1, true == 1, t < 3, t == 2, "b" > "a", "10" < "9", 10 < 9, NaN <= NaN, [2] > 1, (1, 2) === (0, 2), (/* === */ 3) /* < */ !== /* > */ (4)]; let s = ""; for (const v of ["a", "b", 3, "3"]) { switch (v) { case "a": s += "A"; break; case 3: s += "3"; break; default: s += "-"; } } try { Symbol() < 1; } catch (e) { s += e.name + ":" + e.message; } try { ({ [Symbol.toPrimitive]: 1 }) < 1; } catch (e) { s += e.name + ":" + e.message; } try { ({ valueOf: null, toString: null }) == 1; } catch (e) { s += e.name + ":" + e.message; } return r.join() + "|" + log.join() + "|" + s;`,
      `const a = [3, 1, 2]; return a.sort().join() + a.reverse().join() + a.indexOf(2) + a.includes(3) + a.slice(1).join() + [1, 2, 3].fill(0, 1).join() + [1, 2].toReversed().join() + [0].concat().length;`,
      // The Array stand-in (H4): the same constructor by every route, the same answers and errors.
      `const out = []; for (const n of [-1, 1.5, 2 ** 32]) { try { new Array(n); } catch (e) { out.push(e.name + ":" + e.message); } } return [Array.name, Array.length, [].constructor === Array, Array.prototype.constructor === Array, Object.getPrototypeOf(Array) === Object.getPrototypeOf(function () {}), new Array(3).length, 0 in new Array(3), Array(2, 3).join(), Array("3").length, Object.getOwnPropertyNames(Array).join(), Object.getOwnPropertySymbols(Array).length, Array[Symbol.species] === Array, Array.isArray(Array(1)), [] instanceof Array, Reflect.construct(Array, [2]).length, Array.of(7, 8).constructor === Array, Array.from("ab").constructor === Array, String(Array), out.join("|")].join();`,
      `class A extends Array {} const a = new A(3); const m = A.from([1, 2, 3]).map((x) => x * 2); return [a.length, a instanceof A, m instanceof A, m.join(), A.from([1, 2]).slice(1) instanceof A, A.from([1, 2, 3]).splice(1, 1) instanceof A, A.from([1, 2, 3]).filter((x) => x > 1).constructor.name, [1, 2, 3].map((x) => x).constructor === Array, [, 1].slice().hasOwnProperty(0), [1, , 3].map((x) => x).hasOwnProperty(1), [1, 2, 3, 4].splice(1, 2).join(), [[1], [2]].flatMap((x) => x).join()].join();`,
      `class S extends Array { static get [Symbol.species]() { return function (n) { return { n, made: true }; }; } } const s = S.from([1, 2]); const m = s.map((x) => x); return [m.made, m.n, m[1], s.slice(0).n, JSON.stringify(s.filter(() => true))].join();`,
      `const log = []; Object.defineProperty(Array.prototype, 0, { set(v) { log.push(v); }, get() { return "proto"; }, configurable: true }); const r = [[5].concat([6]).join(), [[7]].flat().join(), [...[8, 9]].join(), Array.from([1]).join(), [1, 2].slice(1).join(), [1, 2].map((x) => x).join(), [, 1].concat()[0], [[, 1]].flat().length, [...[, 2]].join()]; delete Array.prototype[0]; return r.join("|") + log.join();`,
      // Bound functions are proxies of V8's (their calls hold a frame): what they mean is V8's.
      `class A { constructor(x) { this.x = x; } } const B = A.bind(null, 7); const f = function (a, b) { return [this, a, b].join(); }.bind("t", 1); const b = new B(); let extendsError; try { class D extends B {} } catch (e) { extendsError = e.message; } return [b instanceof B, b instanceof A, b.x, new A() instanceof B, typeof B, B.name, B.length, "prototype" in B, B.prototype, f(2), f.name, f.length, f.bind(null, 2)(), Object.getPrototypeOf(B) === Object.getPrototypeOf(A), extendsError, Reflect.construct(B, []).x, ["a", "b"].map(String.prototype.toUpperCase.call.bind(String.prototype.toUpperCase)).join()].join();`,
      // Object.defineProperties and Object.create read every descriptor first, in order, then define.
      `const log = []; const props = new Proxy({ b: { value: 2, enumerable: true }, a: { get() { return 1; } }, hidden: { value: 0 } }, { ownKeys(t) { log.push("keys"); return ["b", "a", "hidden"]; }, getOwnPropertyDescriptor(t, k) { log.push("own:" + k); return { value: t[k], enumerable: k !== "hidden", configurable: true }; }, get(t, k) { log.push("get:" + String(k)); return t[k]; } }); const o = Object.defineProperties({}, props); const c = Object.create({ p: 1 }, { q: { value: 2, enumerable: true } }); const errors = []; for (const f of [() => Object.defineProperties({}, { x: 1 }), () => Object.defineProperties({}, undefined), () => Object.defineProperties(1, {}), () => Object.create(1), () => Object.defineProperties(Object.freeze({}), { y: { value: 1 } }), () => Object.defineProperty({}, "z", { get: 1 }), () => ({}).__defineGetter__("w", 1)]) { try { f(); errors.push("ok"); } catch (e) { errors.push(e.name + ":" + e.message); } } const g = {}; g.__defineGetter__("v", function () { return 5; }); return [log.join(), Object.keys(o).join(), o.a, o.b, c.p, c.q, Object.getPrototypeOf(Object.create(null)), errors.join("|"), g.v, Object.getOwnPropertyDescriptor(g, "v").enumerable].join(";");`,
      // Writes to computed keys and lengths (metered, H4): V8's order of conversions, sloppy and strict failures.
      `const log = []; const k = { toString() { log.push("k"); return "x"; } }; const o = {}; o[k] = (log.push("v"), 1); o[k] += (log.push("v"), 1); o[k]++; [o[k]] = [(log.push("v"), 5)]; const frozen = Object.freeze({ x: 1 }); frozen["x"] = 2; const s = "str"; s["y"] = 1; s["length"] = 9; const errors = []; try { null[(log.push("key"), "a")] = (log.push("v"), 1); } catch (e) { errors.push(e.message); } try { undefined["length"] = 1; } catch (e) { errors.push(e.message); } try { null[k] = 1; } catch (e) { errors.push(e.message); } return [log.join(), o.x, frozen.x, s.length, errors.join("|")].join(";");`,
      `return (function () { "use strict"; const out = []; const frozen = Object.freeze({ x: 1, length: 2 }); for (const write of [() => { frozen["x"] = 2; }, () => { frozen.length = 3; }, () => { "str"["y"] = 1; }, () => { "str".length = 1; }, () => { Object.freeze([1]).length = 0; }, () => { const a = []; a.length = -1; }, () => { const a = []; a["length"] = 1.5; }, () => { const a = []; a.length = Symbol(); }, () => { let n = 0; const a = []; a.length = { valueOf: () => n++ }; }, () => { ({ get length() { return 1; } })["length"] = 2; }, () => { Object.preventExtensions([])[0] = 1; }]) { try { write(); out.push("ok"); } catch (e) { out.push(e.name + ":" + e.message); } } return out.join("|"); })();`,
      `const a = [1, 2, 3]; a.length = 1; const log = []; const b = []; b.length = { valueOf() { log.push("v"); return 2; } }; const c = [1, 2]; c["length"] = 5; const frozen = Object.freeze([1]); frozen.length = 5; const t = []; for (t.length of [3]); const r = [0, 1, 2]; r.length--; r.length += 2; r.length ??= 9; r.length &&= 1; return [a.join(), b.length, log.join(), c.length, 4 in c, frozen.length, t.length, r.length, r.join()].join();`,
      `const out = []; const attempt = (f) => { try { out.push(String(f())); } catch (e) { out.push(e.name + ":" + e.message); } }; attempt(() => Reflect.set([], "length", 3)); attempt(() => Reflect.set(Object.freeze([]), "length", 3)); attempt(() => Reflect.set(1, "length", 3)); attempt(() => Reflect.set({}, { toString: () => "length" }, 3)); attempt(() => Object.defineProperty([], "length", { value: 2 }).length); attempt(() => Object.defineProperty(Object.freeze([]), "length", { value: 2 })); attempt(() => Reflect.defineProperty(Object.freeze([]), "length", { value: 2 })); attempt(() => Object.defineProperty([], "length", { get() { return 1; } })); attempt(() => Object.defineProperty([], "length", 5)); attempt(() => Object.defineProperty(1, "length", {})); attempt(() => Object.defineProperty([], "length", { value: -1 })); attempt(() => Object.assign([1, 2, 3], { length: 1 }).join()); attempt(() => Object.assign(Object.freeze([1]), { length: 0 })); attempt(() => Object.assign([], null, { 0: "a" }, "bc").join()); attempt(() => Object.defineProperties([1, 2], { length: { value: 1 }, 5: { value: 9, enumerable: true } }).join()); attempt(() => Object.defineProperties(Object.freeze([]), { length: { value: 4 } })); attempt(() => Object.defineProperties([], { length: { value: 2, writable: false } }).push(1)); return out.join("|");`,
      `const log = []; const d = new Proxy({ value: 3, writable: true }, { has(t, k) { log.push("has:" + k); return k in t; }, get(t, k) { log.push("get:" + String(k)); return t[k]; } }); const a = []; Object.defineProperty(a, "length", d); Reflect.defineProperty(a, "length", d); Object.defineProperty({}, "x", d); const traps = []; const p = new Proxy([], { set(t, k, v, r) { traps.push("set:" + String(k)); return Reflect.set(t, k, v, r); }, defineProperty(t, k, desc) { traps.push("define:" + String(k) + ":" + JSON.stringify(desc)); return Reflect.defineProperty(t, k, desc); } }); p.length = 4; p[0] = 1; Object.assign(p, { length: 6 }); Object.defineProperties(p, { length: { value: 2 } }); return [log.join(), a.length, traps.join(), p.length].join("|");`,
      `const o = {}; const keys = []; for (o["k"] in { a: 1, b: 2 }) keys.push(o.k); const arr = []; for (arr[arr.length] of [1, 2]); const t = {}; [t["a"] = 5, t["b"]] = [undefined, 2]; ({ q: t["c"] = 7, ...t["rest"] } = { z: 1 }); const u = { a: 1 }; const key = "a"; const r = [u[key]++, ++u[key], u[key]--, u[key]]; const s = { x: "5" }; s["x"]++; const l = { a: 0, b: 1 }; l[key] ||= 5; l["b"] &&= 7; l["c"] ??= 9; let sets = 0; const p = new Proxy({ z: 1 }, { set() { sets++; return true; } }); p["z"] ||= 2; p["w"] ??= 3; return [keys.join(), arr.join(), t.a, t.b, t.c, JSON.stringify(t.rest), r.join(), s.x, typeof s.x, l.a, l.b, l.c, sets].join();`,
    ];
    // Numbers made of objects behind chainsim's stand-ins (kit.numberStandIn): each valueOf once, in V8's order.
    ordinary.push(`const log = []; const o = (n, v) => ({ valueOf() { log.push(n); return v; } }); const out = []; const t = new Float64Array(4); const u8 = new Uint8Array(4); const b = new ArrayBuffer(8); const d = new DataView(b); const calls = [   () => "abcdef".slice(o("s0", 1), o("s1", 3)), () => "abcdef".substring(o("ss0", 1), o("ss1", 3)), () => "abcdef".substr(o("sb0", 1), o("sb1", 2)),   () => "abc".at(o("at", -1)), () => "abc".charAt(o("ca", 1)), () => "abc".charCodeAt(o("cc", 1)), () => "abc".codePointAt(o("cp", 1)),   () => "abc".startsWith("b", o("sw", 1)), () => "abc".endsWith("b", o("ew", 2)), () => (1.2345).toFixed(o("tf", 2)), () => (255).toString(o("ts", 16)),   () => (1.5).toPrecision(o("tp", 3)), () => (1.5).toExponential(o("te", 1)), () => [1, 2, 3].at(o("aat", -1)), () => [1, 2, 3].with(o("aw", 0), o("awv", 9)).join(),   () => [1, 2, 3].includes(2, o("ai", 1)), () => [1, 2, 3].indexOf(2, o("aio", 0)), () => [1, 2, 3].lastIndexOf(2, o("ali", 2)), () => [1, 2, 3].slice(o("as0", 1), o("as1", 2)).join(),   () => [1, 2, 3].splice(o("asp0", 0), o("asp1", 1), o("aspv", 7)).join(), () => [1, 2, 3].toSpliced(o("at0", 0), o("at1", 1)).join(), () => [1, 2, 3, 4].copyWithin(o("cw0", 0), o("cw1", 2), o("cw2", 3)).join(),   () => [0, 0, 0].fill(o("fv", 5), o("f1", 1), o("f2", 2)).length, () => t.fill(o("tfv", 2), o("tf1", 1), o("tf2", 3)).join(), () => t.with(o("tw0", 0), o("tw1", 4)).join(), () => t.at(o("tat", 0)),   () => t.subarray(o("tsa0", 1), o("tsa1", 2)).length, () => t.slice(o("tsl0", 0), o("tsl1", 1)).join(), () => t.includes(2, o("tin", 0)), () => t.indexOf(2, o("tio", 0)), () => t.copyWithin(o("tcw0", 0), o("tcw1", 1)).join(),   () => { t.set([o("ts0", 7), o("ts1", 8)], o("tso", 1)); return t.join(); }, () => { t[0] = o("tw", 3); t[-1] = o("tneg", 1); t["1.5"] = o("tfr", 1); return t.join(); },   () => { Reflect.set(t, 1, o("rs", 5)); Object.defineProperty(t, 2, { value: o("dp", 6) }); Object.assign(t, { 3: o("oa", 7) }); return t.join(); },   () => new Float64Array([o("c0", 1), o("c1", 2)]).join(), () => Float64Array.of(o("of", 3)).join(), () => Float64Array.from([o("fr", 4)]).join(), () => new Int8Array(b, o("off", 1), o("len", 2)).length,   () => new DataView(b, o("dvo", 1), o("dvl", 2)).byteLength, () => d.getInt8(o("dg", 0)), () => { d.setInt8(o("ds0", 1), o("ds1", 9)); return d.getInt8(1); }, () => b.slice(o("bs0", 0), o("bs1", 4)).byteLength,   () => String.fromCharCode(o("fcc", 65), o("fcc2", 66)), () => "a".repeat(o("rep", 2)), () => "a".padStart(o("ps", 3), "-"), () => JSON.stringify([1], null, Object.assign(new Number(2), { valueOf() { log.push("sp"); return 2; } })),   () => { const r = /a/g; r.lastIndex = o("li", 1); return r.test("aa") + ":" + r.lastIndex; }, () => "abc".charAt(o("sym", Symbol())), () => (1).toFixed({ valueOf() { return {}; }, toString() { return {}; } }),   () => [1].at({ [Symbol.toPrimitive](h) { log.push("hint:" + h); return 0; } }), () => new ArrayBuffer(o("ab", 4), { maxByteLength: o("abm", 8) }).maxByteLength, () => [[1, [2]]].flat(o("fl", 2)).length, ]; for (const c of calls) { try { out.push(String(c())); } catch (e) { out.push(e.name + ":" + e.message); } } return out.join("|") + ";" + log.join();`);
    // A private field of another object updated through chainsim (instrument.ts privateOfOther): V8's order and errors.
    ordinary.push(`class C { #p = 5; static run(o, a) { const log = []; const get = () => (log.push("get"), o); log.push(get().#p++); log.push(++get().#p); get().#p--; --(o).#p; log.push((o).#p++); o /*c*/ . #p -= (log.push("rhs"), 1); log.push(get().#p **= 2); log.push(o.#p *= o.#p); const f = (...x) => o; f(...a).#p++; log.push(o.#p); o.#p = "12"; o.#p++; log.push(o.#p, typeof o.#p); o.#p = { valueOf() { log.push("vo"); return 3; } }; log.push(o.#p -= 1); let b = new C(); log.push(o.#p += b.#p++, b.#p); for (let i = 0; i < 2; o.#p++) i++; log.push(o.#p); o.#p = Symbol(); try { o.#p++; } catch (e) { log.push(e.message); } try { ({}).#p++; } catch (e) { log.push(e.message); } try { null.#p -= 1; } catch (e) { log.push(e.message); } o.#p = 1
o.#p++
log.push(o.#p); return log.join(); } } return C.run(new C(), [1]);`);
    // split by a regular expression, done by chainsim with one search from each position (text.ts splitByRegExp).
    ordinary.push(`const cases = [["a-b-c", /-/], ["a-b-c", /-/, 2], ["abc", /(?:)/], ["", /x/], ["", /(?:)/], ["a1b22c", /(\\d)+/], ["a1b22c", /(\\d)(x)?/], ["test", /t/], ["tt", /t*/], ["abc", /$/], ["abc", /^/m], ["a,b,,c,", /,/], ["a,b", /,/, 0], ["a,b,c", /,/, { valueOf() { return 2; } }], ["a,b,c", /,/, -1], ["aaa", /a*?/], ["aaa", /a*/], ["ab", /(?<n>b)?/], ["x", /x/y], ["x-y", /-/g]]; const r = []; for (const [s, re, lim] of cases) { const before = re.lastIndex; r.push(JSON.stringify(s.split(re, lim)) + "@" + re.lastIndex + (before === re.lastIndex ? "" : "!")); } return r.join(" ");`);
    // An array's species, Array.from's and Array.of's receiver: a subclass's instances as in V8 (nativeSpecies).
    ordinary.push(`class A extends Array {} const a = A.from([1, 2, 3]); const log = []; const b = [1, 2, 3]; b.constructor = { get [Symbol.species]() { log.push("species"); return A; } }; const r = [a.map((x) => x * 2) instanceof A, a.filter((x) => x > 1).join(), a.slice(1) instanceof A, a.splice(0, 1) instanceof A, a.flatMap((x) => [x, x]).length, A.of(7, 8) instanceof A, Array.from.call(A, [1]) instanceof A, b.map((x) => x) instanceof A, [1, 2].map((x) => x).constructor === Array, [].concat.call(a, [4]) instanceof A, a.flat() instanceof A]; const errs = []; for (const f of [() => { const c = [1]; c.constructor = { [Symbol.species]: 5 }; return c.map((x) => x); }, () => { const c = [1]; c.constructor = 5; return c.slice(); }, () => Array.from.call({}, [1]).length]) { try { errs.push(String(f())); } catch (e) { errs.push(e.name + ":" + e.message); } } return r.join() + ";" + log.join() + ";" + errs.join("|");`);
    // A contract's iterator on Array.prototype sees only the contract's own arrays, never chainsim's list of a
    // typed array's values (which it could refill after the charge: fourteenth review of 2026-11-26).
    ordinary.push(`let foreign = 0; const src = [1, 2, 3]; const original = Array.prototype[Symbol.iterator]; Array.prototype[Symbol.iterator] = function () { if (this !== src) foreign++; return original.call(this); }; const r = [new Float64Array(src).join(), Float64Array.from(src).join(), Float64Array.of(...src).join()]; Array.prototype[Symbol.iterator] = original; return r.join("|") + ";" + foreign;`);
    // Conversions after V8's receiver checks, and none where V8 makes none (fourteenth review of 2026-11-26).
    ordinary.push(`const log = []; const o = (n, v) => ({ valueOf() { log.push(n); return v; } }); const out = []; for (const f of [() => Number.prototype.toFixed.call({}, o("fixed", 1)), () => Number.prototype.toPrecision.call("1", o("precision", 1)), () => ArrayBuffer.prototype.resize.call({}, o("resize", 1)), () => new ArrayBuffer(2).resize(o("fixed buffer", 1)), () => "abc".padStart(2, { toString() { log.push("filler"); return "x"; } }), () => "abc".padEnd(o("pad", 5), "-"), () => new ArrayBuffer(-1, { get maxByteLength() { log.push("max"); return 8; } }), () => new ArrayBuffer(o("length", 2), { get maxByteLength() { log.push("max2"); return 8; } }).maxByteLength]) { try { out.push(String(f())); } catch (e) { out.push(e.name + ":" + e.message); } } return out.join("|") + ";" + log.join();`);
    // Keys handed to V8 through chainsim (kit.asPropertyKey): converted when and as often as V8 converts them.
    ordinary.push(`const log = []; const k = (v) => ({ toString() { log.push("s:" + String(v)); return v; } }); const sym = Symbol("q"); const ks = { [Symbol.toPrimitive](hint) { log.push(hint); return sym; } }; const o = { a: 1, [sym]: 2 }; const out = [o[k("a")], o[ks], k("a") in o, ks in o, delete o[k("zz")], Reflect.get(o, k("a")), Reflect.has(o, ks), o.hasOwnProperty(k("a")), Object.hasOwn(o, ks), Object.getOwnPropertyDescriptor(o, k("a")).value, Symbol.for(k("reg")) === Symbol.for("reg"), ({ [k("m")]() { return 3; } }).m(), new (class { [k("c")]() { return 4; } })().c(), o.propertyIsEnumerable(k("a"))]; const { [k("a")]: d } = o; out.push(d); for (const f of [() => null[k("n")], () => undefined[k("u")], () => k("x") in 5, () => Reflect.get(1, k("r")), () => Object.prototype.hasOwnProperty.call(null, k("h")), () => o[{ toString() { throw new RangeError("no key"); } }], () => o[{ toString: () => ({}), valueOf: () => ({}) }], () => o[{ [Symbol.toPrimitive]: 1 }], () => ({ [{ [Symbol.toPrimitive]: 1 }]: 1 }), () => { const { [{ [Symbol.toPrimitive]: 1 }]: v } = o; }, () => delete o[{ [Symbol.toPrimitive]: 1 }], () => ({ [Symbol.toPrimitive]: 1 }) in o, () => Reflect.get(o, { [Symbol.toPrimitive]: 1 }), () => Reflect.has(o, { [Symbol.toPrimitive]: 1 }), () => new (class extends Object { m() { return super[{ [Symbol.toPrimitive]: 1 }]; } })().m(), () => o[{ [Symbol.toPrimitive]: 1 }]++]) { try { out.push(String(f())); } catch (e) { out.push(e.name + ":" + e.message); } } return [out.join("|"), log.join()].join(";");`);
    // A write missing an object whose prototype is chainsim's view lands on the object, as V8 lands it on the
    // object above an array (seventeenth review of 2026-11-26).
    ordinary.push(`let p = Object.prototype; const a = [0]; Object.setPrototypeOf(a, p); a.constructor = {}; let cap; Array.prototype.map.call(a, (v, k, x) => { cap = x; }); const t = {}; Object.setPrototypeOf(t, cap); t.zz = 1; const g = Object.create(cap); Object.defineProperty(a, "who", { get() { return this === g; } }); return [Object.hasOwn(t, "zz"), Object.hasOwn(a, "zz"), g.who].join();`);
    // V8 names an object `#<Foo>` in its messages only while Object.prototype.toString is its own function; in
    // contracts it is a guard (docs/contracts.md §14), so V8 is given a JavaScript one too.
    const objectToStringInJavaScript = `{ const own = Object.prototype.toString; Object.defineProperty(Object.prototype, "toString", { value: { toString() { return own.call(this); } }.toString, writable: true, enumerable: false, configurable: true }); }`;
    ordinary.forEach((body, index) => {
      it(`ordinary program ${index + 1}: the same answer as V8 itself`, async () => {
        const expected = vm.runInNewContext(`${objectToStringInJavaScript} (function () { ${body} })()`);
        const { value, failure } = await query(body);
        expect(failure?.exception, body).to.equal(undefined);
        expect(value, body).to.equal(expected);
      });
    });
  });
});
