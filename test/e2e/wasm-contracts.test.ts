// C++ and Go contracts on four real validators: the SDKs' examples are built from source with the real
// toolchains (docs/contracts-cpp.md, docs/contracts-go.md), deployed through the HTTP API and called; wasm
// and JavaScript contracts call each other; hostile modules end with 155 or 156 while every validator keeps
// running and agreeing (docs/wasm-abi.md).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import { expect } from "chai";
import b from "binaryen";
import { Keypair, createContract, payCoin, sendTransaction, waitForTransaction, type ChainsimClient, type TransactionRecord } from "@chainsim/client";
import { isValidatorRunning } from "@chainsim/cli";
import { buildCppContract } from "@chainsim/contract-sdk-cpp";
import { buildGoContract } from "@chainsim/contract-sdk-go";
import { agreeAfter, dumpLogsOnFailure, startTestNetwork, testManifest, type TestNetwork } from "../harness/network.js";
import { callContractPastClock } from "../harness/queries.js";

const require = createRequire(import.meta.url);
const cppExamples = join(require.resolve("@chainsim/contract-sdk-cpp"), "../../examples");
const goExamples = join(require.resolve("@chainsim/contract-sdk-go"), "../../examples");

/** A deployment's fee limit: a Go module is about 2.6 MB of base64, one gas a byte at gas price 100. */
const DEPLOY_FEE_LIMIT = 1_000_000_000n;

interface Language {
  name: string;
  type: number;
  token: string;
  builtins: string;
}

/** A JavaScript contract that calls the contract named in its input and keeps what came back. */
const BRIDGE = `"use strict";
function init() {}
function main(input) {
  const call = JSON.parse(input);
  Chain.store("called", String(Chain.contractCall(call.target, true, "0", call.input)));
}
function query(input) {
  const call = JSON.parse(input);
  return JSON.stringify(Chain.contractQuery(call.target, call.input));
}`;
/** What the wasm examples call into: main and query answer with their input. */
const ECHO = `"use strict"; function init() {} function main(input) { return "echo:" + input; } function query(input) { return "q:" + input; }`;

const input = (method: string, params: Record<string, string> = {}) => JSON.stringify({ method, params });

