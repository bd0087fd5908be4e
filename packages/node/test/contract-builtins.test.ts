// Every Chain.* built-in and Chain value of JavaScript contracts (contract-runtime.md, node-api.md "Contract
// runtime"), each checked on the resulting ledger state or records. Assets are covered in contracts.test.ts.
import { expect } from "chai";
import { ErrorCode, OperationType, contractAddress, toHex, utf8, type RawTransactionEnvStore } from "@chainsim/protocol";
import { recordJson } from "../src/http/views.js";
import { TestChain, chainPerTest, makeKey, op, recordCode } from "./helpers/chain.js";
import { CONTRACT_FEE, callOp, contractTxsOf, deployContract, invokeContract, queryOn } from "./helpers/contracts.js";

describe("Chain built-ins of JavaScript contracts", function () {
  this.timeout(30_000);
  let chain: TestChain;
  const newChain = chainPerTest((c) => (chain = c));
  const user = makeKey("builtins-user");
  const other = makeKey("builtins-other");
  const nobody = makeKey("builtins-nobody").address;

  beforeEach(async () => {
    await chain.fund(user, 10_000_000_000n);
  });

  const deployed = (code: string, initInput = "", initBalance = 0n) => deployContract(chain, user, code, initInput, initBalance);
  const value = async (address: string, key: string) => (await chain.metadata(address, key))?.value;
  const json = async (address: string, key: string) => JSON.parse((await value(address, key)) ?? "null");

  /** Runs `contract`'s main from the user and expects success. */
  async function ok(contract: string, input = "", amount = 0n): Promise<RawTransactionEnvStore> {
    const record = await invokeContract(chain, user, contract, input, amount);
    expect(recordCode(record), record.error_desc).to.equal(0);
    return record;
  }

  /** The value a successful query returned. */
  async function queried(contract: string, input = ""): Promise<string | boolean> {
    const answer = await queryOn(chain, contract, input, user.address);
    expect(answer.error, answer.error?.message).to.equal(undefined);
    const rets = answer.result.query_rets as { result: { value: string | boolean } }[];
    return rets[rets.length - 1].result.value;
  }

  /** Contract source: `attempt(f)` gives "ok" or what f threw. */
  const ATTEMPT = `function attempt(f) { try { f(); return "ok"; } catch (e) { return e; } }`;

  describe("Chain.load / store / del", () => {
    it("stores (returning true) and loads back, seeing this transaction's own writes; missing or bad keys give false", async () => {
      const address = await deployed(`function main(input) {
        const before = Chain.load("k");
        const stored = Chain.store("k", input);
        const after = Chain.load("k");
        Chain.store("report", JSON.stringify([before, stored, after, Chain.load("missing"), Chain.load(1), Chain.load("k", "extra"), Chain.load()]));
      }`);
      await ok(address, "v1");
      expect(await value(address, "k")).to.equal("v1");
      expect(await json(address, "report")).to.deep.equal([false, true, "v1", false, false, false, false]);
      await ok(address, "v2");
      expect(await json(address, "report")).to.deep.equal(["v1", true, "v2", false, false, false, false]);
    });

    it("refuses bad store arguments with the exact messages and enforces the key and value byte lengths", async () => {
      const address = await deployed(`${ATTEMPT}
        function main() {
          const results = [
            attempt(() => Chain.store("only-key")),
            attempt(() => Chain.store("a", "b", "c")),
            attempt(() => Chain.store("k", 5)),
            attempt(() => Chain.store(5, "v")),
            attempt(() => Chain.store("", "v")),
            attempt(() => Chain.store("k".repeat(1024), "longest key")),
            attempt(() => Chain.store("é".repeat(513), "513 characters, 1026 bytes")),
            attempt(() => Chain.store("big", "v".repeat(262144))),
            attempt(() => Chain.store("bigger", "v".repeat(262145))),
            attempt(() => Chain.store("bigger-utf8", "é".repeat(131073))),
            attempt(() => Chain.store("empty", "")),
          ];
          Chain.store("results", JSON.stringify(results));
        }`);
      await ok(address);
      const results = (await json(address, "results")) as string[];
      expect(results.slice(0, 6)).to.deep.equal([
        "Parameter number error",
        "Parameter number error",
        "Storage operation parameter should be string",
        "Storage operation parameter should be string",
        "Key is empty.",
        "ok",
      ]);
      expect(results[6]).to.match(/^Length of the key should be between \[1, 1024\]\. /);
      expect(results[7]).to.equal("ok");
      expect(results[8]).to.match(/^Length of the value should be between \[0, 262144\]\. /);
      expect(results[9]).to.match(/^Length of the value should be between \[0, 262144\]\. /);
      expect(results[10]).to.equal("ok");
      expect(await value(address, "k".repeat(1024))).to.equal("longest key");
      expect(await chain.metadata(address, "é".repeat(513))).to.equal(undefined);
      expect((await value(address, "big"))?.length).to.equal(262144);
      expect(await chain.metadata(address, "bigger")).to.equal(undefined);
      expect(await chain.metadata(address, "bigger-utf8")).to.equal(undefined);
      expect(await chain.metadata(address, "empty")).to.not.equal(undefined);
      expect((await value(address, "empty")) ?? "").to.equal("");
    });

    it("deletes a key (load sees it gone at once) and refuses bad del arguments", async () => {
      const address = await deployed(`${ATTEMPT}
        function init() { Chain.store("a", "1"); Chain.store("b", "2"); }
        function main() {
          const deleted = Chain.del("a");
          const errors = [attempt(() => Chain.del()), attempt(() => Chain.del("a", "b")), attempt(() => Chain.del(1)), attempt(() => Chain.del(""))];
          Chain.store("after", JSON.stringify([deleted, Chain.load("a"), Chain.load("b"), errors]));
        }`);
      await ok(address);
      expect(await chain.metadata(address, "a")).to.equal(undefined);
      expect(await value(address, "b")).to.equal("2");
      expect(await json(address, "after")).to.deep.equal([
        true,
        false,
        "2",
        ["Parameter number error", "Parameter number error", "Storage operation parameter should be string", "Key is empty."],
      ]);
    });

    it("fails the transaction with 4 when deleting a missing key, even when the contract catches it", async () => {
      const address = await deployed(`function main() { Chain.store("before", "1"); try { Chain.del("never"); } catch (e) { Chain.store("caught", String(e)); } }`);
      const record = await invokeContract(chain, user, address, "");
      expect(recordCode(record)).to.equal(ErrorCode.NOT_EXIST);
      expect(await chain.metadata(address, "before")).to.equal(undefined);
      expect(await chain.metadata(address, "caught")).to.equal(undefined);
      expect((await chain.account(address))!.nonce ?? 0n).to.equal(0n);
    });
  });

  describe("Chain.getBlockHash", () => {
    it("gives the stored hashes of closed ledgers counting back from the last closed one; false out of range or for a non-Number", async () => {
      const address = await deployed(`function main() {
        const n = Chain.block.number;
        const bad = [Chain.getBlockHash(1024), Chain.getBlockHash(-1), Chain.getBlockHash("0"), Chain.getBlockHash(0.5), Chain.getBlockHash(), Chain.getBlockHash(null), Chain.getBlockHash(n - 1)];
        Chain.store("hashes", JSON.stringify({ n, h0: Chain.getBlockHash(0), h1: Chain.getBlockHash(1), genesis: Chain.getBlockHash(n - 2), bad }));
      }
      function query() { return JSON.stringify([Chain.block.number, Chain.getBlockHash(0), Chain.getBlockHash(1023)]); }`);
      await chain.close();
      const record = await ok(address);
      const seq = record.ledger_seq!;
      const stored = async (s: bigint) => toHex((await chain.ledgers.ledgers.ledger(s))!.header!.hash!);
      const hashes = await json(address, "hashes");
      expect(hashes.n).to.equal(Number(seq));
      expect(hashes.h0).to.equal(await stored(seq - 1n)).and.to.match(/^[0-9a-f]{64}$/);
      expect(hashes.h1).to.equal(await stored(seq - 2n));
      expect(hashes.genesis).to.equal(await stored(1n));
      expect(hashes.bad).to.deep.equal([false, false, false, false, false, false, false]);
      // a query runs as in the next ledger: offset 0 is the last closed ledger
      const tip = chain.ledgers.lastHeader;
      expect(JSON.parse((await queried(address)) as string)).to.deep.equal([Number(tip.seq) + 1, toHex(tip.hash!), false]);
    });
  });

  describe("Chain.tlog", () => {
    const LOGGER = `${ATTEMPT}
      function main(input) {
        if (input === "one") return Chain.tlog("topic");
        if (input === "seven") return Chain.tlog("t", 1, 2, 3, 4, 5, 6);
        if (input === "empty") return Chain.tlog("t", "");
        if (input === "errors") {
          const errors = [
            attempt(() => Chain.tlog("topic")),
            attempt(() => Chain.tlog("t", 1, 2, 3, 4, 5, 6)),
            attempt(() => Chain.tlog("t", "")),
            attempt(() => Chain.tlog("", "d")),
            attempt(() => Chain.tlog("t".repeat(129), "d")),
            attempt(() => Chain.tlog(5, "d")),
            attempt(() => Chain.tlog("t", { a: 1 })),
            attempt(() => Chain.tlog("t", "d".repeat(1025))),
          ];
          return Chain.store("errors", JSON.stringify(errors));
        }
        Chain.tlog("transfer", "a", 5, true, 1.5, "é");
        Chain.tlog("t".repeat(128), "d".repeat(1024));
        Chain.tlog("numbers", NaN, Infinity, -0, 1e21);
      }`;

    it("becomes a LOG operation (type 8) in a contract-made transaction, datas stringified", async () => {
      const address = await deployed(LOGGER);
      const record = await ok(address, "log");
      const subs = await contractTxsOf(chain, record);
      expect(subs).to.have.length(3);
      const [first, longest, numbers] = subs;
      expect(first.transaction.source_address).to.equal(address);
      expect(first.transaction.nonce).to.equal(1n);
      const operation = first.transaction.operations![0];
      expect(operation.type).to.equal(OperationType.LOG);
      expect(operation.type).to.equal(8);
      expect(operation.log).to.deep.equal({ topic: "transfer", datas: ["a", "5", "true", "1.5", "é"] });
      expect(first.record.transaction_env!.trigger).to.deep.include({ transaction_type: 1, ledger_seq: record.ledger_seq });
      expect(first.record.transaction_env!.trigger!.transaction!.hash).to.deep.equal(record.hash);
      expect(first.record.transaction_env!.trigger!.transaction!.index ?? 0n).to.equal(0n);
      expect(first.record.ledger_seq).to.equal(record.ledger_seq);
      expect(longest.transaction.operations![0].log).to.deep.equal({ topic: "t".repeat(128), datas: ["d".repeat(1024)] });
      // a number is logged as the contract stringifies it
      expect(numbers.transaction.operations![0].log).to.deep.equal({ topic: "numbers", datas: ["NaN", "Infinity", "0", "1e+21"] });
      expect((await chain.account(address))!.nonce).to.equal(3n);
    });

    it("throws on 1 argument, on 7, on an empty or oversized datum, on a bad topic; uncaught it fails the transaction with 151", async () => {
      const address = await deployed(LOGGER);
      const record = await ok(address, "errors");
      const errors = (await json(address, "errors")) as string[];
      expect(errors).to.have.length(8);
      expect(errors[0]).to.equal("Chain.tlog: Parameter number error");
      expect(errors[1]).to.equal("Chain.tlog: Parameter number error");
      expect(errors[2]).to.equal("Chain.tlog: parameter 1 should have a length in (0, 1024]");
      expect(errors[3]).to.equal("Chain.tlog: parameter 0 should be a string of length (0, 128]");
      expect(errors[4]).to.equal("Chain.tlog: parameter 0 should be a string of length (0, 128]");
      expect(errors[5]).to.equal("Chain.tlog: parameter 0 should be a string of length (0, 128]");
      expect(errors[6]).to.equal("Chain.tlog: parameter 1 should be a string, number or boolean");
      expect(errors[7]).to.equal("Chain.tlog: parameter 1 should have a length in (0, 1024]");
      // only the store of the results made a transaction
      const subs = await contractTxsOf(chain, record);
      expect(subs.map((s) => s.transaction.operations![0].type)).to.deep.equal([OperationType.SET_METADATA]);
      for (const input of ["one", "seven", "empty"]) {
        const failed = await invokeContract(chain, user, address, input);
        expect(recordCode(failed), input).to.equal(ErrorCode.CONTRACT_EXECUTE_FAIL);
        expect(JSON.parse(failed.error_desc!).exception, input).to.match(/^Chain\.tlog: /);
        expect(failed.contract_tx_hashes ?? [], input).to.have.length(0);
      }
    });
  });

  describe("account reads", () => {
    it("Chain.getAccountMetadata reads another account's metadata; false when missing or for bad arguments", async () => {
      expect(recordCode(await chain.run(user, [op.setMetadata({ key: "color", value: "blue" })]))).to.equal(0);
      const address = await deployed(`function main(input) {
        Chain.store("own", "mine");
        const u = "${user.address}";
        Chain.store("read", JSON.stringify([Chain.getAccountMetadata(u, "color"), Chain.getAccountMetadata(u, "none"), Chain.getAccountMetadata("${nobody}", "color"),
          Chain.getAccountMetadata(u), Chain.getAccountMetadata(u, 5), Chain.getAccountMetadata(Chain.thisAddress, "own"), Chain.getAccountMetadata("not an address", "color")]));
      }`);
      await ok(address);
      expect(await json(address, "read")).to.deep.equal(["blue", false, false, false, false, "mine", false]);
    });

    it("Chain.getBalance gives decimal strings as the state is during the transaction, \"0\" for an unknown account", async () => {
      const address = await deployed(`function main() {
        Chain.store("balances", JSON.stringify([Chain.getBalance(Chain.thisAddress), Chain.getBalance("${user.address}"), Chain.getBalance("${nobody}"), Chain.getBalance(5)]));
      }`, "", 300n);
      const before = await chain.balance(user.address);
      await ok(address, "", 1_000n);
      // the fee is charged after the operations: during main the user has paid only the 1,000
      expect(await json(address, "balances")).to.deep.equal(["1300", String(before - 1_000n), "0", false]);
      expect(await chain.balance(address)).to.equal(1_300n);
    });

    it("Chain.getAccountPrivilege gives the privilege as a JSON string; false for an unknown account", async () => {
      const holder = await chain.fund(makeKey("builtins-holder"));
      await chain.fund(other);
      const set = await chain.run(holder, [op.setPrivilege({ master_weight: "5", signers: [{ address: other.address, weight: 3n }], tx_threshold: "4" })]);
      expect(recordCode(set), set.error_desc).to.equal(0);
      const address = await deployed(`function main() {
        const p = [Chain.getAccountPrivilege("${holder.address}"), Chain.getAccountPrivilege(Chain.thisAddress), Chain.getAccountPrivilege("${nobody}"), Chain.getAccountPrivilege(1)];
        Chain.store("privs", JSON.stringify([p.map((x) => typeof x), p]));
      }`);
      await ok(address);
      const [types, privs] = await json(address, "privs");
      expect(types).to.deep.equal(["string", "string", "boolean", "boolean"]);
      expect(privs[2]).to.equal(false);
      expect(privs[3]).to.equal(false);
      const holderPriv = JSON.parse(privs[0]);
      expect(Number(holderPriv.master_weight)).to.equal(5);
      expect(holderPriv.signers.map((s: { address: string; weight: unknown }) => [s.address, Number(s.weight)])).to.deep.equal([[other.address, 3]]);
      expect(Number(holderPriv.thresholds.tx_threshold)).to.equal(4);
      const contractPriv = JSON.parse(privs[1]);
      expect(Number(contractPriv.master_weight ?? 0)).to.equal(0);
      expect(Number(contractPriv.thresholds.tx_threshold)).to.equal(1);
    });

    it("Chain.getContractProperty: {type: 0, length} for a contract, {type: -1, length: 0} for a plain account, false when unknown", async () => {
      const plainContract = await deployed(`function main() { return "other"; }`);
      const address = await deployed(`function main() {
        Chain.store("props", JSON.stringify([Chain.getContractProperty(Chain.thisAddress), Chain.getContractProperty("${plainContract}"),
          Chain.getContractProperty("${user.address}"), Chain.getContractProperty("${nobody}"), Chain.getContractProperty(5)]));
      }`);
      await ok(address);
      const length = async (a: string) => utf8((await chain.account(a))!.contract!.payload!).length;
      expect(await json(address, "props")).to.deep.equal([
        { type: 0, length: await length(address) },
        { type: 0, length: await length(plainContract) },
        { type: -1, length: 0 },
        false,
        false,
      ]);
    });
  });

  describe("Chain.payCoin", () => {
    it("pays a plain account, creates an unknown one, runs a contract's main (also for \"0\") with stringified input, and records metadata", async () => {
      await chain.fund(other);
      const fresh = makeKey("builtins-fresh").address;
      const receiver = await deployed(`function main(input) { Chain.store("got-" + Chain.msg.coinAmount, JSON.stringify([input, Chain.msg.sender])); }`);
      const payer = await deployed(`function main() {
        const results = [Chain.payCoin("${other.address}", "100"), Chain.payCoin("${fresh}", "50"), Chain.payCoin("${receiver}", "7", { a: 1 }, "memo é"), Chain.payCoin("${receiver}", "0", "zero")];
        Chain.store("results", JSON.stringify(results));
      }`, "", 1_000n);
      const otherBefore = await chain.balance(other.address);
      const record = await ok(payer);
      expect(await json(payer, "results")).to.deep.equal([true, true, true, true]);
      expect(await chain.balance(other.address)).to.equal(otherBefore + 100n);
      expect(await chain.balance(fresh)).to.equal(50n);
      expect(await chain.balance(receiver)).to.equal(7n);
      expect(await chain.balance(payer)).to.equal(1_000n - 157n);
      expect(await json(receiver, "got-7")).to.deep.equal(['{"a":1}', payer]);
      expect(await json(receiver, "got-0")).to.deep.equal(["zero", payer]);

      const subs = await contractTxsOf(chain, record);
      // payer: 4 payments; receiver: one store per main; then the payer's store of the results
      expect(subs.map((s) => [s.transaction.source_address, s.transaction.operations![0].type])).to.deep.equal([
        [payer, OperationType.PAY_COIN],
        [payer, OperationType.PAY_COIN],
        [payer, OperationType.PAY_COIN],
        [receiver, OperationType.SET_METADATA],
        [payer, OperationType.PAY_COIN],
        [receiver, OperationType.SET_METADATA],
        [payer, OperationType.SET_METADATA],
      ]);
      const paid = subs[2].transaction.operations![0];
      expect(paid.pay_coin).to.deep.equal({ dest_address: receiver, amount: 7n, input: '{"a":1}' });
      expect(paid.metadata).to.deep.equal(utf8("memo é"));
      const history = recordJson(subs[2].record) as { transaction: { operations: { metadata?: string }[] } };
      expect(history.transaction.operations[0].metadata).to.equal(toHex(utf8("memo é")));
      expect(subs[0].transaction.operations![0].metadata ?? new Uint8Array()).to.have.length(0);
    });

    it("needs input when metadata is given (an empty string is allowed)", async () => {
      const address = await deployed(`function main() {
        let refused = "";
        try { Chain.payCoin("${other.address}", "1", undefined, "memo"); } catch (e) { refused = String(e); }
        Chain.store("refused", refused);
        Chain.payCoin("${other.address}", "1", "", "memo");
      }`, "", 10n);
      await ok(address);
      expect(await value(address, "refused")).to.equal("Chain.payCoin: parameter 2 (input) must be given with metadata; an empty string is allowed");
      expect(await chain.balance(address)).to.equal(9n);
    });

    it("fails the transaction with 101 when a contract pays itself, even when caught", async () => {
      const address = await deployed(`function main() { try { Chain.payCoin(Chain.thisAddress, "1"); } catch (e) { Chain.store("caught", String(e)); } }`, "", 10n);
      const record = await invokeContract(chain, user, address, "");
      expect(recordCode(record)).to.equal(ErrorCode.SOURCE_EQUALS_DESTINATION);
      expect(await chain.metadata(address, "caught")).to.equal(undefined);
      expect(await chain.balance(address)).to.equal(10n);
    });

    it("refuses bad arguments with a catchable exception and pays nothing", async () => {
      const address = await deployed(`${ATTEMPT}
        function main() {
          const to = "${user.address}";
          Chain.store("errors", JSON.stringify([attempt(() => Chain.payCoin(to)), attempt(() => Chain.payCoin(to, 5)), attempt(() => Chain.payCoin(to, "1.5")),
            attempt(() => Chain.payCoin(to, "-1")), attempt(() => Chain.payCoin(to, "01")), attempt(() => Chain.payCoin(5, "1")), attempt(() => Chain.payCoin(to, "1", "", "", "x"))]));
        }`, "", 10n);
      const record = await ok(address);
      const errors = (await json(address, "errors")) as string[];
      expect(errors).to.have.length(7);
      for (const error of errors) expect(error).to.match(/^Chain\.payCoin: /);
      expect(await chain.balance(address)).to.equal(10n);
      expect(await contractTxsOf(chain, record)).to.have.length(1);
    });
  });

  describe("Chain.contractCall", () => {
    it("pays a plain account (true), returns a contract main's string or boolean, false for any other type; exactly 4 arguments", async () => {
      await chain.fund(other);
      const echo = await deployed(`function main(input) {
        if (input === "num") return 42;
        if (input === "bool") return true;
        if (input === "none") return;
        return "echo:" + input + ":" + Chain.msg.coinAmount;
      }`);
      const caller = await deployed(`function main() {
        const results = [Chain.contractCall("${other.address}", true, "10", "ignored"), Chain.contractCall("${echo}", true, "3", "hi"),
          Chain.contractCall("${echo}", true, "0", "num"), Chain.contractCall("${echo}", true, "0", "bool"), Chain.contractCall("${echo}", true, "0", "none")];
        let error = "none";
        try { Chain.contractCall("${echo}", true, "0"); } catch (e) { error = e; }
        results.push(error);
        Chain.store("results", JSON.stringify(results));
      }`, "", 100n);
      const otherBefore = await chain.balance(other.address);
      await ok(caller);
      expect(await json(caller, "results")).to.deep.equal([true, "echo:hi:3", false, true, false, "Chain.contractCall: Parameter number error"]);
      expect(await chain.balance(other.address)).to.equal(otherBefore + 10n);
      expect(await chain.balance(echo)).to.equal(3n);
      expect(await chain.balance(caller)).to.equal(87n);
    });
  });

  describe("Chain.contractQuery / Chain.delegateQuery", () => {
    it("never throw: {result} or {error: true}; delegateQuery runs the other code on this contract's storage", async () => {
      const target = await deployed(`function init() { Chain.store("who", "target"); }
        function query(input) {
          if (input === "throw") throw "bad";
          if (input === "num") return 1;
          return JSON.stringify([Chain.load("who"), Chain.thisAddress, Chain.msg.sender, Chain.msg.initiator, input]);
        }`);
      const prober = await deployed(`function init() { Chain.store("who", "prober"); }
        function probe() {
          const t = "${target}";
          return [Chain.contractQuery(t, "x"), Chain.contractQuery(t, "throw"), Chain.contractQuery(t, "num"), Chain.contractQuery("${user.address}", "x"),
            Chain.contractQuery(t, 5), Chain.contractQuery("not an address", "x"),
            Chain.delegateQuery(t, "y"), Chain.delegateQuery(t, "throw"), Chain.delegateQuery(t, "num"), Chain.delegateQuery("${user.address}", "y")];
        }
        function main() { Chain.store("probe", JSON.stringify(probe())); }
        function query() { return JSON.stringify(probe()); }`);
      const expected = [
        // contractQuery: the target's storage and address; msg.sender is the caller, msg.initiator the caller's
        { result: JSON.stringify(["target", target, prober, user.address, "x"]) },
        { error: true },
        { error: true },
        { error: true },
        { error: true },
        { error: true },
        // delegateQuery: the target's code on the prober's storage, with the prober's address and msg
        { result: JSON.stringify(["prober", prober, user.address, user.address, "y"]) },
        { error: true },
        { error: true },
        { error: true },
      ];
      await ok(prober);
      expect(await json(prober, "probe")).to.deep.equal(expected);
      expect(JSON.parse((await queried(prober)) as string)).to.deep.equal(expected);
    });
  });

  describe("Chain.delegateCall", () => {
    it("runs the other code's main as this contract (thisAddress, storage, msg); a target without code throws a catchable error", async () => {
      const lib = await deployed(`function main(input) {
        Chain.store("written-by-lib", input);
        return JSON.stringify([Chain.thisAddress, Chain.load("owner"), Chain.msg.sender, Chain.msg.coinAmount]);
      }`);
      const proxy = await deployed(`function init() { Chain.store("owner", "proxy"); }
        function main() {
          const r = Chain.delegateCall("${lib}", "hello");
          let plain = "none";
          try { Chain.delegateCall("${user.address}", "x"); } catch (e) { plain = e; }
          let unknown = "none";
          try { Chain.delegateCall("${nobody}", "x"); } catch (e) { unknown = e; }
          Chain.store("result", JSON.stringify([r, plain, unknown]));
        }`);
      await ok(proxy, "", 9n);
      expect(await json(proxy, "result")).to.deep.equal([
        JSON.stringify([proxy, "proxy", user.address, "9"]),
        `The account(${user.address}) has no contract.`,
        `The account(${nobody}) has no contract.`,
      ]);
      expect(await value(proxy, "written-by-lib")).to.equal("hello");
      expect(await chain.metadata(lib, "written-by-lib")).to.equal(undefined);
      expect((await chain.account(lib))!.nonce ?? 0n).to.equal(0n);
      expect((await chain.account(proxy))!.nonce).to.equal(3n); // init's store, the lib's store, the result
    });
  });

  describe("Chain.contractCreate", () => {
    it("creates a contract at the documented address, runs its init at once, and takes exactly (balance, 0, code, input)", async () => {
      const CHILD = `function init(i) { Chain.store("init", JSON.stringify([i, Chain.msg.sender, Chain.msg.coinAmount, Chain.thisAddress])); } function main() {}`;
      const factory = await deployed(`${ATTEMPT}
        function init() {}
        function main(input) {
          const child = Chain.contractCreate("25", 0, ${JSON.stringify(CHILD)}, input);
          const code = "function init() {}";
          const errors = [attempt(() => Chain.contractCreate("0", 0, code)), attempt(() => Chain.contractCreate("0", 0, code, "", "")),
            attempt(() => Chain.contractCreate("0", "0", code, "")), attempt(() => Chain.contractCreate("0", 1, code, "")),
            attempt(() => Chain.contractCreate(0, 0, code, "")), attempt(() => Chain.contractCreate("0", 0, 5, ""))];
          Chain.store("created", JSON.stringify([child, errors]));
        }`, "", 100n);
      const nonceBefore = (await chain.account(factory))!.nonce ?? 0n;
      const record = await ok(factory, "hello");
      const [child, errors] = await json(factory, "created");
      expect(child).to.equal(contractAddress(factory, nonceBefore + 1n, 0));
      expect(errors).to.deep.equal([
        "Chain.contractCreate: Parameter number error",
        "Chain.contractCreate: Parameter number error",
        "Chain.contractCreate: parameter 1 should be the Number 0 (JavaScript)",
        "Chain.contractCreate: parameter 1 should be the Number 0 (JavaScript)",
        "Chain.contractCreate: parameter 0 should be a canonical int64 string ≥ 0",
        "Chain.contractCreate: parameter 2 should be a string",
      ]);
      const account = (await chain.account(child))!;
      expect(account.contract?.payload).to.equal(CHILD);
      expect(account.balance).to.equal(25n);
      expect(await chain.balance(factory)).to.equal(75n);
      expect(await json(child, "init")).to.deep.equal(["hello", factory, "25", child]);
      const [creation] = await contractTxsOf(chain, record);
      expect(creation.transaction.source_address).to.equal(factory);
      expect(creation.transaction.nonce).to.equal(nonceBefore + 1n);
      expect(creation.transaction.operations![0].type).to.equal(OperationType.CREATE_ACCOUNT);
    });
  });

  describe("Chain values", () => {
    const RECORDER = `function main(input) {
      Chain.store("env-" + input, JSON.stringify({ block: Chain.block, tx: Chain.tx, msg: Chain.msg, thisAddress: Chain.thisAddress }));
      return "recorded";
    }`;

    it("at the top level: block of the ledger, tx of the signed transaction, msg of each operation", async () => {
      await chain.fund(other);
      const recorder = await deployed(RECORDER);
      const nonce = await chain.nextNonce(user.address);
      const record = await chain.run(user, [callOp(recorder, "0", 5n), callOp(recorder, "1", 0n, other.address)], { fee_limit: CONTRACT_FEE, signers: [user, other] });
      expect(recordCode(record), record.error_desc).to.equal(0);
      const block = { number: Number(record.ledger_seq), timestamp: Number(record.close_time) };
      const tx = { initiator: user.address, gasPrice: "100", hash: toHex(record.hash!), feeLimit: String(CONTRACT_FEE) };
      expect(await json(recorder, "env-0")).to.deep.equal({
        block,
        tx: { ...tx, sender: user.address },
        msg: { initiator: user.address, sender: user.address, nonce: Number(nonce), operationIndex: 0, coinAmount: "5" },
        thisAddress: recorder,
      });
      expect(await json(recorder, "env-1")).to.deep.equal({
        block,
        tx: { ...tx, sender: other.address },
        msg: { initiator: user.address, sender: other.address, nonce: Number(nonce), operationIndex: 1, coinAmount: "0" },
        thisAddress: recorder,
      });
    });

    it("in nested calls: tx stays the signed transaction's, msg is the calling contract's sub-transaction", async () => {
      await chain.fund(other);
      const inner = await deployed(RECORDER);
      const outer = await deployed(`function main() {
        Chain.store("pre", "1");
        Chain.payCoin("${inner}", "7", "pay");
        const reply = Chain.contractCall("${inner}", true, "3", "call");
        Chain.store("outer", JSON.stringify({ tx: Chain.tx, msg: Chain.msg, reply }));
      }`, "", 100n);
      // the user's operation has another source: tx.sender (other) differs from tx.initiator (user)
      const nonce = await chain.nextNonce(user.address);
      const record = await chain.run(user, [callOp(outer, "", 0n, other.address)], { fee_limit: CONTRACT_FEE, signers: [user, other] });
      expect(recordCode(record), record.error_desc).to.equal(0);
      const tx = { initiator: user.address, sender: other.address, gasPrice: "100", hash: toHex(record.hash!), feeLimit: String(CONTRACT_FEE) };
      const block = { number: Number(record.ledger_seq), timestamp: Number(record.close_time) };
      const outerEnv = await json(outer, "outer");
      expect(outerEnv.tx).to.deep.equal(tx);
      expect(outerEnv.msg).to.deep.equal({ initiator: user.address, sender: other.address, nonce: Number(nonce), operationIndex: 0, coinAmount: "0" });
      expect(outerEnv.reply).to.equal("recorded");
      // outer's nonce: 1 after "pre", 2 after the payment, 3 after the call, 4 after "outer"
      expect(await json(inner, "env-pay")).to.deep.equal({
        block,
        tx,
        msg: { initiator: outer, sender: outer, nonce: 2, operationIndex: 0, coinAmount: "7" },
        thisAddress: inner,
      });
      expect(await json(inner, "env-call")).to.deep.equal({
        block,
        tx,
        msg: { initiator: outer, sender: outer, nonce: 3, operationIndex: 0, coinAmount: "3" },
        thisAddress: inner,
      });
      expect((await chain.account(outer))!.nonce).to.equal(4n);
    });

    it("in a query: no write built-ins, no coinAmount, the next ledger's number, an empty tx hash", async () => {
      const address = await deployed(`function query() {
        const writes = ["store", "del", "tlog", "payCoin", "contractCall", "contractCreate", "delegateCall"].map((name) => typeof Chain[name]);
        return JSON.stringify({ writes, coin: "coinAmount" in Chain.msg, block: Chain.block, tx: Chain.tx, msg: Chain.msg, thisAddress: Chain.thisAddress, load: typeof Chain.load });
      }`);
      const tip = chain.ledgers.lastHeader;
      const seen = JSON.parse((await queried(address)) as string);
      expect(seen).to.deep.include({
        writes: ["undefined", "undefined", "undefined", "undefined", "undefined", "undefined", "undefined"],
        coin: false,
        block: { number: Number(tip.seq) + 1, timestamp: Number(tip.close_time) + 1 },
        msg: { initiator: user.address, sender: user.address, nonce: 0, operationIndex: 0 },
        thisAddress: address,
        load: "function",
      });
      // contract-runtime.md §1 fixes these tx values of a query; gasPrice and feeLimit are not specified
      expect(seen.tx).to.include({ initiator: user.address, sender: user.address, hash: "" });
      expect(seen.tx).to.have.all.keys("initiator", "sender", "gasPrice", "hash", "feeLimit");
    });
  });

  describe("step accounting", () => {
    it("charges 1 per function entry, 1 per loop iteration and 100 per built-in call", async () => {
      const address = await deployed(`function query() { let s = 0; for (let i = 0; i < 10; i++) { s = s + i; } return Chain.load("k") === false ? "none" : "some"; }
        function main() {}`);
      const answer = await queryOn(chain, address, "", user.address);
      expect(answer.result.query_rets).to.deep.equal([{ result: { type: "string", value: "none" } }]);
      expect((answer.result.stat as { step: number }).step).to.equal(1 + 10 + 100);
      const two = await deployed(`function helper() { return Utils.int64Add("1", "2"); } function query() { helper(); return Chain.getBalance(Chain.thisAddress); }`);
      expect(((await queryOn(chain, two, "", user.address)).result.stat as { step: number }).step).to.equal(1 + 1 + 100 + 100);
    });

    it("shares 10,240 steps per transaction: 101 Chain.tlog calls in a loop fit, 102 fail with 155", async () => {
      const flood = await deployed(`function main(input) { for (let i = 0; i < Number(input); i++) { Chain.tlog("n", i); } }`);
      // 1 (main) + n × (1 loop step + 100): 10,202 for 101, 10,303 for 102
      const fits = await ok(flood, "101");
      expect(fits.contract_tx_hashes).to.have.length(101);
      const record = await invokeContract(chain, user, flood, "102");
      expect(recordCode(record)).to.equal(ErrorCode.CONTRACT_LIMIT_EXCEEDED);
      expect(JSON.parse(record.error_desc!).exception).to.equal("Step exceeding limit");
      expect((await chain.account(flood))!.nonce).to.equal(101n);
    });
  });

  describe("limits", () => {
    it("fails with 154 past 512 contract-made transactions (reachable only with a raised step limit)", async () => {
      // Under the default 10,240 steps at most 101 built-in calls fit (previous test), so 513 contract-made
      // transactions cannot happen; this chain raises the step and time limits and keeps the 512.
      const big = await newChain({ contractLimits: { steps: 100_000, timeMs: 20_000 } });
      expect(big.contracts.limits.maxContractTxs).to.equal(512);
      await big.fund(user, 10_000_000_000n);
      const flood = await deployContract(big, user, `function main(input) { for (let i = 0; i < Number(input); i++) { Chain.tlog("n", i); } }`);
      const fits = await invokeContract(big, user, flood, "512");
      expect(recordCode(fits), fits.error_desc).to.equal(0);
      expect(fits.contract_tx_hashes).to.have.length(512);
      expect((await big.account(flood))!.nonce).to.equal(512n);
      const record = await invokeContract(big, user, flood, "513");
      expect(recordCode(record)).to.equal(ErrorCode.CONTRACT_TOO_MANY_TRANSACTIONS);
      expect(record.contract_tx_hashes ?? []).to.have.length(0);
      expect((await big.account(flood))!.nonce).to.equal(512n);
    });

    it("fails with 111 when the gas of contract-made transactions takes the fee above fee_limit", async () => {
      const address = await deployed(`function main(input) { Chain.store("blob", "x".repeat(Number(input))); }`);
      const feeLimit = 1_000_000n; // 10,000 gas at 100
      const small = await chain.run(user, [callOp(address, "00010")], { fee_limit: feeLimit });
      expect(recordCode(small), small.error_desc).to.equal(0);
      expect(small.actual_fee! <= feeLimit).to.equal(true);
      expect((await value(address, "blob"))?.length).to.equal(10);
      const before = await chain.balance(user.address);
      const record = await chain.run(user, [callOp(address, "20000")], { fee_limit: feeLimit });
      expect(recordCode(record)).to.equal(ErrorCode.FEE_NOT_ENOUGH);
      expect((await value(address, "blob"))?.length).to.equal(10);
      expect(record.actual_fee! <= feeLimit).to.equal(true);
      expect(await chain.balance(user.address)).to.equal(before - record.actual_fee!);
      // the same call fits under a higher fee_limit
      expect(recordCode(await chain.run(user, [callOp(address, "20000")], { fee_limit: CONTRACT_FEE }))).to.equal(0);
      expect((await value(address, "blob"))?.length).to.equal(20000);
    });
  });
});
