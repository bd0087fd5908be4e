// Step metering by source rewriting (contract-runtime.md §2 "Decision, determinism"; compat.md §7-§8).
import { expect } from "chai";
import vm from "node:vm";
import { DEFAULT_CONTRACT_LIMITS } from "../src/limits.js";
import {
  ContractSourceError,
  MAX_ARRAY_PATTERN_NESTING,
  MAX_METERED_CHARS,
  MAX_PARSE_NESTING,
  MAX_SCOPE_NESTING,
  METER_FUNCTIONS,
  RESERVED_PREFIX,
  clearInstrumentCache,
  instrument,
  instrumentCacheSize,
  instrumentCached,
  meteredLimit,
} from "../src/js/instrument.js";

const LIMITS = { codeBytes: DEFAULT_CONTRACT_LIMITS.codeBytes };

interface Run {
  /** Steps taken while evaluating the whole source (top-level code). */
  topLevel: number;
  /** Steps taken by `call`, and its result. */
  steps: number;
  result: unknown;
}

/** A meter as the runtime's bootstrap provides it, without the memory model: steps and the stack model. */
export function testMeter(maxSteps = Infinity, maxStack = Infinity) {
  const state = { steps: 0, stack: 0, peak: 0, marks: [] as number[], frames: [] as number[], links: 0 };
  const olds: number[] = [];
  const step = (count = 1) => {
    state.steps += count;
    if (state.steps > maxSteps) throw new Error("Step exceeding limit");
  };
  const push = (bytes: number) => {
    const token = state.marks.length;
    state.marks.push(state.stack);
    state.stack += bytes;
    state.peak = Math.max(state.peak, state.stack);
    if (state.stack > maxStack) throw new Error("Stack exceeding limit");
    return token;
  };
  const restore = (token: number) => {
    state.stack = state.marks[token]!;
    state.marks.length = token;
  };
  const functions: Record<(typeof METER_FUNCTIONS)[number], Function> = {
    __chainsim_enter: (frame: number, _weight: number, count: number) => (step(count), state.frames.push(frame), push(frame)),
    __chainsim_leave: restore,
    __chainsim_step: (_weight: number, count: number) => step(count),
    __chainsim_push: push,
    __chainsim_pop: (token: number, value: unknown) => (restore(token), value),
    __chainsim_args: (list: Iterable<unknown>) => {
      const copy = [...list];
      state.stack += 16 * copy.length;
      return copy;
    },
    __chainsim_spread: (list: Iterable<unknown>) => [...list],
    __chainsim_sized: (value: unknown) => value,
    __chainsim_str: (value: unknown) => value,
    __chainsim_caught: () => undefined,
    __chainsim_regexp: (source: string, flags: string) => new RegExp(source, flags),
    __chainsim_enumerated: (value: unknown) => value,
    __chainsim_iterated: (value: unknown) => value,
    // The comparisons keep their meaning; what they charge is the runtime's (guards.test.ts).
    __chainsim_seq: (a: unknown, b: unknown) => a === b,
    __chainsim_sne: (a: unknown, b: unknown) => a !== b,
    // eslint-disable-next-line eqeqeq
    __chainsim_leq: (a: unknown, b: unknown) => a == b,
    // eslint-disable-next-line eqeqeq
    __chainsim_lne: (a: unknown, b: unknown) => a != b,
    __chainsim_lt: (a: any, b: any) => a < b,
    __chainsim_gt: (a: any, b: any) => a > b,
    __chainsim_le: (a: any, b: any) => a <= b,
    __chainsim_ge: (a: any, b: any) => a >= b,
    __chainsim_switched: (value: unknown) => value,
    // A write target that reads and writes in strict mode (the runtime's charges lengths: guards.test.ts).
    __chainsim_keyed: (key: unknown) => key,
    __chainsim_fieldkey: (key: unknown) => key,
    __chainsim_field: (_site: number, _weight: number, _steps: number, value?: unknown, anonymous?: 1, name?: string) => {
      if (anonymous === 1 && typeof value === "function" && value.name === "") Object.defineProperty(value, "name", { value: name, configurable: true });
      return value;
    },
    __chainsim_member: (object: any, key: PropertyKey) => ({
      get value() {
        return object[key];
      },
      set value(value: unknown) {
        object[key] = value;
      },
      get numeric() {
        return +object[key];
      },
      set numeric(value: unknown) {
        object[key] = value;
      },
    }),
    // Prototype chains are checked by the runtime (guards.test.ts); here each link is counted.
    __chainsim_classmade: () => void state.links++,
    __chainsim_protolink: (proto: unknown) => (state.links++, proto),
    // Arithmetic keeps its meaning; what it charges is the runtime's (guards.test.ts).
    __chainsim_sub: (a: any, b: any) => a - b,
    __chainsim_mul: (a: any, b: any) => a * b,
    __chainsim_div: (a: any, b: any) => a / b,
    __chainsim_mod: (a: any, b: any) => a % b,
    __chainsim_pow: (a: any, b: any) => a ** b,
    __chainsim_band: (a: any, b: any) => a & b,
    __chainsim_bor: (a: any, b: any) => a | b,
    __chainsim_bxor: (a: any, b: any) => a ^ b,
    __chainsim_shl: (a: any, b: any) => a << b,
    __chainsim_shr: (a: any, b: any) => a >> b,
    __chainsim_ushr: (a: any, b: any) => a >>> b,
    __chainsim_neg: (x: any) => -x,
    __chainsim_pos: (x: any) => +x,
    __chainsim_bnot: (x: any) => ~x,
    __chainsim_pre: (x: any, delta: number) => +x + delta,
    __chainsim_post: (x: any, delta: number) => (olds.push(+x), +x + delta),
    __chainsim_old: () => olds.pop(),
    __chainsim_num: (value: unknown) => value,
    __chainsim_closing: (iterable: unknown) => iterable,
    __chainsim_compound: (target: { value: unknown }, operate: (a: unknown, b: unknown) => unknown, right: () => unknown) => (target.value = operate(target.value, right())),
    __chainsim_key: (key: unknown) => key,
    __chainsim_in: (key: PropertyKey, object: object) => key in object,
    __chainsim_with: (value: unknown, update: (value: unknown) => unknown) => update(value),
  };
  return { state, functions: METER_FUNCTIONS.map((name) => functions[name]) };
}

