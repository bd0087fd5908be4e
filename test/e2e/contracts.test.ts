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
