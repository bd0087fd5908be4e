import { expect } from "chai";
import { ErrorCode, codecs, fromHex, parseJson, type Json } from "@chainsim/protocol";
import { Ed25519Verifier } from "@chainsim/protocol/node-crypto";
import { KEY_VECTORS, TRANSACTION_VECTOR } from "@chainsim/protocol/testing";
import {
  ApiError,
  ChainsimClient,
  Keypair,
  TransactionTimeoutError,
  getNonce,
  payCoin,
  sendTransaction,
  signTransactionBlob,
  waitForTransaction,
} from "../src/index.js";
import { MockNode, type RecordedRequest, type Reply } from "./mock-node.js";

const [zero, seven, third] = KEY_VECTORS.map((v) => Keypair.fromSeed(fromHex(v.seed)));
const NOT_FOUND = { error_code: 4, error_desc: "not found", result: { total_count: 0, transactions: [] } };

/** Answers like a node that knows `accounts` (address → getAccountBase result) and accepts every submission. */
function fakeNode(accounts: Record<string, Json>, submitted: Reply["json"] = undefined) {
  return (request: RecordedRequest): Reply => {
    if (request.path === "/getAccountBase") {
      const account = accounts[request.query.get("address") ?? ""];
      return { json: account ? { error_code: 0, result: account } : { error_code: 4, error_desc: "account not exist", result: null } };
    }
    if (request.path === "/submitTransaction") {
      return { json: submitted ?? { results: [{ error_code: 0, error_desc: "", hash: "ignored" }], success_count: 1 } };
    }
    return { status: 404, text: "" };
  };
}

function submittedItems(node: MockNode): { transaction_blob: string; signatures: { public_key: string; sign_data: string }[] }[] {
  const submit = node.requests.find((r) => r.path === "/submitTransaction");
  return (parseJson(submit!.body) as { items: never[] }).items;
}

