import { expect } from "chai";
import { parseJson } from "@chainsim/protocol";
import { KEY_VECTORS, TRANSACTION_VECTOR } from "@chainsim/protocol/testing";
import { ApiError, ChainsimClient, NetworkError, expectOk } from "../src/index.js";
import { MockNode, type RecordedRequest } from "./mock-node.js";

const [A] = KEY_VECTORS.map((v) => v.address);
const OK = { error_code: 0, result: {} };

describe("ChainsimClient", () => {
  let node: MockNode;
  let client: ChainsimClient;

  before(async () => {
    node = await MockNode.start();
    client = new ChainsimClient(node.url + "/");
  });
  after(() => node.close());
  beforeEach(() => node.reset(() => ({ json: OK })));

  function only(): RecordedRequest {
    expect(node.requests).to.have.length(1);
    return node.requests[0];
  }

  function query(request: RecordedRequest): Record<string, string> {
    return Object.fromEntries(request.query);
  }

  it("GET routes: paths and query parameters, unset ones left out", async () => {
    const calls: [() => Promise<unknown>, string, Record<string, string>][] = [
      [() => client.hello(), "/hello", {}],
      [() => client.getModulesStatus(), "/getModulesStatus", {}],
      [() => client.getConsensusInfo(), "/getConsensusInfo", {}],
      [() => client.getAccountBase(A), "/getAccountBase", { address: A }],
      [() => client.getAccount(A), "/getAccount", { address: A }],
      [() => client.getAccount(A, { key: "k1" }), "/getAccount", { address: A, key: "k1" }],
      [() => client.getAccountMetaData(A), "/getAccountMetaData", { address: A }],
      [() => client.getAccountMetaData(A, "k1"), "/getAccountMetaData", { address: A, key: "k1" }],
      [() => client.getTransactionHistory(), "/getTransactionHistory", {}],
      [() => client.getTransactionHistory({ hash: "ab12" }), "/getTransactionHistory", { hash: "ab12" }],
      [
        () => client.getTransactionHistory({ ledger_seq: 12n, start: 5, limit: 10 }),
        "/getTransactionHistory",
        { ledger_seq: "12", start: "5", limit: "10" },
      ],
      [() => client.getTransactionCache(), "/getTransactionCache", {}],
      [() => client.getTransactionCache("ab12"), "/getTransactionCache", { hash: "ab12" }],
      [() => client.getTxCacheSize(), "/getTxCacheSize", {}],
      [() => client.getLedger(), "/getLedger", {}],
      [
        () => client.getLedger({ seq: 3, with_validator: true, with_leader: true, with_fee: false }),
        "/getLedger",
        { seq: "3", with_validator: "true", with_leader: "true", with_fee: "false" },
      ],
    ];
    for (const [call, path, expected] of calls) {
      node.reset(() => ({ json: OK }));
      await call();
      const request = only();
      expect({ method: request.method, path: request.path, query: query(request) }).to.deep.equal({
        method: "GET",
        path,
        query: expected,
      });
    }
  });

  it("POST routes: JSON bodies of the documented shapes", async () => {
    const signatures = [{ sign_data: TRANSACTION_VECTOR.signature, public_key: TRANSACTION_VECTOR.publicKey }];
    const call = { contract_address: A, input: "{}", opt_type: 2, fee_limit: 1000000, gas_price: 100 };
    const calls: [() => Promise<unknown>, string, unknown][] = [
      [() => client.getTransactionBlob(TRANSACTION_VECTOR.json), "/getTransactionBlob", TRANSACTION_VECTOR.json],
      [
        () => client.getSignature(KEY_VECTORS[0].privateKey, TRANSACTION_VECTOR.blob),
        "/getSignature",
        { private_key: KEY_VECTORS[0].privateKey, transaction_blob: TRANSACTION_VECTOR.blob },
      ],
      [
        () =>
          client.submitTransaction([
            { transaction_blob: TRANSACTION_VECTOR.blob, signatures },
            { transaction_json: TRANSACTION_VECTOR.json, private_keys: [KEY_VECTORS[0].privateKey] },
          ]),
        "/submitTransaction",
        {
          items: [
            { transaction_blob: TRANSACTION_VECTOR.blob, signatures },
            { transaction_json: TRANSACTION_VECTOR.json, private_keys: [KEY_VECTORS[0].privateKey] },
          ],
        },
      ],
      [
        () => client.testTransaction({ items: [{ transaction_json: TRANSACTION_VECTOR.json }] }),
        "/testTransaction",
        { items: [{ transaction_json: TRANSACTION_VECTOR.json }] },
      ],
      [() => client.callContract(call), "/callContract", call],
    ];
    for (const [send, path, body] of calls) {
      node.reset(() => ({ json: OK }));
      await send();
      const request = only();
      expect({ method: request.method, path: request.path, type: request.contentType }).to.deep.equal({
        method: "POST",
        path,
        type: "application/json",
      });
      expect(parseJson(request.body)).to.deep.equal(body);
    }
  });

  it("keeps int64 values beyond 2^53 exact both ways", async () => {
    node.reset(() => ({
      text: `{"error_code":0,"result":{"address":"${A}","balance":100000000000000001,"nonce":7}}`,
    }));
    const { result } = expectOk(await client.getAccountBase(A));
    expect(result.balance).to.equal(100000000000000001n);
    expect(result.nonce).to.equal(7);

    node.reset(() => ({ json: OK }));
    await client.getTransactionBlob({ ...TRANSACTION_VECTOR.json, nonce: 2n ** 62n + 1n });
    expect(only().body).to.contain('"nonce":4611686018427387905');
  });

  it("returns error bodies as they are; expectOk turns them into ApiError", async () => {
    node.reset(() => ({ json: { error_code: 4, error_desc: "account not exist", result: null } }));
    const body = await client.getAccountBase(A);
    expect(body).to.deep.equal({ error_code: 4, error_desc: "account not exist", result: null });
    expect(() => expectOk(body)).to.throw(ApiError, "error_code 4: account not exist").that.include({
      code: 4,
      desc: "account not exist",
    });
    node.reset(() => ({ json: { error_code: 0, result: { address: A } } }));
    expect(expectOk(await client.getAccountBase(A)).result).to.deep.equal({ address: A });
  });

  it("NetworkError naming the URL for HTTP 500, a non-JSON answer and a refused connection", async () => {
    node.reset(() => ({ status: 500, json: { error_code: 1 } }));
    const error = await client.getTxCacheSize().then(
      () => expect.fail("should throw"),
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(NetworkError).that.include({ url: `${node.url}/getTxCacheSize`, status: 500 });
    expect((error as Error).message).to.contain(`${node.url}/getTxCacheSize`).and.contain("500");

    node.reset(() => ({ text: "<html>proxy error</html>" }));
    const notJson = await client.hello().catch((e: unknown) => e);
    expect(notJson).to.be.instanceOf(NetworkError).with.property("message").that.contains("not JSON");

    const closed = await MockNode.start();
    const url = closed.url;
    await closed.close();
    const refused = await new ChainsimClient(url).hello().catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(NetworkError).with.property("url", `${url}/hello`);
  });

  it("NetworkError when the node does not answer within the request timeout", async () => {
    node.reset(() => ({ hang: true }));
    const started = Date.now();
    const error = await new ChainsimClient(node.url, { timeoutMs: 50 }).hello().catch((e: unknown) => e);
    expect(error).to.be.instanceOf(NetworkError).with.property("message").that.contains("timeout");
    expect(Date.now() - started).to.be.below(1000);
  });
});
