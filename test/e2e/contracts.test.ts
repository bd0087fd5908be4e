import { expect } from "chai";
import {
  Keypair,
  commit,
  createContract,
  proveRange,
  randomBlinding,
  signTally,
  expectOk,
  payCoin,
  sendTransaction,
  waitForTransaction,
  type ChainsimClient,
} from "@chainsim/client";
import { ErrorCode } from "@chainsim/protocol";
import { startTestNetwork, testManifest, type TestNetwork } from "../harness/network.js";

const VOTES = `"use strict";
function init(input) { Chain.store("topic", input); }
function main(input) {
  const key = "votes:" + input;
  const count = Chain.load(key);
  Chain.store(key, Utils.int64Add(count === false ? "0" : count, "1"));
  Chain.tlog("voted", input, Chain.msg.sender);
}
function query(input) {
  const count = Chain.load("votes:" + input);
  return Chain.load("topic") + ": " + input + " has " + (count === false ? "0" : count) + " votes";
}`;

describe("e2e: contract step settings of the network manifest", function () {
  this.timeout(60_000);
  let net: TestNetwork;
  after(async () => net?.cleanup());

  it("enforces the manifest's [contracts] steps and builtin_steps in the validator process", async () => {
    net = await startTestNetwork(testManifest("e2e-steps", 1, {}, ["[contracts]", "steps = 500", "builtin_steps = 200"]));
    const client = net.clients[0];
    const genesis = Keypair.fromPrivateKey(net.handle.manifest.genesis.account.private_key);
    const code = `function init() {} function query(n) { for (let i = 0; i < Number(n); i++) Chain.getBalance(Chain.thisAddress); return "ok"; }`;
    const { hash } = await sendTransaction(client, { signers: [genesis], operations: [createContract(code)], feeLimit: 200_000_000n });
    const address = JSON.parse((await waitForTransaction(client, hash)).error_desc)[0].contract_address as string;
    const steps = async (n: number) => {
      const answer = await client.callContract({ contract_address: address, input: String(n), opt_type: 2, source_address: "" } as never);
      return { code: answer.error_code, step: (answer.result as { stat: { step: number } }).stat.step };
    };
    expect(await steps(1)).to.deep.equal({ code: 0, step: 1 + 1 + 200 }); // query entry, one loop turn, one built-in at 200
    expect((await steps(3)).code).to.equal(ErrorCode.CONTRACT_LIMIT_EXCEEDED); // 1 + 3 × (1 + 200) > 500
  });
});