describe("wallet", () => {
  let node: MockNode;
  let client: ChainsimClient;

  before(async () => {
    node = await MockNode.start();
    client = new ChainsimClient(node.url);
  });
  after(() => node.close());

  describe("sendTransaction", () => {
    it("reproduces the compat.md §3 vector: nonce from a fresh account (field absent), default fee and gas price", async () => {
      node.reset(fakeNode({ [zero.address]: { address: zero.address, balance: 10 ** 9 } }));
      const sent = await sendTransaction(client, { signers: [zero], operations: [payCoin(seven.address, 12345)] });
      expect(sent).to.deep.equal({ hash: TRANSACTION_VECTOR.hash, blob: TRANSACTION_VECTOR.blob });
      expect(node.requests.map((r) => r.path)).to.deep.equal(["/getAccountBase", "/submitTransaction"]);
      expect(node.requests[0].query.get("address")).to.equal(zero.address);
      expect(submittedItems(node)).to.deep.equal([
        {
          transaction_blob: TRANSACTION_VECTOR.blob,
          signatures: [{ public_key: TRANSACTION_VECTOR.publicKey, sign_data: TRANSACTION_VECTOR.signature }],
        },
      ]);
    });

    it("uses nonce + 1 of the source account, exact beyond 2^53", async () => {
      node.reset(fakeNode({ [zero.address]: { address: zero.address, nonce: 2n ** 60n } }));
      const sent = await sendTransaction(client, { signers: [zero], operations: [payCoin(seven.address, 1)] });
      expect(codecs.Transaction.decode(fromHex(sent.blob)).nonce).to.equal(2n ** 60n + 1n);
    });

    it("joint account: given source and nonce (no lookup), every signer signs, optional fields encoded", async () => {
      node.reset(fakeNode({}));
      const sent = await sendTransaction(client, {
        signers: [seven, third],
        source: zero.address,
        operations: [payCoin(seven.address, 1)],
        nonce: 5,
        feeLimit: 2_000_000,
        gasPrice: 110n,
        metadata: Uint8Array.of(0xca, 0xfe),
        ceilLedgerSeq: 99,
        chainId: 7,
      });
      expect(node.requests.map((r) => r.path)).to.deep.equal(["/submitTransaction"]);
      expect(codecs.Transaction.decode(fromHex(sent.blob))).to.deep.equal({
        source_address: zero.address,
        nonce: 5n,
        operations: [{ type: 7, pay_coin: { dest_address: seven.address, amount: 1n } }],
        metadata: Uint8Array.of(0xca, 0xfe),
        fee_limit: 2_000_000n,
        gas_price: 110n,
        ceil_ledger_seq: 99n,
        chain_id: 7n,
      });
      const [item] = submittedItems(node);
      expect(item.signatures.map((s) => s.public_key)).to.deep.equal([seven.publicKey, third.publicKey]);
      const verifier = new Ed25519Verifier();
      for (const s of item.signatures) expect(verifier.verifyJson(s, fromHex(sent.blob))).to.equal(true);
    });

    it("throws ApiError with the item's code when the node refuses the transaction", async () => {
      node.reset(
        fakeNode({}, { results: [{ error_code: 93, error_desc: "signature weight not enough", hash: "h" }], success_count: 0 }),
      );
      const error = await sendTransaction(client, { signers: [seven], source: zero.address, nonce: 1, operations: [] }).catch(
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(ApiError).that.include({ code: 93, desc: "signature weight not enough" });
    });

    it("throws ApiError(4) when the source account does not exist, before submitting", async () => {
      node.reset(fakeNode({}));
      const error = await sendTransaction(client, { signers: [third], operations: [payCoin(seven.address, 1)] }).catch(
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(ApiError).with.property("code", ErrorCode.NOT_EXIST);
      expect(node.requests.map((r) => r.path)).to.deep.equal(["/getAccountBase"]);
    });

    it("needs at least one signer", async () => {
      const error = await sendTransaction(client, { signers: [], operations: [] }).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(TypeError);
    });
  });

  it("getNonce: 0 when the field is absent, bigint otherwise", async () => {
    node.reset(fakeNode({ [zero.address]: { address: zero.address }, [seven.address]: { address: seven.address, nonce: 12 } }));
    expect(await getNonce(client, zero.address)).to.equal(0n);
    expect(await getNonce(client, seven.address)).to.equal(12n);
  });

  it("signTransactionBlob: one signature per key, in order", async () => {
    const signatures = await signTransactionBlob(fromHex(TRANSACTION_VECTOR.blob), [zero, seven]);
    expect(signatures.map((s) => s.public_key)).to.deep.equal([zero.publicKey, seven.publicKey]);
    expect(signatures[0].sign_data).to.equal(TRANSACTION_VECTOR.signature);
  });

  describe("waitForTransaction", () => {
    const record = { hash: TRANSACTION_VECTOR.hash, ledger_seq: 3, error_code: 0, error_desc: "", actual_fee: 17400 };

    it("polls by hash until the record appears", async () => {
      let polls = 0;
      node.reset(() => {
        polls += 1;
        return { json: polls < 3 ? NOT_FOUND : { error_code: 0, result: { total_count: 1, transactions: [record] } } };
      });
      expect(await waitForTransaction(client, TRANSACTION_VECTOR.hash, { intervalMs: 5 })).to.deep.equal(record);
      expect(node.requests).to.have.length(3);
      for (const r of node.requests) {
        expect([r.path, Object.fromEntries(r.query)]).to.deep.equal(["/getTransactionHistory", { hash: TRANSACTION_VECTOR.hash }]);
      }
    });

    it("gives up after timeoutMs with an error naming the hash", async () => {
      node.reset(() => ({ json: NOT_FOUND }));
      const started = Date.now();
      const error = await waitForTransaction(client, "feed", { timeoutMs: 120, intervalMs: 20 }).catch((e: unknown) => e);
      const elapsed = Date.now() - started;
      expect(error).to.be.instanceOf(TransactionTimeoutError).that.include({ hash: "feed", timeoutMs: 120 });
      expect((error as Error).message).to.contain("feed");
      expect(elapsed).to.be.within(110, 1000);
      expect(node.requests.length).to.be.within(2, 10);
    });

    it("throws ApiError for an answer other than not found", async () => {
      node.reset(() => ({ json: { error_code: 2, error_desc: "bad hash", result: null } }));
      const error = await waitForTransaction(client, "zz", { timeoutMs: 1000 }).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(ApiError).with.property("code", 2);
      expect(node.requests).to.have.length(1);
    });
  });
});

