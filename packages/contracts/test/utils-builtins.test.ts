// Utils.* as a contract sees it: installed from source text in a real isolate, crypto through the host bridge.
import { expect } from "chai";
import ivm from "isolated-vm";
import { createHash } from "node:crypto";
import { fromHex, signBlob, toHex, utf8 } from "@chainsim/protocol";
import { NodeEd25519Signer } from "@chainsim/protocol/node-crypto";
import { KEY_VECTORS, RANGE_VECTORS, TALLY_VECTOR } from "@chainsim/protocol/testing";
import { installUtils } from "../src/js/utils-builtins.js";
import { utilsCrypto } from "../src/utils-host.js";

const MAX = "9223372036854775807";
const MIN = "-9223372036854775808";
const ILLEGAL = (fn: string, i: number) => `Contract execution error, ${fn}, parameter ${i} illegal, maybe exceed the limit value of int64.`;
const OVERFLOW = (fn: string, sign: string) => `Contract execution error, ${fn}, parameter 0 ${sign} parameter 1 overflowed`;
const sha256Hex = (data: Uint8Array | string) => createHash("sha256").update(data).digest("hex");
const js = (v: unknown) => JSON.stringify(v);

interface Outcome {
  value?: unknown;
  threw?: unknown;
  type: string;
  ok: boolean;
}

const FUNCTIONS = [
  "log",
  "stoI64Check",
  "int64Add",
  "int64Sub",
  "int64Mul",
  "int64Div",
  "int64Mod",
  "int64Compare",
  "assert",
  "toBaseUnit",
  "HexToDec",
  "hexToDec",
  "sha256",
  "ecVerify",
  "addressCheck",
  "toAddress",
  "bpRangeProofVerify",
  "pedersenTallyVerify",
];