/** The usual flow of an existing SDK, through the real HTTP API of a validator process. */
describe("e2e: JavaScript contracts over HTTP", function () {
  this.timeout(60_000);
  let net: TestNetwork;
  let client: ChainsimClient;
  let genesis: Keypair;

  before(async () => {
    net = await startTestNetwork(testManifest("e2e-contracts", 1));
    client = net.clients[0];
    genesis = Keypair.fromPrivateKey(net.handle.manifest.genesis.account.private_key);
  });
  after(async () => net?.cleanup());

  it("creates with an empty destination, reads the address from error_desc, calls with PAY_COIN + input, queries with callContract", async () => {
    const { hash } = await sendTransaction(client, { signers: [genesis], operations: [createContract(VOTES, { initInput: "lunch" })], feeLimit: 200_000_000n });
    const created = await waitForTransaction(client, hash);
    expect(created.error_code, created.error_desc).to.equal(0);
    const [{ contract_address: address, operation_index }] = JSON.parse(created.error_desc) as { contract_address: string; operation_index: number }[];
    expect(operation_index).to.equal(0);

    const account = expectOk(await client.getAccount(address)).result;
    expect(account.contract).to.deep.equal({ type: 0, payload: VOTES });

    for (const choice of ["pizza", "pizza", "salad"]) {
      const voted = await sendTransaction(client, { signers: [genesis], operations: [payCoin(address, 0n, { input: choice })] });
      const record = await waitForTransaction(client, voted.hash);
      expect(record.error_code, record.error_desc).to.equal(0);
      expect(record.contract_tx_hashes).to.have.length(2); // the store and the tlog
    }

    const answer = await client.callContract({ contract_address: address, code: "", input: "pizza", contract_balance: "", fee_limit: 0, gas_price: 0, opt_type: 2, source_address: "" });
    expect(answer.error_code).to.equal(0);
    const result = answer.result as { query_rets: unknown[]; stat: { step: number; apply_time: number; memory_usage: number } };
    expect(result.query_rets).to.deep.equal([{ result: { type: "string", value: "lunch: pizza has 2 votes" } }]);
    expect(result.stat.step).to.be.greaterThan(0);
    expect(result.stat.memory_usage).to.be.greaterThan(0);
  });

  it("shows a contract-made transaction in history with its trigger, and its tlog as a LOG operation", async () => {
    const { hash } = await sendTransaction(client, { signers: [genesis], operations: [createContract(VOTES, { initInput: "dinner" })], feeLimit: 200_000_000n });
    const address = JSON.parse((await waitForTransaction(client, hash)).error_desc)[0].contract_address as string;
    const voted = await sendTransaction(client, { signers: [genesis], operations: [payCoin(address, 0n, { input: "soup" })] });
    const record = await waitForTransaction(client, voted.hash);
    const [, tlogHash] = record.contract_tx_hashes!;
    const sub = expectOk(await client.getTransactionHistory({ hash: tlogHash })).result.transactions[0] as Record<string, any>;
    expect(sub.transaction.source_address).to.equal(address);
    expect(sub.transaction.operations[0]).to.deep.include({ type: 8, log: { topic: "voted", datas: ["soup", genesis.address] } });
    expect(sub.trigger).to.deep.include({ transaction_type: 1, transaction: { hash: voted.hash } });
  });

  it("keeps the contract's owner and shows it with getAccount", async () => {
    const json = {
      source_address: genesis.address,
      nonce: Number((await client.getAccountBase(genesis.address)).result?.nonce ?? 0) + 1,
      fee_limit: 200_000_000,
      gas_price: 100,
      operations: [{ type: 1, create_account: { contract: { type: 0, payload: "function init() {}", owner: genesis.address }, priv: { thresholds: { tx_threshold: 1 } } } }],
    };
    const submitted = await client.submitTransaction([{ transaction_json: json, private_keys: [genesis.privateKey] }]);
    const record = await waitForTransaction(client, submitted.results![0].hash);
    const address = JSON.parse(record.error_desc)[0].contract_address as string;
    expect(expectOk(await client.getAccount(address)).result.contract).to.deep.equal({ type: 0, payload: "function init() {}", owner: genesis.address });
  });

  it("runs code given to callContract without an account, and reports a throwing query with 151", async () => {
    const byCode = await client.callContract({ contract_address: "", code: `function query(i) { return "echo:" + i; }`, input: "hi", opt_type: 2, source_address: "" } as never);
    expect((byCode.result as { query_rets: unknown[] }).query_rets).to.deep.equal([{ result: { type: "string", value: "echo:hi" } }]);
    const throwing = await client.callContract({ contract_address: "", code: `function query() { throw "bad"; }`, input: "", opt_type: 2, source_address: "" } as never);
    expect(throwing.error_code).to.equal(ErrorCode.CONTRACT_EXECUTE_FAIL);
    expect((throwing.result as { query_rets: { error: { data: { exception: string } } }[] }).query_rets[0].error.data.exception).to.equal("bad");
  });

  it("verifies Bulletproofs range proofs and Pedersen tallies made by the client's prover", async () => {
    const code = `function init() {}
      function query(input) {
        const q = JSON.parse(input);
        return q.tally ? Utils.pedersenTallyVerify(JSON.stringify(q.inputs), JSON.stringify(q.outputs), q.msg, q.sig) : Utils.bpRangeProofVerify(q.commit, q.proof);
      }`;
    const { hash } = await sendTransaction(client, { signers: [genesis], operations: [createContract(code)], feeLimit: 200_000_000n });
    const address = JSON.parse((await waitForTransaction(client, hash)).error_desc)[0].contract_address as string;
    const ask = async (input: unknown) => {
      const answer = await client.callContract({ contract_address: address, input: JSON.stringify(input), opt_type: 2, source_address: "" } as never);
      return (answer.result as { query_rets: { result: { value: unknown } }[] }).query_rets[0].result.value;
    };
    const blinding = randomBlinding();
    const commitment = commit(42n, blinding);
    const proof = proveRange(42n, blinding);
    expect(await ask({ commit: commitment, proof })).to.equal(true);
    const tampered = proof.slice(0, -2) + (proof.endsWith("00") ? "01" : "00");
    expect(await ask({ commit: commitment, proof: tampered })).to.equal(false);
    expect(await ask({ commit: commit(43n, blinding), proof })).to.equal(false);

    const [r1, r2, r3] = [randomBlinding(), randomBlinding(), randomBlinding()];
    const msg = "transfer 30 = 10 + 20, ref 00001"; // exactly 32 characters
    const tally = { tally: true, inputs: [commit(30n, r1)], outputs: [commit(10n, r2), commit(20n, r3)], msg, sig: signTally([r1], [r2, r3], msg) };
    expect(await ask(tally)).to.equal(true);
    expect(await ask({ ...tally, outputs: [commit(10n, r2), commit(21n, r3)] })).to.equal(false);
  });

  it("runs every Chain and Utils built-in in a real validator, checked through the HTTP API", async () => {
    const helper = `function init() {} function main(input) { Chain.store("called", input + ":" + Chain.msg.coinAmount); return "helper:" + input; }
      function query(input) { return "q:" + input; }`;
    const made = await sendTransaction(client, { signers: [genesis], operations: [createContract(helper)], feeLimit: 200_000_000n });
    const helperAddress = JSON.parse((await waitForTransaction(client, made.hash)).error_desc)[0].contract_address as string;
    const friend = Keypair.generate();
    const everything = `function init() {}
      function main(input) {
        const r = {};
        Chain.store("k", "v"); r.load = Chain.load("k"); Chain.store("gone", "x"); Chain.del("gone"); r.deleted = Chain.load("gone");
        r.tlog = Chain.tlog("topic", "a", 1, true);
        r.blockHash = typeof Chain.getBlockHash(0) === "string";
        r.metadata = Chain.getAccountMetadata(Chain.thisAddress, "k");
        r.balance = Chain.getBalance(Chain.thisAddress);
        r.privilege = JSON.parse(Chain.getAccountPrivilege(Chain.thisAddress)).thresholds.tx_threshold;
        r.property = Chain.getContractProperty("${helperAddress}").type;
        r.payCoin = Chain.payCoin("${friend.address}", "10", "", "memo");
        r.issue = Chain.issueAsset("PTS", "100");
        r.payAsset = Chain.payAsset("${friend.address}", Chain.thisAddress, "PTS", "40");
        r.asset = Chain.getAccountAsset("${friend.address}", { issuer: Chain.thisAddress, code: "PTS" });
        r.call = Chain.contractCall("${helperAddress}", true, "3", "hi");
        r.query = Chain.contractQuery("${helperAddress}", "x");
        r.delegateQuery = Chain.delegateQuery("${helperAddress}", "y");
        r.delegateCall = Chain.delegateCall("${helperAddress}", "z");
        r.created = Utils.addressCheck(Chain.contractCreate("0", 0, "function init() {}", ""));
        r.values = [Chain.block.number > 1, Chain.tx.initiator === Chain.msg.sender, Chain.thisAddress.length > 0, Chain.msg.nonce > 0];
        r.utils = [Utils.int64Add("1", "2"), Utils.int64Sub("5", "7"), Utils.int64Mul("3", "4"), Utils.int64Div("9", "2"), Utils.int64Mod("9", "2"),
          Utils.int64Compare("2", "1"), Utils.stoI64Check("42"), Utils.assert(true), Utils.sha256("61", 0), Utils.toBaseUnit("1.5"),
          Utils.addressCheck(Chain.thisAddress), Utils.toAddress("${genesis.publicKey}") === "${genesis.address}",
          Utils.ecVerify("00", "${genesis.publicKey}", "61", 1), Utils.HexToDec("ff"), Utils.hexToDec("0x10"),
          Utils.bpRangeProofVerify("00", "00"), Utils.pedersenTallyVerify("[]", "[]", "m", "s"), Utils.log("log line")];
        Chain.store("report", JSON.stringify(r));
      }`;
    const deployed = await sendTransaction(client, { signers: [genesis], operations: [createContract(everything, { initBalance: 1_000n })], feeLimit: 300_000_000n });
    const address = JSON.parse((await waitForTransaction(client, deployed.hash)).error_desc)[0].contract_address as string;
    const ran = await sendTransaction(client, { signers: [genesis], operations: [payCoin(address, 0n, { input: "go" })], feeLimit: 300_000_000n });
    const record = await waitForTransaction(client, ran.hash);
    expect(record.error_code, record.error_desc).to.equal(0);
    const meta = expectOk(await client.getAccountMetaData(address, "report")).result as Record<string, { value: string }>;
    expect(JSON.parse(meta.report.value)).to.deep.equal({
      load: "v", deleted: false, tlog: true, blockHash: true, metadata: "v", balance: "1000", privilege: 1, property: 0,
      payCoin: true, issue: true, payAsset: true, asset: "40", call: "helper:hi", query: { result: "q:x" }, delegateQuery: { result: "q:y" },
      delegateCall: "helper:z", created: true, values: [true, true, true, true],
      utils: ["3", "-2", "12", "4", "1", 1, true, true, "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb", "150000000",
        true, true, false, "255", "16", false, false, null],
    });
    const friendAccount = expectOk(await client.getAccount(friend.address)).result;
    expect(friendAccount.balance).to.equal(10);
    expect(friendAccount.assets).to.deep.equal([{ key: { issuer: address, code: "PTS" }, amount: 40 }]);
    expect((expectOk(await client.getAccountMetaData(helperAddress, "called")).result as Record<string, { value: string }>).called.value).to.equal("hi:3");
    // delegateCall ran the helper's main against this contract's storage
    expect((expectOk(await client.getAccountMetaData(address, "called")).result as Record<string, { value: string }>).called.value).to.equal("z:0");
  });

  it("fails a contract that throws with 151, keeps the coins with the sender, and charges the fee", async () => {
    const code = `function init() {} function main(input) { Utils.assert(input === "yes", "say yes"); }`;
    const { hash } = await sendTransaction(client, { signers: [genesis], operations: [createContract(code)], feeLimit: 200_000_000n });
    const address = JSON.parse((await waitForTransaction(client, hash)).error_desc)[0].contract_address as string;
    const sent = await sendTransaction(client, { signers: [genesis], operations: [payCoin(address, 1_000n, { input: "no" })] });
    const record = await waitForTransaction(client, sent.hash);
    expect(record.error_code).to.equal(ErrorCode.CONTRACT_EXECUTE_FAIL);
    expect(JSON.parse(record.error_desc)).to.include({ contract: address, exception: "say yes" });
    expect(Number(record.actual_fee)).to.be.greaterThan(0);
    expect(expectOk(await client.getAccount(address)).result.balance).to.equal(undefined); // still 0
  });
});