/**
 * Instruments `source` (plus a line that exposes `call` as an arrow), evaluates it in a fresh node:vm
 * context with a test meter, then evaluates `call` there. The exposing arrow's own step is not counted.
 */
function run(source: string, call?: string, maxSteps = Infinity, maxStack = Infinity): Run {
  const meter = testMeter(maxSteps, maxStack);
  const context = vm.createContext({});
  const exposed = call === undefined ? source : `${source}\nglobalThis.harnessCall = () => (${call});`;
  const wrapper = vm.runInContext(instrument(exposed, LIMITS), context, { filename: "contract.js" });
  wrapper(...meter.functions).call(context);
  const topLevel = meter.state.steps;
  meter.state.steps = 0;
  const result = call === undefined ? undefined : vm.runInContext("harnessCall()", context);
  return { topLevel, steps: call === undefined ? 0 : meter.state.steps - 1, result };
}

function steps(source: string, call: string): number {
  return run(source, call).steps;
}

function refusal(source: string, limits = LIMITS): ContractSourceError {
  try {
    instrument(source, limits);
  } catch (error) {
    expect(error).to.be.instanceOf(ContractSourceError);
    return error as ContractSourceError;
  }
  expect.fail(`expected a refusal of: ${source}`);
}

describe("instrument: step metering", () => {
  describe("function entries", () => {
    it("a function called 3 times with a 10-iteration loop inside costs 3 + 30 steps", () => {
      const src = `"use strict";
function inner() { let s = 0; for (let i = 0; i < 10; i++) { s += i; } return s; }
function main() { return inner() + inner() + inner(); }`;
      expect(run(src, "main()")).to.deep.include({ steps: 1 + 3 + 30, result: 135 });
      expect(steps(src, "inner()")).to.equal(11);
    });

    it("recursion of depth n costs n steps", () => {
      const src = `function fact(n) { return n <= 1 ? 1 : n * fact(n - 1); }`;
      expect(run(src, "fact(10)")).to.deep.include({ steps: 10, result: 3628800 });
      expect(steps(src, "fact(1)")).to.equal(1);
    });

    it("function expressions, named function expressions and IIFEs", () => {
      expect(steps(`var f = function () { return 1; };`, "f() + f()")).to.equal(2);
      expect(steps(`var g = function h(n) { return n ? h(n - 1) : 0; };`, "g(4)")).to.equal(5);
      expect(run(`var v = (function () { return 7; })();`).topLevel).to.equal(1);
    });

    it("the top level pays its straight-line code: 1 step per 128 syntax nodes, no entry step (sixth review)", () => {
      expect(run(`var a = 1;`).topLevel).to.equal(0);
      // 1,999 statements of 6 nodes (statement, assignment, a, +, a, 1) and a declaration of 4: 93 steps.
      expect(run(`var a = 0; ${"a = a + 1; ".repeat(1999)}`).topLevel).to.equal(Math.floor((1 + 4 + 6 * 1999) / 128));
    });

    it("expression-bodied arrows, also returning object literals, and curried arrows", () => {
      expect(run(`var r = [1, 2, 3].map(x => x * 2);`, "r.join()")).to.deep.include({ topLevel: 3, result: "2,4,6" });
      const objects = run(`var o = [1, 2, 3].map((x) => ({ v: x }));`, "JSON.stringify(o)");
      expect(objects).to.deep.include({ topLevel: 3, result: '[{"v":1},{"v":2},{"v":3}]' });
      expect(run(`var add = a => b => a + b;`, "add(1)(2)")).to.deep.include({ steps: 2, result: 3 });
      expect(run(`var p = (a, b) => (a, b);`, "p(1, 2)")).to.deep.include({ steps: 1, result: 2 });
      expect(run(`var q = x => x ? 1 : { a: 1 }.a;`, "q(0)")).to.deep.include({ steps: 1, result: 1 });
    });

    it("block-bodied arrows", () => {
      expect(run(`var f = (n) => { let s = 0; while (n--) { s++; } return s; };`, "f(4)")).to.deep.include({ steps: 5, result: 4 });
    });

    it("object methods, getters and setters", () => {
      const src = `var o = { v: 0, m() { return 1; }, get g() { return this.v; }, set g(x) { this.v = x; } };`;
      expect(steps(src, "o.m()")).to.equal(1);
      expect(steps(src, "(o.g = 5, o.g)")).to.equal(2);
    });

    it("class constructors, methods, static methods, accessors and private methods", () => {
      const src = `class A {
  #n;
  constructor(n) { this.#n = n; }
  #twice() { return this.#n * 2; }
  get twice() { return this.#twice(); }
  static make(n) { return new A(n); }
}
class B extends A { constructor() { super(3); } }`;
      expect(run(src, "(new A(1), new A(2).twice)")).to.deep.include({ steps: 2 + 2, result: 4 });
      expect(steps(src, "A.make(1)")).to.equal(2);
      expect(steps(src, "new B()")).to.equal(2);
      // A class without a constructor has no function body to meter: no step.
      expect(steps(`class C {}`, "new C()")).to.equal(0);
    });

    it("static blocks run once at class definition, with a step", () => {
      expect(run(`class S { static x; static { S.x = 1; } static /* c */ { S.x++; } }`, "S.x")).to.deep.include({ topLevel: 2, result: 2 });
    });

    it("parameter defaults and field initializers that call something hold a stack frame while they run", () => {
      const src = `function one() { return 1; }
function f(a = one(), b = 2, { c } = { c: 3 }) { return a + b + c; }
class K { x = one(); y = []; z = () => 1; }`;
      expect(run(src, "f()")).to.deep.include({ steps: 1 + 1, result: 6 });
      expect(run(src, "f(5)")).to.deep.include({ steps: 1, result: 10 });
      expect(steps(src, "new K()")).to.equal(1);
      // Recursion through an initializer never enters a body: the frames it holds stop it, not V8's own stack.
      expect(() => run(`class R { x = new R(); }`, "new R()", Infinity, 512 * 1024)).to.throw("Stack exceeding limit");
      expect(() => run(`function r(a = r()) {}`, "r()", Infinity, 512 * 1024)).to.throw("Stack exceeding limit");
      // Function names inferred from the binding survive.
      expect(run(`class N { f = function () {}; }`, "new N().f.name").result).to.equal("f");
    });
  });

  describe("loops", () => {
    it("for-of over 5 items costs 5 steps", () => {
      expect(run(`var s = 0; for (const x of [1, 2, 3, 4, 5]) { s += x; }`, "s")).to.deep.include({ topLevel: 5, result: 15 });
    });

    it("for, for-in, while", () => {
      expect(run(`for (var i = 0; i < 10; i++) {}`).topLevel).to.equal(10);
      expect(run(`var k = []; for (var p in { a: 1, b: 2, c: 3, d: 4 }) { k.push(p); }`).topLevel).to.equal(4);
      expect(run(`var n = 7; while (n > 0) { n--; }`).topLevel).to.equal(7);
      expect(run(`var n = 0; while (n > 0) { n--; }`).topLevel).to.equal(0);
    });

    it("do-while runs at least once", () => {
      expect(run(`var n = 0; do { n++; } while (false);`, "n")).to.deep.include({ topLevel: 1, result: 1 });
      expect(run(`var n = 0; do { n++; } while (n < 3);`, "n")).to.deep.include({ topLevel: 3, result: 3 });
    });

    it("single-statement bodies, with and without semicolons, and empty bodies", () => {
      expect(run(`var s = 0; for (var i = 0; i < 4; i++) s += i;`, "s")).to.deep.include({ topLevel: 4, result: 6 });
      expect(run(`var s = 0\nfor (var i = 0; i < 4; i++) s += i\ns *= 2`, "s")).to.deep.include({ topLevel: 4, result: 12 });
      expect(run(`var s = 0; for (const x of [1, 2]) s += x`, "s")).to.deep.include({ topLevel: 2, result: 3 });
      expect(run(`var s = ""; for (const k in { a: 1, b: 1 }) s += k;`, "s")).to.deep.include({ topLevel: 2, result: "ab" });
      expect(run(`var n = 0; while (n < 5) n++;`, "n")).to.deep.include({ topLevel: 5, result: 5 });
      expect(run(`var n = 0; do n++; while (n < 4)`, "n")).to.deep.include({ topLevel: 4, result: 4 });
      expect(run(`var n = 0; do n++\nwhile (n < 2)`, "n")).to.deep.include({ topLevel: 2, result: 2 });
      expect(run(`for (var i = 0; i < 6; i++);`, "i")).to.deep.include({ topLevel: 6, result: 6 });
      expect(run(`var n = 3; while (n--) if (n) var m = n; else m = -1;`, "m")).to.deep.include({ topLevel: 3, result: -1 });
      expect(run(`var f = []; for (let i = 0; i < 3; i++) f.push(() => i);`, "f.map(g => g()).join()")).to.deep.include({
        topLevel: 3,
        steps: 3 + 3, // the three closures, and the call's own arrow `g => g()` three times
        result: "0,1,2",
      });
    });

    it("nested loops multiply, also with single-statement bodies", () => {
      expect(run(`var c = 0; for (var i = 0; i < 4; i++) { for (var j = 0; j < 5; j++) { c++; } }`).topLevel).to.equal(4 + 20);
      expect(run(`var c = 0; for (var i = 0; i < 4; i++) for (var j = 0; j < 5; j++) c++;`, "c")).to.deep.include({ topLevel: 24, result: 20 });
      expect(run(`var c = 0, i = 0; while (i++ < 3) for (const x of [1, 2]) while (c < 100) { c++; break; }`, "c")).to.deep.include({
        topLevel: 3 + 6 + 6,
        result: 6,
      });
    });

    it("continue still pays for each iteration, labeled loops included", () => {
      expect(run(`var n = 0; for (var i = 0; i < 10; i++) { if (i % 2) continue; n++; }`, "n")).to.deep.include({ topLevel: 10, result: 5 });
      expect(run(`var i = 0; while (i < 6) { i++; continue; }`).topLevel).to.equal(6);
      const labeled = `var n = 0;
outer: for (var i = 0; i < 3; i++) {
  inner: for (var j = 0; j < 4; j++) { if (j === 1) continue outer; n++; }
}`;
      expect(run(labeled, "n")).to.deep.include({ topLevel: 3 + 3 * 2, result: 3 });
      expect(run(`var n = 0; a: for (var i = 0; i < 3; i++) b: for (var j = 0; j < 3; j++) { if (j) continue a; n++; }`).topLevel).to.equal(3 + 6);
      expect(run(`var n = 0; l: while (n < 4) { n++; continue l; }`).topLevel).to.equal(4);
    });

    it("a step limit stops an endless loop", () => {
      expect(() => run(`while (true) {}`, undefined, 1000)).to.throw("Step exceeding limit");
      expect(() => run(`for (;;);`, undefined, 1000)).to.throw("Step exceeding limit");
      expect(() => run(`function f() { f(); }`, "f()", 1000)).to.throw("Step exceeding limit");
    });
  });

  describe("the metering inserted around expressions keeps their meaning", () => {
    /** Runs `source` instrumented with a test meter whose str/spread/args/caught/regexp record their calls. */
    function traced(source: string) {
      const meter = testMeter();
      const seen: string[] = [];
      const record = (name: string, index: number) => {
        const inner = meter.functions[index]!;
        meter.functions[index] = (...args: unknown[]) => (seen.push(name), inner(...args));
      };
      [["args", 5], ["spread", 6], ["sized", 7], ["str", 8], ["caught", 9], ["regexp", 10], ["enumerated", 11], ["iterated", 12]].forEach(([name, i]) => record(name as string, i as number));
      const entries = vm.runInNewContext(instrument(source, LIMITS))(...meter.functions)();
      return { result: entries.main(), seen, meter };
    }

    it("catch clauses with a binding, without one and with a pattern", () => {
      const { result, seen } = traced(`function main() {
        const out = [];
        try { throw new Error("a"); } catch (e) { out.push(e.message); }
        try { throw 1; } catch { out.push("none"); }
        try { throw { message: "m", code: 7 }; } catch ({ message, code = 0 }) { out.push(message + code); }
        return out.join(",");
      }`);
      expect(result).to.equal("a,none,m7");
      expect(seen.filter((s) => s === "caught")).to.have.length(3);
    });

    it("regular-expression literals, with their flags, built through the meter", () => {
      const { result, seen } = traced(`function main() { const r = /a+(b)/gi; return [r.source, r.flags, "xAAbx".replace(r, "[$1]"), /\\//.test("/")].join("|"); }`);
      expect(result).to.equal("a+(b)|gi|x[b]x|true");
      expect(seen.filter((s) => s === "regexp")).to.have.length(2);
    });

    it("spread calls keep this and optional chains keep short-circuiting", () => {
      const { result, meter } = traced(`function main() {
        const o = { k: 2, m(...a) { return this.k * a.length; } };
        const none = null;
        return [o.m(...[1, 2, 3]), none?.m(...[1]).x, Math_max(...[4, 9]), [...[1, 2], ..."ab"].join("")].join();
        function Math_max(...a) { let m = -1; for (const v of a) if (v > m) m = v; return m; }
      }`);
      expect(result).to.equal("6,,9,12ab");
      expect(meter.state.stack).to.equal(0);
    });

    it("+, += and templates keep their order of evaluation and coercion", () => {
      const source = `function main() {
        const log = [];
        const v = (n) => ({ valueOf() { log.push(n); return n; } });
        let s = "a";
        s += v(1);
        const t = \`\${v(2)}-\${"x" + v(3) + v(4)}\`;
        return [s, t, 1 + 2 + "3", log.join("")].join("|");
      }`;
      const { result, seen } = traced(source);
      const plain = vm.runInNewContext(`${source}; main()`);
      expect(result).to.equal("a1|[object Object]-x34|33|134").and.equal(plain);
      expect(seen.filter((s) => s === "str").length).to.be.at.least(5);
    });
  });

  describe("writes whose key may be length or an index from 8 go through member(o, k), in the code's own mode", () => {
    /** The rewritten contract without the wrapper around it. */
    const rewritten = (source: string) => instrument(source, LIMITS).split("return (function () {")[1]!;
    it("rewrites every kind of write target with such a key, and nothing else", () => {
      const text = rewritten(`"use strict"; a[k] = 1; a.length += 2; a["length"]++; [a[k], a.length = 3] = x; ({ y: a[k], ...a[k] } = x); for (a[k] of x); for (a.length in x); a[0] = 1; a["x"] = 1; a.x = 1; b = a[k]; b = a.length;`);
      expect(text.match(/__chainsim_member\(/g)).to.have.length(9);
      expect(text).to.include(`__chainsim_member(a,k).value = 1`).and.include(`__chainsim_member(a,"length").value += 2`).and.include(`a[0] = 1; a["x"] = 1; a.x = 1; b = a[__chainsim_key(k)]; b = a.length;`);
    });
    it("routes literal indices from 8 (numbers and canonical strings), not smaller ones or other names", () => {
      const text = rewritten(`"use strict"; a[7] = 1; a["7"] = 1; a[8] = 1; a["2574"] = 1; a[1e3] = 1; a["012"] = 1; a[1.5] = 1; a["x"] = 1;`);
      expect(text.match(/__chainsim_member\(/g)).to.have.length(3);
      expect(text).to.include(`__chainsim_member(a,8).value = 1`).and.include(`__chainsim_member(a,"2574").value = 1`).and.include(`__chainsim_member(a,1e3).value = 1`);
      expect(text).to.include(`a[7] = 1; a["7"] = 1;`).and.include(`a["012"] = 1; a[1.5] = 1; a["x"] = 1;`);
    });
    it("routes computed keys of object literals and class fields through keyed / fieldkey, an instance field paid by its initialiser", () => {
      const text = rewritten(`"use strict"; const o = { [k]: 1, [j]() {} }; class C { [k] = 1; [j]; static [s] = 2; x = 3; [m] = () => 1; }`);
      expect(text).to.include("{ [__chainsim_keyed(k)]: 1, [__chainsim_keyed(j)]() {");
      // The first instance field pays for the class's instance fields (weight, steps); the first static one for its static ones.
      expect(text).to.match(/\[__chainsim_fieldkey\(k,0\)\] = __chainsim_field\(0,\d+,\d+,1\);/);
      expect(text).to.include("[__chainsim_fieldkey(j,1)] = __chainsim_field(1,0,0);");
      expect(text).to.include("[__chainsim_fieldkey(m,3)] = __chainsim_field(3,0,0,() =>{").and.include('},1,""); }');
      expect(text).to.match(/static \[__chainsim_fieldkey\(s,2,1\)\] = __chainsim_field\(2,\d+,\d+,2\); x = 3;/);
    });
    it("marks sloppy code (the helper's third argument), and knows strict functions and classes", () => {
      const text = rewritten(`a[k] = 1; function f() { "use strict"; b[k] = 1; } class C { m() { c[k] = 1; } } function g() { d[k] = 1; }`);
      expect(text).to.include("__chainsim_member(a,k,1)").and.include("__chainsim_member(b,k).value").and.include("__chainsim_member(c,k).value").and.include("__chainsim_member(d,k,1)");
    });
    it("keeps what the writes mean: values, order, results", () => {
      const source = `function main() {
        const log = [];
        const k = { toString() { log.push("k"); return "x"; } };
        const o = { x: 1 };
        const r = [(o[k] += (log.push("v"), 2)), o[k]++, (o[(log.push("key"), "y")] = (log.push("value"), 5))];
        const a = [1, 2, 3];
        a.length = 1;
        [a[(log.push("d"), 1)]] = [7];
        return [r.join(), o.x, o.y, a.join(), log.join("")].join("|");
      }`;
      expect(run(source, "main()").result).to.equal(vm.runInNewContext(`${source}; main()`));
    });
  });

  describe("source fidelity", () => {
    const SOURCE = `"use strict";
const double = x => x * 2;
function helper(list) {
  let total = 0;
  for (const item of list) total += double(item);
  while (total > 1000) total -= 1;
  throw new Error("boom " + total);
}
function main(input) { return helper(JSON.parse(input)); }
`;

    it("keeps line numbers: an error thrown on line 7 reports line 7", () => {
      const out = instrument(SOURCE, LIMITS);
      // The source's lines stay where they were; the wrapper's closing adds two lines at the end.
      expect(out.split("\n")).to.have.length(SOURCE.split("\n").length + 2);
      expect(out).to.not.equal(SOURCE);
      let stack = "";
      try {
        run(SOURCE, `main("[1, 2, 3]")`);
      } catch (error) {
        stack = (error as Error).stack ?? "";
        expect((error as Error).message).to.equal("boom 12");
      }
      expect(stack).to.match(/contract\.js:7:/);
      expect(stack).to.match(/contract\.js:9:/);
    });

    it("keeps directive prologues first, so strict mode stays effective", () => {
      const program = `"use strict";\nfunction main() { for (const k of [1]) undeclared = k; return 1; }`;
      expect(instrument(program, LIMITS)).to.include(`return (function () {"use strict";`);
      expect(() => run(program, "main()")).to.throw(/undeclared is not defined/);
      // Without the directive the same code is sloppy and succeeds (the check above is meaningful).
      expect(run(program.slice(`"use strict";`.length), "main()").result).to.equal(1);

      const inFunction = `function main() {\n  'use strict'\n  // a comment\n  leak = 1;\n}`;
      const out = instrument(inFunction, LIMITS);
      // 8 syntax nodes: main, its body, the directive and its literal, and `leak = 1;` (4 bytes each).
      expect(out).to.include(`function main() {\n  'use strict';const __chainsim_t=__chainsim_enter(160,0,1);try{`);
      expect(() => run(inFunction, "main()")).to.throw(/leak is not defined/);
      expect(() => run(`var f = () => { "use strict"; "other"; leak2 = 1; };`, "f()")).to.throw(/leak2 is not defined/);
      expect(steps(`function g() { "use strict"; return 1; }`, "g()")).to.equal(1);
      // Straight-line code pays by its size: 1 + nodes / 128 per run of the body.
      const long = `function h() { let x = 1; ${"x = (x * 3) ^ 5;".repeat(300)} return x; }`;
      expect(steps(long, "h()")).to.be.within(15, 25);
      expect(steps(`function h() { let x = 0; for (let i = 0; i < 10; i++) { ${"x = (x * 3) ^ 5;".repeat(300)} } return x; }`, "h()")).to.be.above(180);
    });

    it("wraps every function body in a frame of the stack model, popped however the body ends", () => {
      const source = `function empty() {}
        function strictEmpty() { "use strict" }
        function slots(a, b) { var x = 1, y; let z; function inner() {} return a; }
        var arrow = (a, /* => */ b) =>
          a + b;
        var object = x => ({ x });
        var curried = () => y => y;
        function thrower() { throw new Error("out"); }
        function main() { empty(); strictEmpty(); slots(1, 2); arrow(1, 2); object(1); curried()(3); try { thrower(); } catch (e) {} return "done"; }`;
      const meter = testMeter();
      const entries = vm.runInNewContext(instrument(source, LIMITS))(...meter.functions)();
      expect(entries.main()).to.equal("done");
      expect(meter.state.stack, "every frame entered was left, the thrown one too").to.equal(0);
      // main (its widest call has 2 arguments, its catch binds e), empty, strictEmpty, slots (2 params + x, y, z,
      // inner), arrow (2), object (1), curried, its arrow (1), thrower (a call with 1 argument); and 4 bytes
      // per syntax node of each one's own code: its name and parameters, its body, but not what a nested
      // function holds (empty: its name and body; curried: the arrow it returns).
      const own = [37, 2, 4, 16, 5, 5, 1, 2, 6];
      const slots = [3, 0, 0, 6, 2, 1, 0, 1, 1];
      expect(meter.state.frames).to.deep.equal(slots.map((n, i) => 128 + 16 * n + 4 * own[i]!));
      expect(meter.state.peak).to.equal(128 + 16 * 3 + 4 * 37 + 128 + 16 * 6 + 4 * 16);
    });

    it("counts every name a destructuring pattern binds as a slot: V8 gives each a register", () => {
      const source = `function pick({ a, b: [c, { d }], h }, [e = 1, , f]) { const { g, h: { i } } = { h }; let [j, ...k] = [f]; return a; }
        function main() { pick({ a: 1, b: [2, { d: 3 }], h: {} }, [4, 5, 6]); return "done"; }`;
      const meter = testMeter();
      const entries = vm.runInNewContext(instrument(source, LIMITS))(...meter.functions)();
      expect(entries.main()).to.equal("done");
      // pick: params a, c, d, h, e, f; declarations g, i, j, k; and 48 syntax nodes of its own, of which three
      // array patterns count 16 each and a default 2 (instrument.ts frameNodes): 94.
      expect(meter.state.frames[1]).to.equal(128 + 16 * 10 + 4 * (48 + 3 * 15 + 1));
    });

    it("takes a rest element only where its source can be charged first: a declaration or an assignment of its own", () => {
      for (const allowed of [`const { a, ...r } = o;`, `let [a, ...r] = o;`, `let a, r; ({ a, ...r } = o);`, `let a, r; [a, ...r] = o;`, `function f(...args) { return args; }`]) {
        expect(() => instrument(`function main(o) { ${allowed} }`, LIMITS), allowed).to.not.throw();
      }
      for (const refused of [`function f({ ...r }) {}`, `function f([a, ...r]) {}`, `const { x: { ...r } } = o;`, `const [[...r]] = o;`, `for (const { ...r } of o) {}`, `for (const [...r] in o) {}`, `try {} catch ({ ...r }) {}`, `let r; ({ x: { ...r } } = o);`, `const f = ({ ...r }) => r;`]) {
        expect(() => instrument(`function main(o) { ${refused} }`, LIMITS), refused).to.throw(ContractSourceError, /A rest element is allowed in contracts only/);
      }
    });

    it("updates a private field of another object through __chainsim_with, refusing only a parenthesized compound target", () => {
      const text = instrument(`class C { #p = 1; m(o) { o.#p++; ++o.#p; o.#p -= 2; (o).#p--; } }`, LIMITS);
      expect(text).to.include("__chainsim_with(o,(__chainsim_o)=>__chainsim_num(__chainsim_o.#p=__chainsim_pre(__chainsim_o.#p,1)))");
      expect(text).to.include("__chainsim_with(o,(__chainsim_o)=>__chainsim_o.#p=__chainsim_sub(__chainsim_o.#p,  2))");
      expect(text).to.include("__chainsim_with((o),(__chainsim_o)=>__chainsim_num(__chainsim_o.#p=__chainsim_pre(__chainsim_o.#p,-1)))");
      expect(() => instrument(`class C { #p = 1; m(o) { (o.#p) -= 2; } }`, LIMITS)).to.throw(ContractSourceError, /A parenthesized private field of another object/);
    });

    it("is deterministic: the same source instruments to the same string", () => {
      expect(instrument(SOURCE, LIMITS)).to.equal(instrument(SOURCE, LIMITS));
      expect(instrument(SOURCE, LIMITS)).to.equal(instrument(SOURCE, { codeBytes: 1 << 30 }));
    });

    it("instruments a full contract that still behaves the same", () => {
      const contract = `"use strict";
let state = {};
function init(input) { state = JSON.parse(input); return "ok"; }
function main(input) {
  const args = JSON.parse(input);
  let sum = 0;
  for (let i = 0; i < args.n; i += 1) { sum += i; }
  return String(sum);
}
function query(input) {
  return Object.keys(state).filter((k) => k !== input).map((k) => k + "=" + state[k]).join(";");
}
`;
      const entries = vm.runInNewContext(instrument(contract, LIMITS))(...testMeter().functions)();
      expect(entries.init('{"a":1,"b":2,"c":3}')).to.equal("ok");
      expect(entries.main('{"n":5}')).to.equal("10");
      expect(entries.query("b")).to.equal("a=1;c=3");
    });

    it("handles non-ASCII text (positions are UTF-16 offsets)", () => {
      expect(run(`var s = "ünïcødé 😀"; for (const c of "😀é") s += c;`, "s")).to.deep.include({ topLevel: 2, result: "ünïcødé 😀😀é" });
    });
  });

  describe("refusals", () => {
    it("nesting past MAX_PARSE_NESTING: 152 at the same place however warm the parser is, never a parse that depends on the host's stack", () => {
      const nested = (levels: number) => `function main() { const n = 1; return ${"n - (".repeat(levels)}1${")".repeat(levels)}; }`;
      expect(() => instrument(nested(150), LIMITS)).not.to.throw();
      // The host's own stack would end acorn somewhere between a few hundred and a few thousand levels,
      // depending on what ran before: the bound must refuse first, at one place.
      const messages = new Set<string>();
      for (const levels of [300, 600, 1000, 5000, 20000]) {
        for (let i = 0; i < 30; i++) instrument(nested(100 + (i % 7)), LIMITS); // warm the parser up in between
        const error = refusal(nested(levels));
        expect(error.code).to.equal(152);
        messages.add(error.message);
      }
      expect([...messages]).to.deep.equal([`SyntaxError: Contract code is nested more than ${MAX_PARSE_NESTING} levels deep (1:1033)`]);
    });

    it("blocks and functions nested past MAX_SCOPE_NESTING: 152 (acorn looks at every open scope for each identifier: 790 blocks made instrumenting 4-8 times slower)", () => {
      const blocks = (levels: number) => `function main(o, k) { ${"{".repeat(levels)}o[k];${"}".repeat(levels)} }`;
      expect(() => instrument(blocks(MAX_SCOPE_NESTING - 2), LIMITS)).not.to.throw();
      // (padded, or the metered text would be too large for so short a source)
      const arrows = (levels: number) => `function main() { return ${"() => ".repeat(levels)}0; } // ${"x".repeat(10_000)}`;
      expect(() => instrument(arrows(MAX_SCOPE_NESTING - 2), LIMITS)).not.to.throw();
      for (const source of [blocks(MAX_SCOPE_NESTING), arrows(MAX_SCOPE_NESTING), blocks(790)]) {
        const error = refusal(source);
        expect(error.code).to.equal(152);
        expect(error.message).to.match(new RegExp(`^SyntaxError: Contract code nests blocks and functions more than ${MAX_SCOPE_NESTING} deep \\(1:\\d+\\)$`));
      }
    });

    it("metered text past 8 characters per character of source plus 4,096 (at most 2 Mi): 152, so that compiling it stays charged by the source", () => {
      // 53 KB of one-line arrows became 1.7 Mi characters, compiled for 0.1-0.3 s in every nested call of 1,200 steps.
      const arrows = `function init() {} function main() { return "x"; } const A = [${("x=>".repeat(40) + "0,").repeat(420)}0];`;
      const error = refusal(arrows);
      expect(error.code).to.equal(152);
      expect(error.message).to.match(new RegExp(`^SyntaxError: Contract code would be \\d+ characters metered, more than ${meteredLimit(arrows.length)}: write fewer, larger functions$`));
      expect(meteredLimit(arrows.length)).to.equal(8 * arrows.length + 4096);
      expect(meteredLimit(1_000_000)).to.equal(MAX_METERED_CHARS);
      // Small contracts and ordinary code stay well within: a few arrows, and statements.
      const small = `function main(input) { return JSON.stringify([1, 2, 3].map((x) => x * 2).filter((x) => x > 2)); }`;
      const ordinary = `function main(input) { ${"{ let v = Chain.load(input); if (v === false) { v = '0'; } Chain.store(input, String(Number(v) + 1)); } ".repeat(2000)} }`;
      for (const source of [small, ordinary]) expect(instrument(source, LIMITS).length).to.be.below(meteredLimit(source.length));
    });

    it("array patterns nested past MAX_ARRAY_PATTERN_NESTING, through object patterns and defaults too: 152", () => {
      const nested = (levels: number, open = "[", close = "]") => `function main(a) { const ${open.repeat(levels)}x${close.repeat(levels)} = a; }`;
      expect(() => instrument(nested(MAX_ARRAY_PATTERN_NESTING), LIMITS)).not.to.throw();
      const throughDefaults = `function main(a) { let x; ${"[x = (".repeat(MAX_ARRAY_PATTERN_NESTING)}[x] = a${")] = a".repeat(MAX_ARRAY_PATTERN_NESTING)}; }`;
      for (const source of [nested(MAX_ARRAY_PATTERN_NESTING + 1), nested(MAX_ARRAY_PATTERN_NESTING + 1, "[{ p: ", "}]"), nested(MAX_ARRAY_PATTERN_NESTING + 1, "[", " = 1]"), throughDefaults]) {
        const error = refusal(source);
        expect(error.code, source.slice(0, 60)).to.equal(152);
        expect(error.message).to.include(`Array patterns nested more than ${MAX_ARRAY_PATTERN_NESTING} deep are not allowed in contracts`);
      }
    });

    it("a source that does not parse: 152 with line and column", () => {
      const error = refusal(`"use strict";\nfunction main() {\n  var = 1;\n}`);
      expect(error.code).to.equal(152);
      expect(error.message).to.equal("SyntaxError: Unexpected token (3:6)");
      expect([error.line, error.column]).to.deep.equal([3, 6]);
      expect(refusal(`import x from "y";`).code).to.equal(152);
      expect(refusal(`return 1;`).code).to.equal(152);
      expect(refusal(`#!/usr/bin/env node\nfunction main() {}`).code).to.equal(152);
    });

    it("code over the size limit (UTF-8 bytes): 155", () => {
      const limit = DEFAULT_CONTRACT_LIMITS.codeBytes;
      const base = `"use strict";\nfunction main() { return "x"; }\n//`;
      const exact = base + "a".repeat(limit - base.length);
      expect(Buffer.byteLength(exact)).to.equal(256 * 1024);
      expect(() => instrument(exact, LIMITS)).to.not.throw();
      const error = refusal(exact + "a");
      expect(error.code).to.equal(155);
      expect(error.message).to.equal("Contract code is too large");
      // Bytes, not characters: 2 characters of 2 bytes each exceed a 3-byte limit.
      expect(refusal("'é'", { codeBytes: 3 }).code).to.equal(155);
      expect(() => instrument("'é'", { codeBytes: 4 })).to.not.throw();
      expect(refusal("this is not javascript", { codeBytes: 5 }).code).to.equal(155);
    });

    const cases: [string, string, RegExp, number][] = [
      ["reserved identifier (call)", `function main() {\n  ${RESERVED_PREFIX}();\n}`, /Reserved identifier __chainsim.*\(2:2\)/, 2],
      ["reserved identifier (binding)", `var ${RESERVED_PREFIX} = 1;`, /Reserved identifier __chainsim.*\(1:4\)/, 1],
      ["reserved identifier (property key)", `var o = {\n ${RESERVED_PREFIX}: 1 };`, /Reserved identifier.*\(2:1\)/, 2],
      ["reserved identifier (member)", `this.${RESERVED_PREFIX} = null;`, /Reserved identifier.*\(1:5\)/, 1],
      ["reserved identifier (string key)", `var o = {}; o["${RESERVED_PREFIX}"] = 1;`, /Reserved identifier.*string.*\(1:14\)/, 1],
      ["reserved identifier (template)", `var k = \`${RESERVED_PREFIX}\`;`, /Reserved identifier.*template/, 1],
      ["reserved identifier (escaped)", `var \\u005f_chainsim_step = 1;`, /Reserved identifier.*\(1:4\)/, 1],
      ["reserved identifier (prefix)", `${RESERVED_PREFIX}_used();`, /Reserved identifier.*__chainsim_used/, 1],
      ["reserved identifier (label)", `${RESERVED_PREFIX}: for (;;) break ${RESERVED_PREFIX};`, /Reserved identifier/, 1],
      ["reserved identifier (private)", `class P { #${RESERVED_PREFIX} = 1; }`, /Reserved identifier.*#__chainsim/, 1],
      ["direct eval", `"use strict";\nfunction main(x) {\n  return eval(x);\n}`, /^Direct eval is not allowed.*\(3:9\)/, 3],
      ["indirect eval", `var e = (0, eval);`, /^eval is not allowed.*\(1:12\)/, 1],
      ["Function constructor (new)", `\nvar f = new Function("while(1);");`, /Function constructor is not allowed.*\(2:12\)/, 2],
      ["Function constructor (call)", `var f = Function("return 1")();`, /Function constructor.*\(1:8\)/, 1],
      ["Function (shorthand)", `var o = { Function };`, /Function constructor.*\(1:10\)/, 1],
      ["with statement", `var o = {};\nwith (o) { x = 1; }`, /'with' statement is not allowed.*\(2:0\)/, 2],
      ["import()", `function main() {\n  return import("x");\n}`, /import\(\) is not allowed.*\(2:9\)/, 2],
      ["async function", `async function main() {}`, /Async function is not allowed in contracts: contracts are synchronous \(1:0\)/, 1],
      ["async arrow", `var f = async () => 1;`, /Async function.*synchronous.*\(1:8\)/, 1],
      ["async method", `var o = {\n  async m() { await 1; } };`, /Async method.*synchronous.*\(2:2\)/, 2],
      ["await in an async function", `async function f() { for await (const x of []) {} }`, /Async function.*synchronous/, 1],
      ["generator function", `function* gen() {\n  yield 1;\n}`, /Generator function is not allowed in contracts: contracts are synchronous \(1:0\)/, 1],
      ["generator method", `class G {\n  *[Symbol.iterator]() { yield 1; }\n}`, /Generator method.*synchronous.*\(2:2\)/, 2],
      ["async generator", `var g = async function* () {};`, /(Async|Generator) function.*synchronous/, 1],
      ["a write to super[…]", `class A extends Array {\n  m(k) { super[k] = 1; } }`, /Writing super\[…\] or super\.length is not allowed in contracts.*\(2:9\)/, 2],
      ["a write to super.length", `class A extends Array { m() { super.length++; } }`, /Writing super.*\(1:30\)/, 1],
    ];
    for (const [what, source, message, line] of cases) {
      it(`refuses ${what} with 152, naming it and its line`, () => {
        const error = refusal(source);
        expect(error.code).to.equal(152);
        expect(error.message).to.match(message);
        expect(error.line).to.equal(line);
      });
    }

    it("accepts the allowed look-alikes: property names, comments, other strings", () => {
      const ok = [
        `var o = { eval: 1, Function: 2 }; o.eval + o.Function;`,
        `class X { eval() {} static Function() {} }`,
        `// ${RESERVED_PREFIX} in a comment\n/* eval(Function) */ var s = "eval Function with";`,
        `var s = "prefix ${RESERVED_PREFIX}";`,
        `var o = { async: 1, get: 2, set: 3, static: 4 }; var await = 1; var yield = 2;`,
      ];
      for (const source of ok) expect(() => instrument(source, LIMITS), source).to.not.throw();
    });

    it("absurdly deep nesting is a 152, not a crash", () => {
      const deep = "var x = " + "[".repeat(100_000) + "]".repeat(100_000) + ";";
      expect(refusal(deep).code).to.equal(152);
    });
  });

  describe("cache and performance", () => {
    beforeEach(() => clearInstrumentCache());

    it("instrumentCached returns the instrumented source, caches it, and still checks the size limit", () => {
      const source = `function main() { for (;;) break; }`;
      const first = instrumentCached(source, LIMITS);
      expect(first).to.equal(instrument(source, LIMITS));
      expect(instrumentCacheSize()).to.equal(1);
      expect(instrumentCached(source, LIMITS)).to.equal(first);
      expect(instrumentCacheSize()).to.equal(1);
      try {
        instrumentCached(source, { codeBytes: 10 });
        expect.fail("expected 155");
      } catch (error) {
        expect((error as ContractSourceError).code).to.equal(155);
      }
      expect(() => instrumentCached(`eval("1")`, LIMITS)).to.throw(ContractSourceError);
      expect(instrumentCacheSize()).to.equal(1);
    });

    it("keys on the exact string (lone surrogates do not collide)", () => {
      const a = instrumentCached(`var s = "\ud800"; function f() {}`, LIMITS);
      const b = instrumentCached(`var s = "\ud801"; function f() {}`, LIMITS);
      expect(a).to.not.equal(b);
      expect(instrumentCacheSize()).to.equal(2);
    });

    it("stays bounded", () => {
      for (let i = 0; i < 300; i++) instrumentCached(`function f${i}() {}`, LIMITS);
      expect(instrumentCacheSize()).to.be.at.most(256);
    });

    it("parses declarations in time linear in their number: 40,000 names in one scope take about what 40,000 statements do (acorn searched the scope's list, 11 s for 64,890)", () => {
      const names = Array.from({ length: 40_000 }, (_, i) => `n_${i.toString(36)}`);
      const declared = `function main() { let ${names.join(",")}; }`;
      const statements = `function main() { ${names.map((name) => `${name};`).join("")} }`;
      const fastest = (source: string) =>
        Math.min(
          ...Array.from({ length: 3 }, () => {
            const started = performance.now();
            instrument(source, LIMITS);
            return performance.now() - started;
          }),
        );
      // Quadratic, the declarations took over 20 times as long; linear, about as long.
      expect(fastest(declared)).to.be.below(5 * fastest(statements));
    });

    it("instruments a 100 KiB contract well under 100 ms", () => {
      const parts = [`"use strict";`];
      let i = 0;
      while (parts.join("\n").length < 100 * 1024) {
        parts.push(`function f${i}(list, n = 1) {
  let total = 0;
  for (let j = 0; j < list.length; j++) { total += list[j] * n; }
  for (const x of list) if (x > 2) total -= 1;
  const pick = list.filter((x) => x % 2 === 0).map(x => ({ v: x }));
  while (total > 100) total = total / 2;
  const o = { get v() { return total; }, m() { return pick.length; } };
  return o.v + o.m();
}`);
        i++;
      }
      const source = parts.join("\n");
      const time = (f: () => unknown) => {
        const started = performance.now();
        f();
        return performance.now() - started;
      };
      const cold = time(() => instrument(source, LIMITS));
      for (let k = 0; k < 3; k++) instrument(source, LIMITS); // warm-up (JIT)
      const runs = Array.from({ length: 7 }, () => time(() => instrument(source, LIMITS))).sort((a, b) => a - b);
      const ms = runs[3]!;
      let out = "";
      const miss = time(() => (out = instrumentCached(source, LIMITS)));
      const hit = time(() => instrumentCached(source, LIMITS));
      console.log(
        `      ${(source.length / 1024).toFixed(0)} KiB, ${i} functions: first ${cold.toFixed(1)} ms, median ${ms.toFixed(1)} ms ` +
          `(min ${runs[0]!.toFixed(1)}, max ${runs[6]!.toFixed(1)}); cached: miss ${miss.toFixed(1)} ms, hit ${hit.toFixed(2)} ms`,
      );
      expect(hit).to.be.lessThan(ms);
      expect(out.length).to.be.greaterThan(source.length);
      expect(run(source, `f0([1, 2, 3, 4])`).result).to.equal(8 + 2);
      expect(ms).to.be.lessThan(1000);
    });
  });
});