describe("Utils built-ins (isolated-vm)", () => {
  let isolate: ivm.Isolate;
  let context: ivm.Context;
  let charges = 0;
  let cryptoCalls: string[] = [];
  let logs: string[] = [];
  const refs = [
    new ivm.Reference(() => {
      charges++;
    }),
    new ivm.Reference((name: string, argsJson: string) => {
      cryptoCalls.push(name);
      return utilsCrypto(name, argsJson);
    }),
    new ivm.Reference((text: string) => {
      logs.push(text);
    }),
  ];

  /** A fresh context with Utils installed over a bridge to this test's host functions. */
  async function installedContext(chargeSource = "() => $0.applySync(undefined, [])"): Promise<ivm.Context> {
    const ctx = await isolate.createContext();
    await ctx.evalClosure(
      `const bridge = {
        charge: ${chargeSource},
        crypto: (name, argsJson) => $1.applySync(undefined, [name, argsJson]),
        log: (text) => $2.applySync(undefined, [text]),
      };
      (${installUtils.toString()})(globalThis, bridge);`,
      refs,
    );
    return ctx;
  }

  /** Runs a function body in the contract context; catches inside, so thrown values come back as they are. */
  async function runIn(ctx: ivm.Context, body: string): Promise<Outcome> {
    return (await ctx.eval(
      `(() => {
        try {
          const v = (() => { ${body} })();
          return { ok: true, value: v, type: typeof v };
        } catch (e) {
          return { ok: false, threw: e, type: typeof e };
        }
      })()`,
      { timeout: 1000, copy: true },
    )) as Outcome;
  }
  const run = (expr: string) => runIn(context, `return (${expr});`);

  /** The value of `expr`; fails if it throws. */
  async function value(expr: string): Promise<unknown> {
    const outcome = await run(expr);
    expect(outcome.ok, `${expr} threw ${js(outcome.threw)}`).to.equal(true);
    return outcome.value;
  }
  /** What `expr` throws, checked to be a plain string (contract-runtime.md §5). */
  async function thrown(expr: string): Promise<string> {
    const outcome = await run(expr);
    expect(outcome.ok, `${expr} returned ${js(outcome.value)}`).to.equal(false);
    expect(outcome.type, `${expr} threw a ${outcome.type}`).to.equal("string");
    return outcome.threw as string;
  }

  before(async () => {
    isolate = new ivm.Isolate({ memoryLimit: 32 });
    context = await installedContext();
  });
  after(() => {
    refs.forEach((r) => r.release());
    isolate.dispose();
  });
  beforeEach(() => {
    charges = 0;
    cryptoCalls = [];
    logs = [];
  });

  describe("installation", () => {
    it("installs every documented function on a global Utils, hexToDec being HexToDec", async () => {
      for (const name of FUNCTIONS) expect(await value(`typeof Utils.${name}`), name).to.equal("function");
      expect(await value("Utils.hexToDec === Utils.HexToDec")).to.equal(true);
      expect(await value("Object.keys(Utils).sort()")).to.deep.equal([...FUNCTIONS].sort());
      expect(await value("Utils.int64Add.name")).to.equal("int64Add");
      expect(charges).to.equal(0);
    });

    it("needs nothing outside its own source text", async () => {
      // The source alone, in a bare context with a stub bridge: no imports, no TypeScript helpers.
      const bare = await isolate.createContext();
      const answer = await bare.eval(
        `(${installUtils.toString()})(globalThis, { charge() {}, crypto: () => "false", log() {} }); Utils.int64Add("1", "2")`,
        { timeout: 1000, copy: true },
      );
      expect(answer).to.equal("3");
      bare.release();
    });

    it("still works once the contract globals the bootstrap removes are gone", async () => {
      const ctx = await isolate.createContext();
      const answer = await ctx.eval(
        `for (const n of ["Date", "Math", "WebAssembly", "Atomics", "SharedArrayBuffer", "eval", "Function"]) delete globalThis[n];
         (${installUtils.toString()})(globalThis, { charge() {}, crypto: () => "false", log() {} });
         [Utils.int64Mul("3", "4"), Utils.toBaseUnit("1.5"), Utils.HexToDec("0xff"), Utils.stoI64Check("-5")]`,
        { timeout: 1000, copy: true },
      );
      expect(answer).to.deep.equal(["12", "150000000", "255", true]);
      ctx.release();
    });
  });

  describe("int64 arithmetic", () => {
    it("int64Add adds strings, numbers and mixes", async () => {
      expect(await value(`Utils.int64Add("1", "2")`)).to.equal("3");
      expect(await value(`Utils.int64Add(1, 2)`)).to.equal("3");
      expect(await value(`Utils.int64Add("-10", 4)`)).to.equal("-6");
      expect(await value(`Utils.int64Add("0", "0")`)).to.equal("0");
      expect(await value(`Utils.int64Add("${MAX}", "0")`)).to.equal(MAX);
      expect(await value(`Utils.int64Add("${MIN}", "${MAX}")`)).to.equal("-1");
      expect(await value(`Utils.int64Add("${MAX}", "${MIN}")`)).to.equal("-1");
      expect(await value(`Utils.int64Add("9223372036854775806", "1")`)).to.equal(MAX);
      expect(await value(`Utils.int64Add("-9223372036854775807", "-1")`)).to.equal(MIN);
      // A Number's string form decides: -0 is "0", 2^53 is exact.
      expect(await value(`Utils.int64Add(-0, 0)`)).to.equal("0");
      expect(await value(`Utils.int64Add(9007199254740992, 1)`)).to.equal("9007199254740993");
    });

    it("int64Add detects overflow by exactly one", async () => {
      expect(await thrown(`Utils.int64Add("${MAX}", "1")`)).to.equal(OVERFLOW("int64Add", "+"));
      expect(await thrown(`Utils.int64Add("1", "${MAX}")`)).to.equal(OVERFLOW("int64Add", "+"));
      expect(await thrown(`Utils.int64Add("${MIN}", "-1")`)).to.equal(OVERFLOW("int64Add", "+"));
      expect(await thrown(`Utils.int64Add("${MAX}", "${MAX}")`)).to.equal(OVERFLOW("int64Add", "+"));
    });

    it("rejects every argument that is not a canonical int64, naming the function and the parameter", async () => {
      const bad = [
        `"+5"`,
        `"05"`,
        `"5.0"`,
        `"-0"`,
        `"00"`,
        `""`,
        `"-"`,
        `" 5"`,
        `"5 "`,
        `"1e3"`,
        `"0x10"`,
        `"9223372036854775808"`,
        `"-9223372036854775809"`,
        `"99999999999999999999999"`,
        `1.5`,
        `NaN`,
        `Infinity`,
        `1e21`,
        `9223372036854775807`, // as a Number it reads 9223372036854776000: beyond int64
        `true`,
        `null`,
        `undefined`,
        `{}`,
        `[1]`,
        `10n`,
      ];
      for (const b of bad) {
        expect(await thrown(`Utils.int64Add(${b}, "1")`), b).to.equal(ILLEGAL("int64Add", 0));
        expect(await thrown(`Utils.int64Add("1", ${b})`), b).to.equal(ILLEGAL("int64Add", 1));
      }
      // Parameter 0 is checked first.
      expect(await thrown(`Utils.int64Sub("x", "y")`)).to.equal(ILLEGAL("int64Sub", 0));
      for (const fn of ["int64Add", "int64Sub", "int64Mul", "int64Div", "int64Mod", "int64Compare"]) {
        expect(await thrown(`Utils.${fn}("1", "05")`), fn).to.equal(ILLEGAL(fn, 1));
        expect(await thrown(`Utils.${fn}("-0", "1")`), fn).to.equal(ILLEGAL(fn, 0));
      }
    });

    it("wants exactly two arguments", async () => {
      for (const fn of ["int64Add", "int64Sub", "int64Mul", "int64Div", "int64Mod", "int64Compare"]) {
        expect(await thrown(`Utils.${fn}()`), fn).to.equal("Parameter number error");
        expect(await thrown(`Utils.${fn}("1")`), fn).to.equal("Parameter number error");
        expect(await thrown(`Utils.${fn}("1", "2", "3")`), fn).to.equal("Parameter number error");
      }
    });

    it("int64Sub subtracts and detects overflow", async () => {
      expect(await value(`Utils.int64Sub("5", "7")`)).to.equal("-2");
      expect(await value(`Utils.int64Sub(5, "-7")`)).to.equal("12");
      expect(await value(`Utils.int64Sub("${MIN}", "-1")`)).to.equal("-9223372036854775807");
      expect(await value(`Utils.int64Sub("-1", "${MAX}")`)).to.equal(MIN);
      expect(await thrown(`Utils.int64Sub("${MIN}", "1")`)).to.equal(OVERFLOW("int64Sub", "-"));
      expect(await thrown(`Utils.int64Sub("${MAX}", "-1")`)).to.equal(OVERFLOW("int64Sub", "-"));
      expect(await thrown(`Utils.int64Sub("0", "${MIN}")`)).to.equal(OVERFLOW("int64Sub", "-"));
    });

    it("int64Mul multiplies and detects overflow", async () => {
      expect(await value(`Utils.int64Mul("3", "-4")`)).to.equal("-12");
      expect(await value(`Utils.int64Mul(0, "${MIN}")`)).to.equal("0");
      expect(await value(`Utils.int64Mul("${MAX}", "1")`)).to.equal(MAX);
      expect(await value(`Utils.int64Mul("${MAX}", "-1")`)).to.equal("-9223372036854775807");
      expect(await value(`Utils.int64Mul("-4611686018427387904", "2")`)).to.equal(MIN);
      expect(await value(`Utils.int64Mul("3037000499", "3037000499")`)).to.equal("9223372030926249001");
      expect(await thrown(`Utils.int64Mul("${MIN}", "-1")`)).to.equal(OVERFLOW("int64Mul", "*"));
      expect(await thrown(`Utils.int64Mul("4611686018427387904", "2")`)).to.equal(OVERFLOW("int64Mul", "*"));
      expect(await thrown(`Utils.int64Mul("4294967296", "4294967296")`)).to.equal(OVERFLOW("int64Mul", "*"));
    });

    it("int64Div truncates; a divisor <= 0 or a negative dividend is refused", async () => {
      expect(await value(`Utils.int64Div("7", "2")`)).to.equal("3");
      expect(await value(`Utils.int64Div(0, 5)`)).to.equal("0");
      expect(await value(`Utils.int64Div("${MAX}", "1")`)).to.equal(MAX);
      expect(await value(`Utils.int64Div("${MAX}", "${MAX}")`)).to.equal("1");
      expect(await value(`Utils.int64Div("1", "${MAX}")`)).to.equal("0");
      expect(await thrown(`Utils.int64Div("7", "0")`)).to.equal("Parameter arg <= 0");
      expect(await thrown(`Utils.int64Div("7", -2)`)).to.equal("Parameter arg <= 0");
      expect(await thrown(`Utils.int64Div("-7", "2")`)).to.equal("Parameter arg <= 0");
      expect(await thrown(`Utils.int64Div("${MIN}", "-1")`)).to.equal("Parameter arg <= 0");
      expect(await thrown(`Utils.int64Div("x", "0")`)).to.equal(ILLEGAL("int64Div", 0));
    });

    it("int64Mod takes the remainder with the same refusals", async () => {
      expect(await value(`Utils.int64Mod("7", "3")`)).to.equal("1");
      expect(await value(`Utils.int64Mod("${MAX}", "10")`)).to.equal("7");
      expect(await value(`Utils.int64Mod(0, 3)`)).to.equal("0");
      expect(await value(`Utils.int64Mod("6", "3")`)).to.equal("0");
      expect(await thrown(`Utils.int64Mod("7", "0")`)).to.equal("Parameter arg <= 0");
      expect(await thrown(`Utils.int64Mod("7", "-3")`)).to.equal("Parameter arg <= 0");
      expect(await thrown(`Utils.int64Mod("-7", "3")`)).to.equal("Parameter arg <= 0");
      expect(await thrown(`Utils.int64Mod("7", 0.5)`)).to.equal(ILLEGAL("int64Mod", 1));
    });

    it("int64Compare returns the Number 1, 0 or -1", async () => {
      const cases: [string, number][] = [
        [`"2", "1"`, 1],
        [`"1", "2"`, -1],
        [`"5", 5`, 0],
        [`"${MAX}", "${MIN}"`, 1],
        [`"${MIN}", "${MAX}"`, -1],
        [`"${MIN}", "${MIN}"`, 0],
        [`-1, "0"`, -1],
        [`"10", "9"`, 1], // numerically, not as text
      ];
      for (const [args, expected] of cases) {
        const outcome = await run(`Utils.int64Compare(${args})`);
        expect(outcome, args).to.deep.equal({ ok: true, value: expected, type: "number" });
      }
    });

    it("stoI64Check accepts only the canonical decimal form of an int64 string", async () => {
      for (const good of [`"-5"`, `"0"`, `"5"`, `"${MAX}"`, `"${MIN}"`]) expect(await value(`Utils.stoI64Check(${good})`), good).to.equal(true);
      const bad = [`"+5"`, `"05"`, `"5.0"`, `"-0"`, `""`, `" 5"`, `"9223372036854775808"`, `"-9223372036854775809"`, `5`, `0`, `true`, `null`, `{}`];
      for (const b of bad) expect(await value(`Utils.stoI64Check(${b})`), b).to.equal(false);
      expect(await value(`Utils.stoI64Check()`)).to.equal(false);
      expect(await value(`Utils.stoI64Check("1", "2")`)).to.equal(false);
    });
  });

  describe("assert", () => {
    it("returns true for true", async () => {
      expect(await value(`Utils.assert(true)`)).to.equal(true);
      expect(await value(`Utils.assert(1 === 1, "never shown")`)).to.equal(true);
    });

    it("throws the message itself for false, or the default message", async () => {
      expect(await thrown(`Utils.assert(false)`)).to.equal("Assertion exception occurred");
      expect(await thrown(`Utils.assert(false, "balance too low")`)).to.equal("balance too low");
      expect(await thrown(`Utils.assert(2 < 1, "")`)).to.equal("");
    });

    it("wants a real boolean, a string message and one or two arguments", async () => {
      for (const b of [`1`, `0`, `"true"`, `null`, `undefined`, `new Boolean(true)`, `{}`]) {
        expect(await thrown(`Utils.assert(${b})`), b).to.equal("Assertion exception occurred,parameter 0 should be boolean");
        expect(await thrown(`Utils.assert(${b}, "msg")`), b).to.equal("Assertion exception occurred,parameter 0 should be boolean");
      }
      expect(await thrown(`Utils.assert(false, 5)`)).to.equal("Assertion exception occurred,parameter 1 should be string");
      expect(await thrown(`Utils.assert(true, {})`)).to.equal("Assertion exception occurred,parameter 1 should be string");
      expect(await thrown(`Utils.assert()`)).to.equal("Assertion exception occurred,parameter nums error");
      expect(await thrown(`Utils.assert(true, "a", "b")`)).to.equal("Assertion exception occurred,parameter nums error");
    });
  });

  describe("toBaseUnit", () => {
    it("multiplies a decimal by 10^8", async () => {
      const cases: [string, string][] = [
        ["1", "100000000"],
        ["0", "0"],
        ["0.5", "50000000"],
        [".5", "50000000"],
        ["1.23456789", "123456789"],
        ["0.00000001", "1"],
        ["0.00000000", "0"],
        ["10.10000000", "1010000000"],
        ["123", "12300000000"],
        ["92233720368.54775807", MAX],
        ["92233720368", "9223372036800000000"],
      ];
      for (const [input, expected] of cases) expect(await value(`Utils.toBaseUnit(${js(input)})`), input).to.equal(expected);
    });

    it("refuses with 'Not a decimal number:X'", async () => {
      const bad = ["1.123456789", "-1", "+1", "01", "00.5", "00", "5.", ".", "", "1e5", "1,5", "1.2.3", " 1", "1 ", "0x10", "١"];
      for (const b of bad) expect(await thrown(`Utils.toBaseUnit(${js(b)})`), b).to.equal(`Not a decimal number:${b}`);
    });

    it("throws on int64 overflow", async () => {
      expect(await thrown(`Utils.toBaseUnit("92233720368.54775808")`)).to.equal("CallBackToBaseUnit error, int64 overflow:9223372036854775808");
      expect(await thrown(`Utils.toBaseUnit("92233720369")`)).to.equal("CallBackToBaseUnit error, int64 overflow:9223372036900000000");
      expect(await thrown(`Utils.toBaseUnit("100000000000.5")`)).to.equal("CallBackToBaseUnit error, int64 overflow:10000000000050000000");
      expect(await thrown(`Utils.toBaseUnit("1" + "0".repeat(30))`)).to.equal(`CallBackToBaseUnit error, int64 overflow:1${"0".repeat(38)}`);
    });

    it("wants one string", async () => {
      expect(await thrown(`Utils.toBaseUnit(1)`)).to.equal("contract execution error, toBaseUnit, parameter 0 should be a String");
      expect(await thrown(`Utils.toBaseUnit({})`)).to.equal("contract execution error, toBaseUnit, parameter 0 should be a String");
      expect(await thrown(`Utils.toBaseUnit()`)).to.equal("Parameter number error:0");
      expect(await thrown(`Utils.toBaseUnit("1", "2")`)).to.equal("Parameter number error:2");
    });
  });

  describe("HexToDec / hexToDec", () => {
    it("converts hex with or without 0x to a decimal string", async () => {
      const long = "f".repeat(64);
      const cases: [string, string][] = [
        ["ff", "255"],
        ["0xff", "255"],
        ["0XFF", "255"],
        ["0x10", "16"],
        ["10", "16"],
        ["0", "0"],
        ["0x0", "0"],
        ["0x000a", "10"],
        [long, BigInt("0x" + long).toString()],
        ["f".repeat(1024), BigInt("0x" + "f".repeat(1024)).toString()],
      ];
      for (const [input, expected] of cases) {
        expect(await value(`Utils.HexToDec(${js(input)})`), input).to.equal(expected);
        expect(await value(`Utils.hexToDec(${js(input)})`), input).to.equal(expected);
      }
    });

    it("gives false on bad input", async () => {
      for (const b of [`"0x"`, `""`, `"x"`, `"xyz"`, `"-1"`, `"-0x1"`, `" ff"`, `"0xg"`, `"0x 1"`, `"1.5"`, `255`, `null`, `${js("f".repeat(1025))}`]) {
        expect(await value(`Utils.HexToDec(${b})`), b).to.equal(false);
      }
      expect(await value(`Utils.hexToDec()`)).to.equal(false);
      expect(await value(`Utils.hexToDec("1", "2")`)).to.equal(false);
    });
  });

  describe("log", () => {
    it("stringifies its argument into the log and returns undefined", async () => {
      expect(await run(`Utils.log("hello")`)).to.deep.equal({ ok: true, value: undefined, type: "undefined" });
      await value(`Utils.log(5)`);
      await value(`Utils.log({ a: 1 })`);
      await value(`Utils.log(undefined)`);
      await value(`Utils.log(null, "ignored")`);
      await value(`Utils.log(Symbol("s"))`);
      expect(logs).to.deep.equal(["hello", "5", "[object Object]", "undefined", "null", "Symbol(s)"]);
    });

    it("returns false without arguments, logging nothing", async () => {
      expect(await run(`Utils.log()`)).to.deep.equal({ ok: true, value: false, type: "boolean" });
      expect(logs).to.deep.equal([]);
    });
  });

  describe("sha256", () => {
    const ABC = sha256Hex("abc");

    it("hashes hex (default and 0), raw (1) and base64 (2) data into lowercase hex", async () => {
      expect(await value(`Utils.sha256("616263")`)).to.equal(ABC);
      expect(await value(`Utils.sha256("616263", 0)`)).to.equal(ABC);
      expect(await value(`Utils.sha256("616263".toUpperCase(), 0)`)).to.equal(ABC);
      expect(await value(`Utils.sha256("abc", 1)`)).to.equal(ABC);
      expect(await value(`Utils.sha256("YWJj", 2)`)).to.equal(ABC);
      expect(await value(`Utils.sha256("YWI=", 2)`)).to.equal(sha256Hex("ab"));
      expect(await value(`Utils.sha256("YWI", 2)`)).to.equal(sha256Hex("ab"));
      expect(await value(`Utils.sha256("é€😀", 1)`)).to.equal(sha256Hex(Buffer.from("é€😀", "utf8")));
      expect(await value(`Utils.sha256("00", 0)`)).to.equal(sha256Hex(Uint8Array.of(0)));
      expect(ABC).to.match(/^[0-9a-f]{64}$/);
    });

    it("gives false for invalid or empty data and bad types", async () => {
      const bad = [
        `"abc"`, // odd hex
        `"zz"`,
        `"0x61"`,
        `""`,
        `"", 0`,
        `"", 1`,
        `"", 2`,
        `"@@@@", 2`,
        `"YWJj=", 2`,
        `"Y", 2`,
        `"YW Jj", 2`,
        `"abc", 3`,
        `"abc", -1`,
        `"abc", "1"`,
        `"abc", 1.5`,
        `"abc", undefined`,
        `"abc", null`,
        `616263`,
        `null`,
        ``,
        `"61", 0, 0`,
      ];
      for (const b of bad) expect(await value(`Utils.sha256(${b})`), b).to.equal(false);
    });
  });

  describe("ecVerify", () => {
    const signer = new NodeEd25519Signer(fromHex(KEY_VECTORS[0].seed));
    const other = KEY_VECTORS[1].publicKey;
    const blob = utf8("pay 12345 to efrZXp2bfxJnd3Z17VxQg7xmwAfaz74C");
    let signature = "";
    let publicKey = "";
    before(async () => {
      const signed = await signBlob(signer, blob);
      signature = signed.sign_data;
      publicKey = signed.public_key;
      expect(publicKey).to.equal(KEY_VECTORS[0].publicKey);
    });
    const tamper = (hex: string, at: number) => hex.slice(0, at) + (hex[at] === "0" ? "1" : "0") + hex.slice(at + 1);

    it("verifies a real Ed25519 signature over hex, raw and base64 data", async () => {
      expect(await value(`Utils.ecVerify(${js(signature)}, ${js(publicKey)}, ${js(toHex(blob))})`)).to.equal(true);
      expect(await value(`Utils.ecVerify(${js(signature)}, ${js(publicKey)}, ${js(toHex(blob))}, 0)`)).to.equal(true);
      expect(await value(`Utils.ecVerify(${js(signature)}, ${js(publicKey)}, ${js(Buffer.from(blob).toString())}, 1)`)).to.equal(true);
      expect(await value(`Utils.ecVerify(${js(signature)}, ${js(publicKey)}, ${js(Buffer.from(blob).toString("base64"))}, 2)`)).to.equal(true);
      expect(await value(`Utils.ecVerify(${js(signature.toUpperCase())}, ${js(publicKey)}, ${js(toHex(blob))})`)).to.equal(true);
    });

    it("refuses a tampered signature, message or key", async () => {
      expect(await value(`Utils.ecVerify(${js(tamper(signature, 10))}, ${js(publicKey)}, ${js(toHex(blob))})`)).to.equal(false);
      expect(await value(`Utils.ecVerify(${js(signature)}, ${js(publicKey)}, ${js(tamper(toHex(blob), 4))})`)).to.equal(false);
      expect(await value(`Utils.ecVerify(${js(signature)}, ${js(other)}, ${js(toHex(blob))})`)).to.equal(false);
      // The raw type hashes the text itself, not the bytes the hex stands for.
      expect(await value(`Utils.ecVerify(${js(signature)}, ${js(publicKey)}, ${js(toHex(blob))}, 1)`)).to.equal(false);
    });

    it("never throws: every bad argument is false", async () => {
      const bad = [
        ``,
        `"a", "b"`,
        `${js(signature)}, ${js(publicKey)}, ${js(toHex(blob))}, 0, 0`,
        `${js(signature)}, ${js(publicKey)}, ${js(toHex(blob))}, 3`,
        `${js(signature)}, ${js(publicKey)}, ${js(toHex(blob))}, "0"`,
        `${js(signature)}, ${js(publicKey)}, ${js(toHex(blob))}, undefined`,
        `${js(signature)}, ${js(publicKey)}, ""`,
        `${js(signature)}, ${js(publicKey)}, "", 1`,
        `${js(signature)}, ${js(publicKey)}, "xyz"`,
        `${js(signature.slice(0, 126))}, ${js(publicKey)}, ${js(toHex(blob))}`,
        `${js(signature + "00")}, ${js(publicKey)}, ${js(toHex(blob))}`,
        `"zz", ${js(publicKey)}, ${js(toHex(blob))}`,
        `"", ${js(publicKey)}, ${js(toHex(blob))}`,
        `${js(signature)}, "xyz", ${js(toHex(blob))}`,
        `${js(signature)}, "", ${js(toHex(blob))}`,
        `${js(signature)}, ${js(publicKey.slice(6))}, ${js(toHex(blob))}`,
        `${js(signature)}, ${js(KEY_VECTORS[0].address)}, ${js(toHex(blob))}`,
        `{}, [], 1`,
        `null, null, null`,
      ];
      for (const b of bad) expect(await run(`Utils.ecVerify(${b})`), b).to.deep.equal({ ok: true, value: false, type: "boolean" });
    });
  });

  describe("addresses", () => {
    it("addressCheck accepts the compat.md addresses and refuses the rest", async () => {
      for (const v of KEY_VECTORS) expect(await value(`Utils.addressCheck(${js(v.address)})`), v.address).to.equal(true);
      const chainCode = KEY_VECTORS[0].address.replace("did:bid:", "did:bid:abc:");
      expect(await value(`Utils.addressCheck(${js(chainCode)})`)).to.equal(true);
      const bad = [
        `"did:bid:xyz"`,
        `"did:bid:ef"`,
        `${js(KEY_VECTORS[0].address.slice(0, -6))}`,
        `${js(KEY_VECTORS[0].address + "1")}`,
        `${js(KEY_VECTORS[0].address.replace("did:bid:ef", "did:bid:ff"))}`,
        `${js(KEY_VECTORS[0].publicKey)}`,
        `""`,
        `5`,
        `null`,
        `{}`,
        ``,
        `${js(KEY_VECTORS[0].address)}, "extra"`,
      ];
      for (const b of bad) expect(await run(`Utils.addressCheck(${b})`), b).to.deep.equal({ ok: true, value: false, type: "boolean" });
    });

    it("toAddress derives the compat.md address of each public key", async () => {
      for (const v of KEY_VECTORS) {
        expect(await value(`Utils.toAddress(${js(v.publicKey)})`), v.publicKey).to.equal(v.address);
        expect(await value(`Utils.addressCheck(Utils.toAddress(${js(v.publicKey)}))`)).to.equal(true);
      }
    });

    it("toAddress gives false for anything but a b06566… public key", async () => {
      const bad = [
        `""`,
        `"xyz"`,
        `${js(KEY_VECTORS[0].publicKey.slice(6))}`, // the raw key without its prefix
        `${js(KEY_VECTORS[0].publicKey.slice(0, -2))}`,
        `${js(KEY_VECTORS[0].publicKey + "00")}`,
        `${js("b07a66" + KEY_VECTORS[0].publicKey.slice(6))}`,
        `${js(KEY_VECTORS[0].address)}`,
        `${js(KEY_VECTORS[0].privateKey)}`,
        `5`,
        `null`,
        ``,
        `${js(KEY_VECTORS[0].publicKey)}, 1`,
      ];
      for (const b of bad) expect(await value(`Utils.toAddress(${b})`), b).to.equal(false);
    });
  });

  describe("commitments", () => {
    const RANGE = RANGE_VECTORS[1];
    const TALLY = TALLY_VECTOR;
    const flip = (hex: string, at: number) => hex.slice(0, at) + (hex[at] === "0" ? "1" : "0") + hex.slice(at + 1);
    const tally = (inputs: string, outputs: string, msg = js(TALLY.msg), sig = js(TALLY.sig)) =>
      `Utils.pedersenTallyVerify(${inputs}, ${outputs}, ${msg}, ${sig})`;

    it("bpRangeProofVerify accepts a real Bulletproofs range proof and refuses a tampered one", async () => {
      expect(await value(`Utils.bpRangeProofVerify(${js(RANGE.commitment)}, ${js(RANGE.proof)})`)).to.equal(true);
      expect(await value(`Utils.bpRangeProofVerify(${js(RANGE.commitment)}, ${js(flip(RANGE.proof, 200))})`)).to.equal(false);
      expect(await value(`Utils.bpRangeProofVerify(${js(flip(RANGE.commitment, 40))}, ${js(RANGE.proof)})`)).to.equal(false);
    });

    it("pedersenTallyVerify accepts a balanced tally, as JSON array strings or as arrays", async () => {
      expect(await value(tally(js(js(TALLY.inputs)), js(js(TALLY.outputs))))).to.equal(true);
      expect(await value(tally(js(TALLY.inputs), js(TALLY.outputs)))).to.equal(true);
      expect(await value(tally(js(js(TALLY.outputs)), js(js(TALLY.inputs))))).to.equal(false);
      expect(await value(tally(js(js(TALLY.inputs)), js(js(TALLY.outputs)), js(flip(TALLY.msg, 3))))).to.equal(false);
      expect(await value(tally(js(js(TALLY.inputs)), js(js(TALLY.outputs)), undefined, js(flip(TALLY.sig, 100))))).to.equal(false);
      expect(await value(tally(js(js(TALLY.inputs.slice(1))), js(js(TALLY.outputs))))).to.equal(false);
    });

    it("both answer false for every bad argument and never throw", async () => {
      const commit = TALLY.inputs[0];
      const cases = [
        `Utils.bpRangeProofVerify(${js(RANGE.commitment)}, "00")`,
        `Utils.bpRangeProofVerify(${js(RANGE.commitment)}, 5)`,
        `Utils.bpRangeProofVerify(${js(RANGE.commitment)})`,
        `Utils.bpRangeProofVerify(${js(RANGE.commitment)}, ${js(RANGE.proof)}, 1)`,
        `Utils.bpRangeProofVerify()`,
        tally(`"not json"`, `"[]"`),
        tally(`"{}"`, js(js(TALLY.outputs))),
        tally(`"[]"`, `"[]"`),
        tally(`[1]`, js(TALLY.outputs)),
        tally(`{ length: 1, 0: ${js(commit)} }`, js(TALLY.outputs)),
        tally(`new Array(101).fill(${js(commit)})`, js(TALLY.outputs)),
        tally(js(js(new Array(101).fill(commit))), js(js(TALLY.outputs))),
        tally(js(js(TALLY.inputs)), js(js(TALLY.outputs)), `5`),
        tally(js(js(TALLY.inputs)), js(js(TALLY.outputs)), `"short"`),
        `Utils.pedersenTallyVerify("[]", "[]", "m")`,
        `Utils.pedersenTallyVerify()`,
      ];
      for (const c of cases) expect(await run(c), c).to.deep.equal({ ok: true, value: false, type: "boolean" });
    });
  });

  describe("metering", () => {
    it("charges exactly once per call, whether it returns, returns false or throws", async () => {
      const calls = [
        `Utils.log("x")`,
        `Utils.log()`,
        `Utils.stoI64Check("1")`,
        `Utils.stoI64Check()`,
        `Utils.int64Add("1", "2")`,
        `Utils.int64Add("${MAX}", "1")`,
        `Utils.int64Sub("x", "1")`,
        `Utils.int64Mul()`,
        `Utils.int64Div("1", "0")`,
        `Utils.int64Mod("7", "2")`,
        `Utils.int64Compare("1", "2")`,
        `Utils.assert(true)`,
        `Utils.assert(false, "no")`,
        `Utils.assert(1)`,
        `Utils.toBaseUnit("1")`,
        `Utils.toBaseUnit("x")`,
        `Utils.HexToDec("ff")`,
        `Utils.hexToDec(1)`,
        `Utils.sha256("61")`,
        `Utils.sha256(1)`,
        `Utils.ecVerify("00", "00", "00")`,
        `Utils.ecVerify()`,
        `Utils.addressCheck("x")`,
        `Utils.toAddress("x")`,
        `Utils.bpRangeProofVerify("a", "b")`,
        `Utils.pedersenTallyVerify("[]", "[]", "m", "s")`,
      ];
      for (const c of calls) {
        charges = 0;
        await run(c);
        expect(charges, c).to.equal(1);
      }
      charges = 0;
      await run(`(() => { for (let i = 0; i < 3; i++) Utils.int64Add(i, i); return Utils.sha256("abc", 1); })()`);
      expect(charges).to.equal(4);
    });

    it("reaches the host only for crypto, after the argument checks", async () => {
      await run(`[Utils.int64Add("1", "2"), Utils.toBaseUnit("1"), Utils.HexToDec("ff"), Utils.assert(true), Utils.stoI64Check("1")]`);
      await run(`[Utils.sha256(5), Utils.sha256("61", 7), Utils.ecVerify(1, 2, 3), Utils.toAddress(""), Utils.addressCheck(null)]`);
      expect(cryptoCalls).to.deep.equal([]);
      await run(`[Utils.sha256("61"), Utils.ecVerify("00", "00", "00"), Utils.toAddress("00"), Utils.addressCheck("x")]`);
      expect(cryptoCalls).to.deep.equal(["sha256", "ecVerify", "toAddress", "addressCheck"]);
    });

    it("lets the step-limit error of charge() propagate before doing anything", async () => {
      const ctx = await installedContext(`() => { throw "Step exceeding limit"; }`);
      for (const name of FUNCTIONS) {
        const outcome = await runIn(ctx, `return Utils.${name}("616263", 1);`);
        expect(outcome, name).to.deep.equal({ ok: false, threw: "Step exceeding limit", type: "string" });
      }
      expect(cryptoCalls).to.deep.equal([]);
      expect(logs).to.deep.equal([]);
      ctx.release();
    });
  });

  describe("tamper resistance", () => {
    it("a contract cannot overwrite, add, delete or redefine Utils functions", async () => {
      const strict = [
        `Utils.int64Add = () => "hacked"`,
        `Utils.extra = 1`,
        `delete Utils.int64Add`,
        `Object.defineProperty(Utils, "int64Add", { value: () => "hacked" })`,
        `Object.setPrototypeOf(Utils, { int64Add: () => "hacked" })`,
        `Utils.int64Add.call = () => "hacked"`,
        `Object.defineProperty(Utils.int64Add, "name", { value: "x" })`,
        `globalThis.Utils = { int64Add: () => "hacked" }`,
        `delete globalThis.Utils`,
        `Object.defineProperty(globalThis, "Utils", { value: {} })`,
      ];
      for (const attempt of strict) {
        const outcome = await runIn(context, `"use strict"; ${attempt}; return "done";`);
        expect(outcome.ok, attempt).to.equal(false);
      }
      // Sloppy mode fails silently, but fails just the same.
      await runIn(context, `Utils.int64Add = () => "hacked"; Utils.extra = 1; delete Utils.int64Add; Utils = {}; return 0;`);
      expect(await value(`Utils.int64Add("1", "2")`)).to.equal("3");
      expect(await value(`Utils.extra`)).to.equal(undefined);
      expect(await value(`Object.isFrozen(Utils) && Object.values(Utils).every(Object.isFrozen)`)).to.equal(true);
      expect(await value(`Object.getOwnPropertyDescriptor(globalThis, "Utils").writable`)).to.equal(false);
      expect(await value(`Object.getOwnPropertyDescriptor(globalThis, "Utils").configurable`)).to.equal(false);
      expect(await value(`typeof Utils.int64Add.prototype`)).to.equal("undefined");
      expect((await run(`new Utils.int64Add("1", "2")`)).ok).to.equal(false);
    });

    it("a contract cannot redeclare Utils at top level", async () => {
      const ctx = await installedContext();
      for (const code of [`let Utils = 1;`, `class Utils {}`, `function Utils() {}`, `"use strict"; var Utils = 1;`]) {
        let failed = false;
        try {
          await ctx.eval(code, { timeout: 1000 });
        } catch {
          failed = true;
        }
        expect(failed, code).to.equal(true);
      }
      expect(await runIn(ctx, `return Utils.int64Add("1", "2");`)).to.deep.equal({ ok: true, value: "3", type: "string" });
      ctx.release();
    });

    it("patched prototypes and globals change nothing about the built-ins", async () => {
      const ctx = await installedContext();
      const outcome = await runIn(
        ctx,
        `String.prototype.slice = () => "hacked";
         String.prototype.charCodeAt = () => 48;
         String.prototype.toJSON = () => "hacked";
         RegExp.prototype.exec = () => null;
         RegExp.prototype.test = () => true;
         Array.prototype.toJSON = () => "hacked";
         Array.prototype[Symbol.iterator] = function* () { yield "hacked"; };
         Object.prototype.hacked = "hacked";
         Object.defineProperty(Object.prototype, "0", { get() { return "hacked"; }, set() {}, configurable: true });
         JSON.stringify = () => "[\\"hacked\\"]";
         JSON.parse = () => "hacked";
         BigInt = () => 0n;
         String = () => "hacked";
         Reflect.apply = () => "hacked";
         return [
           Utils.int64Add("1", "2"),
           Utils.int64Compare(3, "2"),
           Utils.stoI64Check("05"),
           Utils.toBaseUnit("0.5"),
           Utils.HexToDec("0x10"),
           Utils.sha256("abc", 1),
           Utils.toAddress(${js(KEY_VECTORS[2].publicKey)}),
           Utils.pedersenTallyVerify(["a"], [], "m", "s"),
           (() => { try { Utils.toBaseUnit("100000000000"); } catch (e) { return e; } })(),
           (() => { try { Utils.int64Add(1.5, 1); } catch (e) { return e; } })(),
         ];`,
      );
      expect(outcome).to.deep.equal({
        ok: true,
        type: "object",
        value: [
          "3",
          1,
          false,
          "50000000",
          "16",
          sha256Hex("abc"),
          KEY_VECTORS[2].address,
          false,
          "CallBackToBaseUnit error, int64 overflow:10000000000000000000",
          ILLEGAL("int64Add", 0),
        ],
      });
      ctx.release();
    });
  });

  describe("utilsCrypto (host side)", () => {
    it("answers JSON and never throws on bad input", () => {
      const bad: [unknown, unknown][] = [
        ["sha256", "not json"],
        ["sha256", "{}"],
        ["sha256", "null"],
        ["sha256", js([5, 0])],
        ["sha256", js(["61", 9])],
        ["sha256", js(["61", "0"])],
        ["sha256", js([])],
        ["ecVerify", js([])],
        ["ecVerify", js([{}, {}, {}, {}])],
        ["toAddress", js([null])],
        ["addressCheck", js([])],
        ["bpRangeProofVerify", js([1, 2])],
        ["pedersenTallyVerify", js(["[", "[]", "m", "s"])],
        ["pedersenTallyVerify", js([js(new Array(101).fill("a")), "[]", "m", "s"])],
        ["pedersenTallyVerify", js([js([1]), "[]", "m", "s"])],
        ["unknown", js([])],
        ["__proto__", js([])],
        ["constructor", js([])],
        [undefined, undefined],
        [{}, 5],
      ];
      for (const [name, args] of bad) {
        expect(utilsCrypto(name as string, args as string), `${String(name)} ${String(args)}`).to.equal("false");
      }
    });

    it("computes the same answers the built-ins return", () => {
      expect(utilsCrypto("sha256", js(["616263", 0]))).to.equal(js(sha256Hex("abc")));
      expect(utilsCrypto("sha256", js(["616263"]))).to.equal(js(sha256Hex("abc")));
      expect(utilsCrypto("toAddress", js([KEY_VECTORS[1].publicKey]))).to.equal(js(KEY_VECTORS[1].address));
      expect(utilsCrypto("addressCheck", js([KEY_VECTORS[1].address]))).to.equal("true");
    });
  });
});
