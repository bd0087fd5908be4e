// How far each heavy construct is from the wall clock: runs it until the deterministic limits stop it and
// reports the time taken, as a share of the 1 s clock guard. node --no-node-snapshot scripts/bench/contract-limits.mjs
import { ContractWorkerRuntime, DEFAULT_CONTRACT_LIMITS } from "@chainsim/contracts";

const HEAVY = {
  "empty loop": `for (;;) {}`,
  "JSON.stringify of 1,000 objects": `const o = []; for (let i = 0; i < 1000; i++) o.push({ a: i, b: "x".repeat(100) }); for (;;) JSON.stringify(o);`,
  "JSON.parse of 100 KB": `const t = JSON.stringify(Array(10000).fill("abcdefgh")); for (;;) JSON.parse(t);`,
  "regular expression over 1 MB": `const s = "ab".repeat(500000); for (;;) /(a|b)*c/.test(s);`,
  "string repeat and split": `for (;;) "a,b".repeat(100000).split(",");`,
  "array fill and sort": `for (;;) Array(100000).fill(3).sort();`,
  "string building": `let s = ""; for (;;) s += "abcdefgh";`,
  "join of nested arrays": `let a = [1]; for (let i = 0; i < 1000; i++) a = [a, i]; for (;;) String(a);`,
  "recursion": `function r(n) { return r(n + 1); } r(0);`,
  "Utils.sha256 of 1 MB": `const s = "ab".repeat(500000); for (;;) Utils.sha256(s, 1);`,
  "Chain.getBalance": `for (;;) Chain.getBalance(Chain.thisAddress);`,
  // What the adversarial review of 2026-11-25 found (docs/contracts.md §13): each must end well within the clock.
  "a built-in as a per-element callback": `const call = (() => 0).call; const a = Array(4096).fill("\u0100".repeat(4095)); for (;;) a.forEach(call, String.prototype.toUpperCase);`,
  "comparing 1 Mi strings": `const a = "x".repeat(1 << 20); const b = a.slice(0, -1) + "y"; let n = 0; for (;;) { if (a < b) n++; if (a === a.slice(0)) n++; }`,
  "straight-line code": `const f = function (x) { ${"x = (x * 3) ^ 5;".repeat(2000)} return x; }; let x = 1; for (;;) x = f(x);`,
  "an ownKeys trap of 100,000 keys": `const keys = Object.keys(new Uint8Array(100000)); const p = new Proxy({}, { ownKeys: () => keys }); for (;;) Object.keys(p);`,
  "includes of a 1 Mi string": `const a = "x".repeat(1 << 20); const arr = Array(64).fill(a); const b = a.slice(0, -1) + "y"; for (;;) arr.includes(b);`,
  "Map lookups of a 1 Mi key": `const a = "x".repeat(1 << 20); const m = new Map([[a, 1]]); const b = a.slice(0, -1) + "x"; for (;;) m.get(b);`,
  // Array is a guarded stand-in, so V8 runs map, slice and splice on its generic (species) path.
  "slice and splice of 100,000 elements": `const a = Array(100000).fill(7); for (;;) { a.slice(1); a.slice().splice(10, 50000); }`,
  "map of 100,000 elements": `const a = Array(100000).fill(7); for (;;) a.map(Number);`,
  "writes to computed keys": `const a = []; const o = {}; for (let i = 0; ; i++) { a[i & 1023] = i; o["k" + (i & 63)] = i; a.length = i & 1023; }`,
  // What the review of the length fixes found (2026-11-25): walks on V8's generic path, copies key by key.
  "walks over a 30-deep prototype chain": `const p = Array(30).fill(0).reduce(Object.create, { 0: 1 }); const o = Object.create(p); o.length = 4096; for (;;) Array.prototype.includes.call(o, 7);`,
  "a holey array iterated over a deep chain": `const b = Object.create(Array.prototype); b[0] = 1; const p = Array(28).fill(0).reduce(Object.create, b); const a = new Array(1e5); Object.setPrototypeOf(a, p); for (;;) new Set(a);`,
  "walks of a getter-length array-like": `const o = { get length() { return 4096; } }; for (;;) Array.prototype.includes.call(o, 1);`,
  "holey walks with an element on Array.prototype": `Array.prototype[3] = 1; const a = new Array(1e6); for (;;) a.includes(7);`,
  "Object.assign of a 400,000-character string": `const s = "x".repeat(4e5); for (;;) Object.assign([], s);`,
  "keys of a 400,000-character String object": `const o = new String("x".repeat(4e5)); for (;;) Reflect.ownKeys(o);`,
  "keys of a 100,000-element array": `const a = new Array(1e5).fill(0); for (;;) Object.keys(a);`,
  "Sets of 100,000 numbers": `const a = new Array(1e5).fill(0).map((x, i) => i); for (;;) new Set(a);`,
  "for-in over a 100,000-element typed array": `const t = new Uint8Array(1e5); for (;;) for (const k in t) break;`,
  "object spread of a 100,000-element typed array": `const t = new Uint8Array(1e5); for (;;) ({ ...t });`,
  // The second review (2026-11-26): brand checks that threw, pieces appended one by one.
  "Object.fromEntries of iterators as a callback": `const it = [].values(); const d = new Array(100000).fill(it); for (;;) d.forEach(Object.fromEntries);`,
  "Object.keys as a callback": `const d = new Array(100000).fill({}); for (;;) d.forEach(Object.keys);`,
  "joins of 100,000 one-character strings": `const a = new Array(100000).fill("a"); for (;;) a.join("");`,
  "a replacement template of 900 characters": `const s = "a".repeat(64); const t = "x".repeat(900) + "$&"; for (;;) s.replace(/a/g, t);`,
  // Prototype chains end at 32 (256 until the twenty-third review of 2026-11-26): lookups V8's caches miss walk the whole chain.
  "string conversion of a 30-deep chain built by new": `function F() {} let deep = {}; for (let i = 0; i < 30; i++) { F.prototype = deep; deep = new F(); } for (;;) "" + deep;`,
  "string conversion of an instance of a 30-deep class chain": `let C = class {}; for (let i = 0; i < 30; i++) C = class extends C {}; const o = new C(); for (;;) "" + o;`,
  "a missing key among many on a 30-deep class chain": `let C = class {}; for (let i = 0; i < 30; i++) C = class extends C {}; const o = new C(); let n = 0; for (let i = 0; ; i++) if (o["k" + (i & 1023)]) n++;`,
  // The twenty-third review (2026-11-26): element keys that miss, down prototypes with dictionary elements.
  "element reads missing down 30 prototypes with dictionary elements": `let o = {}; for (let i = 0; i < 29; i++) { o = Object.create(o); Object.defineProperty(o, 5e6, { value: 1 }); } for (;;) { ${"o[0],".repeat(300)}0; }`,
  "in down 30 prototypes with dictionary elements": `let o = {}; for (let i = 0; i < 29; i++) { o = Object.create(o); Object.defineProperty(o, 5e6, { value: 1 }); } for (;;) { ${"0 in o,".repeat(100)}0; }`,
  // The fifth review (2026-11-26): a pattern's states, keys hashed by length, numbers read from long strings.
  "a regular expression of about 180 states": `const s = "abcdefghi".repeat(500); const r = new RegExp("\\\\S{1,16}x"); for (;;) r.test(s);`,
  "Map lookups of keys longer than 16,383": `const L = 16400; const B = "x".repeat(L) + "y".repeat(40); const m = new Map(); for (let i = 0; i < 40; i++) m.set(B.slice(i, i + L), i); const k = "x".repeat(L - 1) + "z"; for (;;) m.get(k);`,
  "typed arrays of long numeric strings": `const d = new Array(64).fill("1".repeat(1e5)); for (;;) new Float64Array(d);`,
  "5e-324 in base 2 as a callback": `const f = parseFloat.call.bind(Number.prototype.toString, 5e-324, 2); const d = new Array(100000).fill(0); for (;;) d.forEach(f);`,
  "arithmetic on a 1 Mi-digit string": `const s = "1".repeat(1 << 20); let n = 0; for (;;) n += s - 0;`,
  "a built-in's index given a 1 Mi-digit string": `const s = "0".repeat(1 << 20); let n = 0; for (;;) n += "ab".charAt(s).length;`,
  // The sixth review (2026-11-26): captures multiply a pattern's cost; a typed array converts a fill per element.
  "a pattern of 100 captures": `const r = new RegExp("(a?)".repeat(100) + "x"); const s = "a".repeat(200); for (;;) r.test(s);`,
  "Array.prototype.fill of a typed array with a long numeric string": `const s = "1".repeat(1e5); const t = new Float64Array(100); for (;;) Array.prototype.fill.call(t, s);`,
  "writes far past the end, kept": `const keep = []; for (;;) { const o = {}; o[1023] = 0; o[2574] = 0; o[4900] = 0; keep.push(o); }`,
  // The ninth review (2026-11-26): searches for long patterns, runs of marks, containers parsed, reservations.
  "indexOf of a 1,000-unit pattern in 1 MB": `const s = "a".repeat(1e6); const p = "a".repeat(500) + "b" + "a".repeat(499); for (;;) s.indexOf(p);`,
  "lastIndexOf of a 100-unit pattern in 1 MB": `const s = "a".repeat(1e6); const p = "a".repeat(99) + "b"; for (;;) s.lastIndexOf(p);`,
  "normalize of runs of 1,000 marks": `const s = ("a" + "\\u0301\\u0323".repeat(500)).repeat(20); for (;;) s.normalize("NFC");`,
  "normalize of 1 MB beyond Latin": `const s = "\\u4e2d\\u0301".repeat(5e5); for (;;) s.normalize("NFC");`,
  "JSON.parse of 100,000 nested arrays": `const t = "[".repeat(1e5) + "]".repeat(1e5); for (;;) JSON.parse(t);`,
  "JSON.parse of 100,000 empty objects": `const t = "[" + "{},".repeat(1e5) + "{}]"; for (;;) JSON.parse(t);`,
  // The tenth review (2026-11-26): patterns just past Boyer-Moore's 250, a letter NFKD makes a mark.
  "indexOf of a 252-unit pattern whose head mismatches": `const s = "a".repeat(1e5); const p = "ab" + "a".repeat(250); for (;;) s.indexOf(p);`,
  "normalize NFKD of runs of U+FF9E": `const s = ("a" + "\\u0301\\uFF9E".repeat(500)).repeat(20); for (;;) s.normalize("NFKD");`,
  // The eleventh review (2026-11-26): a template read whole for each match.
  "a template of 50,000 $ sequences": `const t = "$1".repeat(5e4); for (;;) "a".replace("a", t);`,
  "resizable ArrayBuffers": `const o = { maxByteLength: 4096 }; for (;;) new ArrayBuffer(0, o);`,
  "stack traces of a function with a 100,000-character name": `function f(n) { return n === 0 ? new Error("e") : f(n - 1); } Object.defineProperty(f, "name", { value: "x".repeat(1e5) }); for (;;) f(9).stack;`,
  // The tenth review (2026-11-26): keys over 16,383 code units, hashed by their length alone.
  "distinct keys of 16,400 code units written": `const B = "x".repeat(16400) + "y".repeat(3000); const o = {}; for (let i = 0; ; i++) o[B.slice(i, i + 16400)] = i;`,
  "distinct keys of 16,400 code units read, two-byte": `const B = "\u0100".repeat(16400) + "y".repeat(3000); const o = {}; for (let i = 0; ; i++) o[B.slice(i, i + 16400)];`,
  "keys of 16,300 code units made by a native": `const o = { [Symbol.toStringTag]: "x".repeat(16300) }; const m = {}; for (;;) m[Object.prototype.toString.call(o)];`,
  // The thirteenth review (2026-11-26): an object answering 4 Mi digits, made a number by a built-in.
  "toFixed of an object answering 4 Mi digits": `const s = "1".repeat(4e6); const v = { valueOf: () => s }; for (;;) { try { (1).toFixed(v); } catch (e) {} }`,
  "typed array elements given such an object": `const s = "1".repeat(4e6); const v = { valueOf: () => s }; const t = new Float64Array(1); for (;;) t[0] = v;`,
  "long keys answered by a proxy's ownKeys, one-byte and two-byte": `const base = "a".repeat(16400) + "b".repeat(3000); const b2 = base + "\u0100"; const ks = []; for (let i = 0; i < 3000; i++) ks[i] = (i % 2 ? b2 : base).slice(i, i + 16400); for (;;) Reflect.ownKeys(new Proxy({}, { ownKeys: () => ks }));`,
  "Object.is of equal 2 Mi strings": `const a = "a".repeat(2e6); const b = ("a".repeat(2e6) + "\u0100").slice(0, 2e6); for (;;) Object.is(a, b);`,
  // The fourteenth review (2026-11-26): a view handed back, lengths read by at and an iterator.
  "an array-like view handed back to find": `let x = { length: { valueOf() { return 1; } } }; for (;;) { Array.prototype.find.call(x, (v, i, a) => { x = a; }); x.foo; }`,
  "at and an iterator's next on a 4 Mi-digit length": `const s = " ".repeat(4194000) + "5"; const o = { length: s, 0: 1 }; for (;;) { Array.prototype.at.call(o, 0); Array.prototype.values.call(o).next(); }`,
  // The fifteenth review (2026-11-26): a built-in next that never says done, a built-in reviver, regex split.
  "new Set of an iterator whose next is Object.prototype.valueOf": `const it = { [Symbol.iterator]() { return this; }, next: Object.prototype.valueOf }; for (;;) new Set(it);`,
  "JSON.parse of 100,000 values with a built-in reviver": `const t = "[" + "1,".repeat(99999) + "1]"; for (;;) JSON.parse(t, Object.is);`,
  "split of 300,000 characters by a regular expression": `const s = "a,b".repeat(100000); for (;;) s.split(/,/);`,
  // The sixteenth review (2026-11-26): views as a prototype chain, a pattern scanning to the end per match.
  "reads on top of 15 of chainsim's views as prototypes": `let p = Object.prototype; for (let i = 0; i < 15; i++) { const a = [0]; Object.setPrototypeOf(a, p); a.constructor = {}; let cap; Array.prototype.map.call(a, (v, k, x) => { cap = x; }); p = cap; } const t = {}; Object.setPrototypeOf(t, p); for (;;) { ${"t.z; ".repeat(40)} }`,
  "global replace with a pattern scanning to the end per match": `const t = "x".repeat(3000); const re = /[^]*y|x/g; for (;;) t.replace(re, "");`,
  "a frozen property redefined with an equal 2 Mi string": `const a = "a".repeat(2e6); const b = ("a".repeat(2e6) + "\u0100").slice(0, 2e6); const o = {}; Object.defineProperty(o, "x", { value: a }); for (;;) Reflect.defineProperty(o, "x", { value: b });`,
  // The seventeenth review (2026-11-26): walks of the whole stack, a long Symbol.toStringTag, writes down views.
  "a sloppy function's caller read on 2,800 frames": `let n = 0; function nope() {} function g() { for (;;) { nope.caller; nope.caller; nope.caller; nope.caller; } } function r() { if (++n < 2800) return r(); return g(); } r();`,
  "errors made with a new.target not on 2,800 frames": `let n = 0; function nope() {} function g() { for (;;) Reflect.construct(Error, [], nope); } function r() { if (++n < 2800) return r(); return g(); } r();`,
  "Object.prototype.toString of a 64 Ki-unit Symbol.toStringTag, read": `const o = { [Symbol.toStringTag]: "a".repeat(65536) }; const ts = Object.prototype.toString; for (;;) ts.call(o).charCodeAt(0);`,
  "writes missing down 15 of chainsim's views as prototypes": `let p = Object.prototype; for (let i = 0; i < 15; i++) { const a = { get length() { return 1; }, 0: 0 }; Object.setPrototypeOf(a, p); let cap; Array.prototype.find.call(a, (v, k, x) => { cap = x; }); p = cap; } for (;;) { const u = Object.create(p); u.a = 1; u.b = 1; u.c = 1; u.d = 1; }`,
  "a non-global regular expression over 100,000 characters": `const t = "x".repeat(100000); const re = /[^]*y/; re.lastIndex = t.length - 1; for (;;) re.test(t);`,
  // The review of 2026-11-27: regular expressions made by the thousand, iterators over deleted entries, Set bookkeeping.
  "regular-expression literals, 400 a loop": `for (;;) { ${"/a/;".repeat(400)} }`,
  "fresh Set iterators over 24,575 deleted entries": `const N = 32768; const arr = [...Array(N).keys()]; const s = new Set(arr); arr.slice(0, N - 8193).forEach(s.delete, s); for (;;) { ${"s.values().next(), ".repeat(30)}0; }`,
  "a Set's clear as a bound function, 60 a loop": `const s = new Set(); const c = s.clear.bind(s); for (;;) { ${"c(), ".repeat(60)}0; }`,
};
const env = { thisAddress: "did:bid:a", block: { timestamp: 1, number: 2 }, tx: { initiator: "i", sender: "s", gasPrice: "1", hash: "h", feeLimit: "1" }, msg: { initiator: "i", sender: "s", nonce: 1, operationIndex: 0 } };
const host = { call: async (name) => (name === "getBalance" ? "1" : false) };
const runtime = new ContractWorkerRuntime(DEFAULT_CONTRACT_LIMITS);
const rows = [];
try {
  // The worker's start (about half a second) is not what is measured.
  await runtime.execute({ code: "function main() {}", entry: "main", input: "", env, readOnly: false, depth: 0, host, meter: { used: 0, limit: 100, exhausted: false }, deadline: performance.now() + 10_000, log() {} });
  for (const [name, body] of Object.entries(HEAVY)) {
    let worst = 0;
    let ended = "";
    for (let i = 0; i < 3; i++) {
      const meter = { used: 0, limit: DEFAULT_CONTRACT_LIMITS.steps, exhausted: false };
      const started = performance.now();
      try {
        await runtime.execute({ code: `function main() { ${body} }`, entry: "main", input: "", env, readOnly: false, depth: 0, host, meter, deadline: performance.now() + DEFAULT_CONTRACT_LIMITS.timeMs, log() {} });
        ended = "returned";
      } catch (error) {
        ended = error.exception ?? error.message;
      }
      worst = Math.max(worst, performance.now() - started);
    }
    rows.push({ construct: name, ended_by: ended, worst_ms: Math.round(worst), share_of_clock: +(worst / DEFAULT_CONTRACT_LIMITS.timeMs).toFixed(3) });
  }
} finally {
  runtime.dispose();
}
console.table(rows);
console.log(JSON.stringify({ benchmark: "contract-limits", rows }));
