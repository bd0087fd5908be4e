// A seeded corpus of hostile contracts for the differential test (differential.test.ts). Each construct is a
// template: (random) => a statement list that may end the run on a limit, catch what it can and store what it
// saw with Chain.store. To cover a new attack, add a template; the corpus grows with it.
import { seededRandom } from "@chainsim/protocol";

export interface Program {
  name: string;
  code: string;
}

interface Draw {
  /** Integer in [min, max]. */
  int(min: number, max: number): number;
  /** One of the items. */
  pick<T>(items: readonly T[]): T;
}

/** Sizes around and beyond the limits: a few small, many near the edges, some absurd. */
const depth = (d: Draw) => d.pick([10, 100, 1000, 3000, 3500, 4000, 5000, 20000, 1e6]);
const size = (d: Draw) => d.pick([10, 1000, 4096, 65536, 1 << 20, 4 << 20, 5e6, 5e7, 1e9]);

export const TEMPLATES: Record<string, (d: Draw) => string> = {
  "plain recursion": (d) => `function r(n) { return n === 0 ? 0 : 1 + r(n - 1); } out.push(r(${depth(d)}));`,
  "default parameter recursion": (d) => `function r(n, a = n > 0 ? r(n - 1) : 0) { return a + 1; } out.push(r(${depth(d)}));`,
  "class field recursion": (d) => `let made = 0; class A { x = made++ < ${depth(d)} ? new A() : null; } new A(); out.push(made);`,
  "many arguments": (d) => `function r(n) { return n === 0 ? 0 : r(n - 1, ${Array(d.pick([10, 100, 300, 1000])).fill("n").join(",")}); } out.push(r(${depth(d)}));`,
  "spread arguments": (d) => `const list = Array(${d.pick([10, 1000, 5000, 70000])}).fill(1); function r(n) { return n === 0 ? 0 : r(n - 1, ...list); } out.push(r(${d.pick([1, 10, 100, 1000])}));`,
  "apply with a list": (d) => `const list = Array(${d.pick([10, 1000, 70000])}).fill(1); function r(n) { return n === 0 ? 0 : r.apply(null, [n - 1].concat(list)); } out.push(r(${d.pick([1, 10, 100, 1000])}));`,
  "recursion through map": (d) => `function r(n) { return n === 0 ? 0 : [n - 1].map(r)[0] + 1; } out.push(r(${depth(d)}));`,
  "recursion through a getter": (d) => `let n = ${depth(d)}; const o = { get x() { return n-- > 0 ? o.x : 0; } }; out.push(o.x);`,
  "deep JSON.stringify": (d) => `let a = []; for (let i = 0; i < ${depth(d)}; i++) a = [a]; out.push(JSON.stringify(a).length);`,
  "deep JSON.parse": (d) => `const n = ${depth(d)}; const v = JSON.parse("[".repeat(n) + "]".repeat(n)); out.push(String(v).length);`,
  "JSON.parse with a reviver": (d) => `const n = ${depth(d)}; out.push(JSON.stringify(JSON.parse("[".repeat(n) + "1" + "]".repeat(n), (k, v) => v)).length);`,
  "large JSON.stringify, repeated": (d) => `const o = []; for (let i = 0; i < ${d.pick([10, 100, 1000])}; i++) o.push({ a: i, b: "x".repeat(100) }); let t = 0; for (let i = 0; i < ${d.pick([1, 30, 300])}; i++) t += JSON.stringify(o).length; out.push(t);`,
  "nested arrays joined": (d) => `let a = [1]; for (let i = 0; i < ${depth(d)}; i++) a = [a, i]; out.push(String(a).length);`,
  "string doubling": (d) => `let s = "x"; for (let i = 0; i < ${d.int(5, 30)}; i++) s += s; out.push(s.length);`,
  "string building": (d) => `let s = ""; for (let i = 0; i < ${d.pick([100, 2000, 8000])}; i++) s += "ab"; out.push(s.length);`,
  "repeat and pad": (d) => `out.push("ab".repeat(${size(d)}).length); out.push("x".padStart(${size(d)}, "yz").length);`,
  "array fill": (d) => `out.push(new Array(${size(d)}).fill(1.5).length);`,
  "Array.from a length": (d) => `out.push(Array.from({ length: ${size(d)} }).length);`,
  "ArrayBuffer": (d) => `out.push(new ArrayBuffer(${size(d)}).byteLength); out.push(new Float64Array(${d.pick([10, 1e5, 1e7])}).length);`,
  "Symbol.for keys": (d) => `const k = "k".repeat(${d.pick([10, 1000, 500000])}); for (let i = 0; i < ${d.pick([1, 20, 200])}; i++) Symbol.for(k + i); out.push("symbols");`,
  "regular expressions": (d) => `const text = "${d.pick(["a", "ab", "aab"])}".repeat(${d.pick([10, 1000, 100000])}) + "!"; out.push(String(${d.pick(["/^(a+)+$/", "/(a|b)*c/", "/a*b/g", "/(ab)+/"])}.test(text))); out.push(text.replace(/a/g, "bb").length);`,
  "regular expression refused": (d) => `out.push(new RegExp("${d.pick(["(a)\\\\1", "a(?=b)", "(?<=a)b"])}").source);`,
  sort: (d) => `const a = []; for (let i = 0; i < ${d.pick([10, 1000, 5000])}; i++) a.push((i * 7919) % 1000); a.sort((x, y) => x - y); out.push(a[0]); out.push(Array(${size(d)}).fill(0).sort().length);`,
  "proxy chain": (d) => `let p = {}; for (let i = 0; i < ${d.pick([10, 64, 65, 10000])}; i++) p = new Proxy(p, {}); out.push(String(p.x));`,
  "bound function chain": (d) => `let f = function () { return 1; }; for (let i = 0; i < ${d.pick([10, 64, 65, 10000])}; i++) f = f.bind(null); out.push(f());`,
  "flat of deep arrays": (d) => `let a = [1]; for (let i = 0; i < ${depth(d)}; i++) a = [a]; out.push(a.flat(Infinity).length);`,
  "object spread and keys": (d) => `const o = {}; for (let i = 0; i < ${d.pick([10, 1000, 8000])}; i++) o["k" + i] = i; out.push(Object.keys({ ...o }).length);`,
  "stack of an error seen by a getter": () => `const o = { get x() { return new Error("g").stack; } }; out.push(JSON.stringify(o));`,
  "prepareStackTrace": () => `try { Error.prepareStackTrace = (e, s) => s; } catch (e) { out.push("refused"); } const s = new Error().stack; out.push(typeof s === "string" ? s : "callsites " + typeof s[0].getFunction());`,
  "the meter by name": (d) => `out.push(typeof globalThis["__chain" + "sim_${d.pick(["step", "step_leave", "enter", "leave", "push"])}"]);`,
  "function source": () => `function f(a) { return a + 1; } out.push(String(f)); out.push(String(Chain.load)); out.push(String(JSON.stringify));`,
  "error messages quoting expressions": () => `const o = {}; try { o["a" + "b"](); } catch (e) { out.push(e.message); } try { for (const x of 1 + 2) {} } catch (e) { out.push(e.message); }`,
  "catching limits and going on": (d) => `try { for (;;) {} } catch (e) { out.push("caught " + e); } for (let i = 0; i < ${d.pick([1, 10])}; i++) out.push(i);`,
  "log bomb": (d) => `const s = "y".repeat(${d.pick([1000, 1 << 20, 4 << 20])}); for (let i = 0; i < ${d.pick([1, 10, 90])}; i++) Utils.log(s); out.push("logged");`,
  "builtin calls": (d) => `for (let i = 0; i < ${d.pick([10, 50, 200])}; i++) out.push(Chain.getBalance(Chain.thisAddress));`,
  "store and load": (d) => `for (let i = 0; i < ${d.pick([1, 10, 60])}; i++) Chain.store("k" + i, "v".repeat(${d.pick([1, 1000, 262144])})); out.push(Chain.load("k0").length);`,
  "destructuring recursion": (d) => `const O = {}; function r(n) { const { ${Array.from({ length: d.pick([10, 300, 3000]) }, (_, i) => `a${i}`).join(", ")} } = O; if (n > 0) r(n - 1); return n; } out.push(r(${depth(d)}));`,
  "overflow dropped by finally": (d) => `let ok = false; function r(n) { return n === 0 ? 0 : 1 + r(n - 1); } (function () { try { r(${depth(d)}); ok = true; } finally { return; } })(); out.push(ok);`,
  "pattern given as a string": (d) => `const text = "a".repeat(${d.pick([10, 28, 10000])}) + "b"; out.push(String(text.match("${d.pick(["(a+)+$", "a*b", "(ab)\\\\1"])}"))); out.push(text.search("b")); out.push([...text.matchAll("a")].length);`,
  "promise jobs": () => `out.push(typeof Promise);`,
  // Work V8 does natively before any step counts it (docs/contracts.md §13 "What is charged").
  "keys of a typed array": (d) => `const t = new Uint8Array(${size(d)}); out.push(Object.keys(t).length); out.push(Reflect.ownKeys(t).length);`,
  "for-in over a typed array": (d) => `const t = new Uint8Array(${size(d)}); let n = 0; for (const k in t) { n++; if (n > 5) break; } out.push(n);`,
  "object rest of a typed array": (d) => `const { a, ...rest } = new Uint8Array(${size(d)}); out.push(Object.keys(rest).length);`,
  "array rest of a Set": (d) => `const s = new Set(new Uint32Array(${size(d)}).map((_, i) => i)); const [first, ...rest] = s; out.push(rest.length);`,
  "collections from iterables": (d) => `const t = new Uint8Array(${size(d)}); out.push(new Set(t).size); out.push(Array.from(t.values()).length); out.push(new Map(Array.from({ length: ${d.pick([10, 1000, 100000])} }, (_, i) => [i, i])).size);`,
  "typed array methods": (d) => `const t = new Float64Array(${d.pick([10, 1e5, 3e6])}).fill(1.5); out.push(t.join("${d.pick(["", ",", "--"])}").length); out.push(t.sort().length); out.push(t.reverse().length); out.push(String(t).length);`,
  "a lying length": (d) => `let reads = 0; const o = { get length() { return reads++ % 2 ? ${d.pick([9007199254740991, 4294967295, 70000])} : 0; } }; o[Symbol.isConcatSpreadable] = true; out.push([].concat(o).length); out.push(Array.prototype.indexOf.call(o, 1)); out.push(new Uint8Array(o).length); out.push(Reflect.apply(function () { return arguments.length; }, null, o));`,
  "replacement expansion": (d) => `const s = "a".repeat(${d.pick([10, 100000, 1 << 20, 4 << 20])}); out.push(s.replaceAll("a", "${d.pick(["$&$&", "$&".repeat(20), "b", "$\`"])}").length); out.push(s.replace(/a/g, () => "x".repeat(${d.pick([1, 100, 10000])})).length);`,
  "string expansions": (d) => `const s = "\ufdfa".repeat(${d.pick([10, 100000, 1 << 20])}); out.push(s.normalize("NFKD").length); out.push(encodeURIComponent(s).length); out.push(escape(s).length); out.push(s.anchor('"'.repeat(${d.pick([1, 1000, 1 << 20])})).length); out.push(String.raw({ raw: { length: ${d.pick([10, 1e6, 1e9])} } }, s).length);`,
  "shift of a huge array-like": (d) => `const o = { length: ${d.pick([10, 1e6, 9007199254740991])} }; o[o.length - 1] = 1; Array.prototype.shift.call(o); out.push(o.length);`,
  "buffers that grow": (d) => `const b = new ArrayBuffer(16, { maxByteLength: ${d.pick([1e3, 1e6, 1e9])} }); b.resize(${d.pick([1e3, 1e6, 5e8])}); out.push(b.byteLength); out.push(b.slice(0).byteLength);`,
  "a forged engine error": () => `try { throw new RangeError("Maximum call stack size exceeded"); } catch (e) { out.push("caught " + e.message); } throw Object.create(RangeError.prototype, { message: { value: "Maximum call stack size exceeded" } });`,
  // Lengths V8 reserves at once (H4), by every kind of route, kept so that unmetered they would fill the heap.
  "arrays made long and kept": (d) => {
    const n = d.pick([1000, 65536, 5e5, 1e6, 1e7]);
    const route = d.pick([`new Array(${n})`, `Array(${n})`, `new ([].constructor)(${n})`, `(() => { const a = []; a.length = ${n}; return a; })()`, `(() => { const a = []; a["len" + "gth"] += ${n}; return a; })()`, `(() => { const a = []; [a.length] = [${n}]; return a; })()`, `Object.assign([], { length: ${n} })`, `Reflect.defineProperty([], "length", { value: ${n} })`, `(() => { const a = []; new Proxy(a, {}).length = ${n}; return a; })()`]);
    return `const kept = []; for (let i = 0; i < ${d.pick([1, 20, 200])}; i++) kept.push(${route}); out.push(kept.length);`;
  },
  "arrays copied, repeated": (d) => `const a = Array(${d.pick([10, 1000, 100000])}).fill(${d.pick(["7", "[]", "'s'"])}); let n = 0; for (let i = 0; i < ${d.pick([1, 100, 10000])}; i++) n += ${d.pick(["a.slice(1).length", "a.concat(a).length", "[a].flat().length", "[...a].length", "a.toSpliced(0, 1).length", "a.slice().splice(1, 5).length", "a.map(String).length"])}; out.push(n);`,
  // The reviews of 2026-11-25 and -26: writes past the end, generic walks, pieces and objects V8 keeps more of.
  "writes past the end, kept": (d) => {
    const [a, b] = d.pick([[1023, 2574], [7, 9], [100, 5000], [1e6, 2e6]]);
    const route = d.pick([`(() => { const o = {}; o[${a}] = 0; o[${b}] = 0; return o; })()`, `(() => { const o = []; o[${a}] = 0; o[${b}] = 0; return o; })()`, `Object.assign({}, { ${a}: 0, ${b}: 0 })`, `Object.fromEntries([[${a}, 0], [${b}, 0]])`, `({ [${a}]: 0, [${b}]: 0 })`, `new (class { [${a}] = 0; [${b}] = 0; })()`, `(() => { const o = { length: ${a} }; [].push.call(o, 0); o.length = ${b}; [].push.call(o, 0); return o; })()`, `(() => { const o = {}; o[${a}] = 0; o[${b}] = 0; return { ...o }; })()`]);
    return `const kept = []; for (let i = 0; i < ${d.pick([1, 100, 6000])}; i++) kept.push(${route}); out.push(kept.length);`;
  },
  "walks on the generic path, repeated": (d) => {
    const setup = d.pick([`const o = Array(${d.pick([10, 2000, 30000])}).fill(0).reduce(Object.create, { 0: 1 }); o.length = 4096;`, `const o = { get length() { return 4096; } };`, `Array.prototype[3] = 1; const o = new Array(${d.pick([256, 1e5])});`]);
    return `${setup} let n = 0; for (let i = 0; i < ${d.pick([1, 100, 3000])}; i++) n += Array.prototype.includes.call(o, 7) ? 1 : 0; out.push(n);`;
  },
  "objects V8 keeps more of, as callbacks": (d) => `const d = new Array(${d.pick([100, 30000])}).fill(0); const keep = []; for (let i = 0; i < ${d.pick([1, 10, 100])}; i++) keep.push(d.map(${d.pick(["Error", "function () {}.bind", "Proxy.revocable.bind(null, {})", "String"])})); out.push(keep.length);`,
  "joins kept": (d) => `const a = new Array(${d.pick([10, 100000])}).fill("a"); const keep = []; for (let i = 0; i < ${d.pick([1, 50, 500])}; i++) keep.push(${d.pick(["a.join('')", "String.raw({ raw: a })"])}); out.push(keep.length);`,
  "long return value": (d) => `out.push("r".repeat(${d.pick([10, 100000, 300000])}).length); return "z".repeat(${d.pick([10, 200000, 300000])});`,
  // The fifth and sixth reviews (2026-11-26): prototype chains, states of patterns, strings made numbers.
  "prototype chains": (d) => {
    const n = d.pick([10, 255, 256, 300, 5000]);
    const link = d.pick(["last = Object.create(last);", "C = class extends C {}; last = C.prototype;", "F.prototype = last; last = new F();", "last = { __proto__: last };"]);
    return `let last = {}; let C = class {}; function F() {} for (let i = 0; i < ${n}; i++) { ${link} } let k = 0; for (let i = 0; i < ${d.pick([1, 100, 5000])}; i++) k += ("" + last).length; out.push(k);`;
  },
  "patterns of many states": (d) => `const r = new RegExp(${d.pick(['"\\\\S{1,16}".repeat(10) + "x"', '"(a?)".repeat(300) + "x"', '"a?".repeat(500) + "b"', '"[a-z0-9]+$"'])}); let n = 0; for (let i = 0; i < ${d.pick([1, 10, 100])}; i++) n += r.test("a".repeat(${d.pick([50, 3000, 90000])})) ? 1 : 0; out.push(n);`,
  "strings made numbers": (d) => {
    const s = `"${d.pick(["1", " ", "0"])}".repeat(${d.pick([10, 5000, 1e6, 4e6])})`;
    const use = d.pick(["n += S - 0;", "n += +S;", "let x = S; x++; n += x;", "t[0] = S; n += t[0];", "n += \"ab\".charAt(S).length;", "n += Number(S);", "[t[0]] = [S];", "n |= S << 1;"]);
    return `const S = ${d.pick(["", "new String"])}(${s}); const t = new Float64Array(1); let n = 0; for (let i = 0; i < ${d.pick([1, 100, 3000])}; i++) { ${use} } out.push(String(n));`;
  },
  "properties updated and given compound assignments from objects": (d) => `const log = []; const v = (r) => ({ valueOf() { log.push(r); return ${d.pick(["r", '"1".repeat(' + d.pick(["10", "5000", "200000"]) + ")", "String(r)"])}; } }); const o = { p: v(${d.int(0, 9)}), a: [v(2)] }; for (let i = 0; i < ${d.pick(["1", "40", "400"])}; i++) { o.p = v(i); o.p${d.pick(["++", "--", " -= v(3)", " *= 2", " **= 1"])}; o.a[0] ${d.pick(["-=", "|=", "/="])} v(i); } out.push(JSON.stringify([o.p, o.a[0], log.length]));`,
  "arithmetic, ++ and compound assignments": (d) => `let x = ${d.pick(["5", '"7"', "{ valueOf() { return 3; } }", "null", "undefined"])}; const o = { p: ${d.pick(["1", '"2"', "[4]"])} }; let y = x++; y += ++x; o.p++; o.p *= 3; x -= o.p; out.push(JSON.stringify([x, y, o.p, -x, ~y, x ** 2, y % 7, x >>> 1]));`,
};

/**
 * `count` programs drawn from `seed`: each runs one to three constructs, each in its own try/catch that
 * records what was thrown, and stores what it saw. The same seed always gives the same corpus.
 */
export function generateCorpus(seed: number, count: number): Program[] {
  const random = seededRandom(seed);
  const draw: Draw = {
    int: (min, max) => min + Math.floor(random() * (max - min + 1)),
    pick: (items) => items[Math.floor(random() * items.length)]!,
  };
  const names = Object.keys(TEMPLATES);
  const programs: Program[] = [];
  for (let i = 0; i < count; i++) {
    const chosen = Array.from({ length: draw.int(1, 3) }, () => draw.pick(names));
    const parts = chosen.map((name) => `try { (function () { ${TEMPLATES[name]!(draw)} })(); } catch (e) { out.push("threw " + String(e).slice(0, 200)); }`);
    const code = `"use strict";
function init() {}
function main(input) {
  const out = [];
  ${parts.join("\n  ")}
  Chain.store("out", JSON.stringify(out).slice(0, 4000));
  return out.length + ":" + input;
}`;
    programs.push({ name: `#${i} ${chosen.join(" + ")}`, code });
  }
  return programs;
}