describe("e2e: C++ and Go contracts built with the SDKs, on four validators", function () {
  this.timeout(300_000);
  let net: TestNetwork;
  let client: ChainsimClient;
  let genesis: Keypair;
  let work: string;
  const languages: Language[] = [];
  /** Contracts the two languages' tests share: deployed once. */
  const shared: { payee?: string; echo?: string; bridge?: string } = {};

  before(async () => {
    work = mkdtempSync(join(tmpdir(), "chainsim-wasm-"));
    const base64 = (file: string) => readFileSync(file).toString("base64");
    // Built before the validators start: four compilers at once starve a starting network of CPU.
    const [cppToken, cppBuiltins, goToken, goBuiltins] = await Promise.all([
      buildCppContract(join(cppExamples, "token.cpp"), work),
      buildCppContract(join(cppExamples, "builtins.cpp"), work),
      buildGoContract(join(goExamples, "token"), join(work, "go-token.wasm")),
      buildGoContract(join(goExamples, "builtins"), join(work, "go-builtins.wasm")),
    ]);
    // Metering a Go module takes each validator seconds (docs/contracts-go.md); a longer view timeout keeps
    // the deployments from turning into view changes, which only make this test slow.
    net = await startTestNetwork(testManifest("e2e-wasm", 4, { view_timeout_ms: 10_000 }));
    client = net.clients[0]!;
    genesis = Keypair.fromPrivateKey(net.handle.manifest.genesis.account.private_key);
    languages.push(
      { name: "C++", type: 3, token: base64(cppToken.wasm), builtins: base64(cppBuiltins.wasm) },
      { name: "Go", type: 2, token: base64(goToken.outFile), builtins: base64(goBuiltins.outFile) },
    );
  });
  after(async () => {
    await net?.cleanup();
    if (work) rmSync(work, { recursive: true, force: true });
  });
  dumpLogsOnFailure(() => net);

  async function submit(operations: Parameters<typeof sendTransaction>[1]["operations"], feeLimit = 100_000_000n, via = client): Promise<TransactionRecord> {
    const { hash } = await sendTransaction(via, { signers: [genesis], operations, feeLimit });
    return waitForTransaction(via, hash, { timeoutMs: 60_000 });
  }
  async function deploy(payload: string, type: number, initInput = ""): Promise<string> {
    const record = await submit([createContract(payload, { type, initInput })], DEPLOY_FEE_LIMIT);
    expect(record.error_code, record.error_desc).to.equal(0);
    return JSON.parse(record.error_desc)[0].contract_address as string;
  }
  const call = (address: string, text: string) => submit([payCoin(address, 0n, { input: text })]);
  async function query(address: string, text: string): Promise<{ code: number; value?: unknown; step: number; error?: string }> {
    const answer = await callContractPastClock(client, { contract_address: address, input: text, opt_type: 2, source_address: genesis.address }, "v1");
    const result = answer.result as { query_rets: { result?: { value: unknown }; error?: { data: { exception: string } } }[]; stat: { step: number } };
    const last = result.query_rets.at(-1);
    return { code: answer.error_code, value: last?.result?.value, step: result.stat.step, error: last?.error?.data.exception ?? answer.error_desc };
  }
  async function metadata(address: string, key: string, via = client): Promise<string | undefined> {
    const answer = await via.getAccountMetaData(address, key);
    return (answer.result as Record<string, { value: string }> | undefined)?.[key]?.value;
  }
  const running = () => net.handle.nodes.filter((node) => isValidatorRunning(node.pid, node.process.paths.configFile)).map((node) => node.name);

  for (const index of [0, 1]) {
    const lang = () => languages[index]!;
    const name = index === 0 ? "C++" : "Go";

    it(`${name}: the token example deploys with init, transfers, refuses an overdraft with its message, answers queries, alike on every validator`, async () => {
      const token = await deploy(lang().token, lang().type, input("init", { supply: "1000" }));
      expect((await client.getAccount(token)).result!.contract!.type).to.equal(lang().type);
      const holder = Keypair.generate().address;
      expect((await call(token, input("transfer", { to: holder, amount: "10" }))).error_code).to.equal(0);
      const overdraft = await call(token, input("transfer", { to: holder, amount: "5000" }));
      expect(overdraft.error_code).to.equal(151);
      expect(JSON.parse(overdraft.error_desc).exception).to.match(/insufficient balance/);
      const balance = await query(token, input("balance", { owner: holder }));
      expect([balance.code, balance.value]).to.deep.equal([0, "10"]);
      expect(balance.step).to.be.greaterThan(0);
      expect((await query(token, input("balance", { owner: genesis.address }))).value).to.equal("990");
      await agreeAfter(net.clients, BigInt(String(overdraft.ledger_seq)));
      const stored = await Promise.all(net.clients.map((c) => metadata(token, `balance:${holder}`, c)));
      expect(stored).to.deep.equal(["10", "10", "10", "10"]);
    });

    it(`${name}: the builtins example reaches every built-in, and calls JavaScript and is called by it`, async () => {
      const a = await deploy(lang().builtins, lang().type, input("init"));
      // The payee of `pay` is a C++ builtins (for Go too: a wasm contract paying one of the other language).
      shared.payee ??= await deploy(languages[0]!.builtins, languages[0]!.type, input("init"));
      shared.echo ??= await deploy(ECHO, 0);
      shared.bridge ??= await deploy(BRIDGE, 0);
      const { payee, echo, bridge } = shared;
      expect(await metadata(a, "created")).to.equal("yes");
      // Reads, as queries.
      const value = async (method: string, params: Record<string, string> = {}) => {
        const answer = await query(a, input(method, params));
        expect(answer.code, `${method}: ${answer.error}`).to.equal(0);
        return answer.value;
      };
      expect(await value("math", { a: "17", b: "5" })).to.equal("22,12,85,3,2");
      expect(await value("check", { cond: "1", message: "x" })).to.equal("passed");
      expect(await value("addr", { address: genesis.address })).to.equal(true);
      expect(await value("addr", { address: "did:bid:nope" })).to.equal(false);
      expect(await value("hash", { data: "abc" })).to.equal("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
      expect(await value("param", { name: "name" })).to.equal("name");
      expect(await value("types", { s: "s", i: "-5", u: "18446744073709551615", n: "-7", b: "true" })).to.equal("s,-5,18446744073709551615,-7,true");
      expect(await value("whoami")).to.include(`thisAddress=${a}`).and.include(`msg.sender=${genesis.address}`);
      expect(await value("account", { address: a, key: "created" })).to.equal("0|yes");
      const failed = await query(a, input("check", { cond: "0", message: "the check failed" }));
      expect([failed.code, failed.error]).to.deep.equal([151, "the check failed"]);
      // Writes, as transactions.
      expect((await call(a, input("kv", { key: "colour", value: "green" }))).error_code).to.equal(0);
      expect(await metadata(a, "colour")).to.equal("green");
      expect((await call(a, input("remove", { key: "colour" }))).error_code).to.equal(0);
      expect(await metadata(a, "colour")).to.equal(undefined);
      const logs = await call(a, input("logs", { topic: "t", data: "d" }));
      expect([logs.error_code, logs.contract_tx_hashes?.length]).to.deep.equal([0, 2]);
      expect((await call(a, input("pay", { target: payee, amount: "0" }))).error_code).to.equal(0);
      expect(await metadata(payee, "received")).to.equal(`hello,7,0,${a}`);
      // wasm → JavaScript, as a transaction started by JavaScript (JavaScript → wasm), which keeps the result.
      const bridged = await call(bridge, JSON.stringify({ target: a, input: input("nested", { target: echo, input: "hi" }) }));
      expect(bridged.error_code, bridged.error_desc).to.equal(0);
      expect(await metadata(bridge, "called")).to.equal("call=echo:hi;query=q:hi");
      const viaQuery = await query(bridge, JSON.stringify({ target: a, input: input("math", { a: "2", b: "1" }) }));
      expect(viaQuery.value).to.equal(JSON.stringify({ result: "3,1,2,2,0" }));
      await agreeAfter(net.clients, BigInt(String(bridged.ledger_seq)));
    });
  }

  describe("hostile modules", () => {
    /** A module with the host imports whose apply runs `body`. */
    const module = (body: string, extra = "", memory = "1") => {
      const m = b.parseText(`(module
        (import "env" "call" (func $call (param i32 i32 i32 i32) (result i32)))
        ${extra} (memory (export "memory") ${memory})
        (func (export "apply") (param i64 i64 i64) ${body}))`);
      m.setFeatures(b.Features.MutableGlobals | b.Features.SignExt | b.Features.BulkMemory | b.Features.NontrappingFPToInt);
      try {
        return Buffer.from(m.emitBinary()).toString("base64");
      } finally {
        m.dispose();
      }
    };
    const cases: { name: string; payload: () => string; code: number; exception: RegExp }[] = [
      { name: "an infinite loop", payload: () => module("(loop $l (br $l))"), code: 155, exception: /^Step exceeding limit$/ },
      { name: "runaway recursion", payload: () => module("(call $f)", "(func $f (call $f))"), code: 155, exception: /^Stack exceeding limit$/ },
      { name: "memory.grow in a loop", payload: () => module("(loop $l (br_if $l (i32.ne (memory.grow (i32.const 1)) (i32.const -1)))) (unreachable)"), code: 155, exception: /^Memory exceeding limit$/ },
      { name: "a data segment far larger than the memory", payload: () => module("", `(data (i32.const 0) "${"\\00".repeat(1 << 20)}")`), code: 156, exception: /cannot be instantiated/ },
      { name: "an import the host does not offer", payload: () => module("", '(import "env" "system" (func $s (param i32)))'), code: 156, exception: /import "env"\."system" is not offered/ },
      {
        name: "NaN bits stored and read back",
        payload: () => module("(f64.store (i32.const 0) (f64.reinterpret_i64 (i64.const 0x7ff0000000000001))) (if (i64.ne (i64.load (i32.const 0)) (i64.const 0x7ff8000000000000)) (then (unreachable)))"),
        code: 0,
        exception: /^$/,
      },
    ];
    for (const hostile of cases) {
      it(`${hostile.name}: ${hostile.code === 0 ? "runs the same everywhere" : `fails with ${hostile.code}`}, and every validator keeps running and agreeing`, async () => {
        const { hash } = await sendTransaction(net.clients[1]!, { signers: [genesis], operations: [createContract(hostile.payload(), { type: 2 })], feeLimit: DEPLOY_FEE_LIMIT });
        const records = await Promise.all(net.clients.map((c) => waitForTransaction(c, hash, { timeoutMs: 60_000 })));
        const seen = records.map((r) => JSON.stringify([r.error_code, r.error_desc, String(r.ledger_seq)]));
        expect(new Set(seen).size, seen.join("\n")).to.equal(1);
        const record = records[0]!;
        expect(record.error_code, record.error_desc).to.equal(hostile.code);
        if (hostile.code === 155) expect(JSON.parse(record.error_desc).exception).to.match(hostile.exception);
        if (hostile.code === 156) expect(record.error_desc).to.match(hostile.exception);
        await agreeAfter(net.clients, BigInt(String(record.ledger_seq)));
        expect(running()).to.deep.equal(net.handle.nodes.map((node) => node.name));
      });
    }
  });
});
