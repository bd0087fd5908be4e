import { expect } from "chai";
import { readdir, readFile } from "node:fs/promises";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { Keypair } from "@chainsim/client";
import { parseJson, stringifyJson, type Json } from "@chainsim/protocol";
import { startTestNetwork, testManifest, waitFor, type TestNetwork } from "../harness/network.js";

type Spec = { paths: Record<string, Record<string, Operation>>; components: { responses: Record<string, ResponseSpec> } };
type Operation = { responses: Record<string, ResponseSpec | { $ref: string }> };
type ResponseSpec = { content: Record<string, { schema: unknown }> };
type Answer = { status: number; type: string; text: string; body: Json };

/** Where the node's route modules are: every route they mount must be in the spec. */
const ROUTES_DIR = new URL("../../../packages/node/src/http/routes/", import.meta.url);

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** Stands for a number ajv must not take for an int64 (a JSON integer type rejects it, a number type accepts it). */
const NOT_AN_INT64 = 0.5;

/**
 * The answer as ajv can check it without precision hiding a violation: parseJson gives int64 values above
 * 2^53 as bigints, which become doubles of the same sign and integer-ness (their range was checked here), and
 * a number it gave as a double beyond 2^53 was written with a fraction or an exponent, so it is no int64.
 */
function forAjv(value: Json): unknown {
  if (typeof value === "bigint") return value < INT64_MIN || value > INT64_MAX ? NOT_AN_INT64 : Number(value);
  if (typeof value === "number") return Number.isInteger(value) && !Number.isSafeInteger(value) ? NOT_AN_INT64 : value;
  if (Array.isArray(value)) return value.map(forAjv);
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, forAjv(v)]));
  return value;
}

/** Every route of docs/openapi.yaml called with good and bad input on one validator, each answer checked against it. */
describe("e2e: the OpenAPI contract (docs/openapi.yaml) against real answers", function () {
  this.timeout(120_000);
  let net: TestNetwork;
  let base: string;
  let spec: Spec;
  let ajv: Ajv2020;
  const called = new Set<string>();
  const genesis = () => Keypair.fromPrivateKey(net.handle.manifest.genesis.account.private_key);

  before(async () => {
    net = await startTestNetwork(testManifest("e2e-openapi", 1));
    base = net.handle.nodes[0].http;
    const served = await fetch(`${base}/openapi.json`);
    spec = parseJson(await served.text()) as unknown as Spec;
    ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true });
    ajv.addFormat("int64", true); // the range is in the schema's minimum and maximum
    ajv.addVocabulary(["openapi", "info", "servers", "paths", "components"]); // the document around the schemas
    ajv.addSchema(forAjv(spec as unknown as Json) as object, "openapi.json"); // its int64 bounds are bigints too
  });
  after(async () => net?.cleanup());

  const pointer = (...parts: string[]) => "#/" + parts.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");
  const validatorOf = (at: string): ValidateFunction => ajv.getSchema(`openapi.json${at}`)!;

  /** Checks one answer against the response the spec gives for its status and content type. */
  function check(answer: Answer, at: string, response: ResponseSpec): void {
    const mediaType = Object.keys(response.content).find((t) => t.split(";")[0] === answer.type.split(";")[0]);
    expect(mediaType, `${at}: content type ${answer.type} of answer ${answer.text.slice(0, 200)}`).to.not.equal(undefined);
    if (mediaType!.startsWith("text/")) return void expect(answer.text).to.be.a("string");
    const validate = validatorOf(`${at}/content/${pointer(mediaType!).slice(2)}/schema`);
    const ok = validate(forAjv(answer.body));
    expect(ok, `${at}: ${answer.text.slice(0, 600)}\n${ajv.errorsText(validate.errors, { separator: "\n" })}`).to.equal(true);
  }

  /** Calls a route, checks its answer against the operation of the spec, and returns the answer. */
  async function call(method: string, path: string, body?: unknown): Promise<Answer> {
    const url = new URL(path, base);
    const res = await fetch(url, { method, body: body === undefined ? undefined : typeof body === "string" ? body : stringifyJson(body) });
    const text = await res.text();
    const type = res.headers.get("content-type") ?? "";
    const answer: Answer = { status: res.status, type, text, body: type.startsWith("application/json") ? parseJson(text) : text };
    const operation = spec.paths[url.pathname]?.[method.toLowerCase()];
    expect(operation, `${method} ${url.pathname} is not in docs/openapi.yaml`).to.not.equal(undefined);
    called.add(`${method} ${url.pathname}`);
    const declared = operation!.responses[String(answer.status)];
    expect(declared, `${method} ${url.pathname} answered HTTP ${answer.status}, which the spec does not declare`).to.not.equal(undefined);
    const [at, response] =
      "$ref" in declared!
        ? [declared.$ref, spec.components.responses[declared.$ref.split("/").pop()!]]
        : [pointer("paths", url.pathname, method.toLowerCase(), "responses", String(answer.status)), declared];
    check(answer, at, response);
    return answer;
  }
  const ok = async (method: string, path: string, body?: unknown) => {
    const answer = await call(method, path, body);
    expect((answer.body as { error_code?: number }).error_code ?? 0, answer.text.slice(0, 300)).to.equal(0);
    return answer.body as any;
  };
  const fails = async (code: number, method: string, path: string, body?: unknown) => {
    const answer = await call(method, path, body);
    expect((answer.body as { error_code?: number }).error_code, answer.text.slice(0, 300)).to.equal(code);
  };
  /** A path that is no route: its 404 must match components.responses.NotFound. */
  const notFound = async (method: string, path: string) => {
    const res = await fetch(new URL(path, base), { method });
    const text = await res.text();
    expect(res.status).to.equal(404);
    check({ status: 404, type: res.headers.get("content-type") ?? "", text, body: parseJson(text) }, pointer("components", "responses", "NotFound"), spec.components.responses.NotFound);
  };

  const nonce = async (address: string) => BigInt((await ok("GET", `/getAccountBase?address=${address}`)).result.nonce ?? 0) + 1n;
  const inLedger = (hash: string) =>
    waitFor(`transaction ${hash} in a ledger`, async () => {
      const answer = (await call("GET", `/getTransactionHistory?hash=${hash}`)).body as any;
      return answer.error_code === 0 ? answer.result.transactions[0] : undefined;
    });
  const submitJson = async (transaction_json: object, key: string) =>
    (await ok("POST", "/submitTransaction", { items: [{ transaction_json, private_keys: [key] }] })).results[0];

  it("status routes, without an envelope", async () => {
    await ok("GET", "/hello");
    await fails(170, "GET", "/hello?domainid=7");
    await ok("GET", "/getModulesStatus");
    await ok("GET", "/getConsensusInfo?domain_id=0");
    await fails(170, "GET", "/getConsensusInfo?domain_id=1");
  });

  it("accounts, transactions, records and the pool, with int64 values above 2^53", async () => {
    const g = genesis();
    const base = await ok("GET", `/getAccountBase?address=${g.address}`);
    expect(base.result.balance).to.be.a("bigint"); // the genesis balance, 10^17, is above 2^53
    await fails(2, "GET", "/getAccountBase?address=alice");
    await fails(4, "GET", `/getAccountBase?address=${Keypair.generate().address}`);

    const alice = Keypair.generate();
    const create = {
      source_address: g.address, nonce: await nonce(g.address), fee_limit: 10_000_000, gas_price: 100,
      operations: [{ type: 1, create_account: { dest_address: alice.address, init_balance: "9007200254740993", priv: { master_weight: 1, thresholds: { tx_threshold: 1 } } } }],
    };
    const blob = (await ok("POST", "/getTransactionBlob", create)).result.transaction_blob as string;
    await fails(2, "POST", "/getTransactionBlob", { ...create, source_address: "nobody" });
    await fails(2, "POST", "/getTransactionBlob", { ...create, nonce: "x" });
    const signature = (await ok("POST", "/getSignature", { private_key: g.privateKey, transaction_blob: blob })).result;
    await fails(91, "POST", "/getSignature", { private_key: "priSPKnotakey", transaction_blob: blob });
    await fails(2, "POST", "/getSignature", { private_key: g.privateKey, transaction_blob: "zz" });
    const submitted = await ok("POST", "/submitTransaction", { items: [{ transaction_blob: blob, signatures: [{ sign_data: signature.sign_data, public_key: signature.public_key }] }] });
    await inLedger(submitted.results[0].hash);
    await fails(2, "POST", "/submitTransaction", {});
    await fails(2, "POST", "/submitTransaction", "[1]");
    await fails(2, "POST", "/submitTransaction", "{not json");
    await ok("POST", "/submitTransaction", { items: [{ transaction_blob: "zz", signatures: [] }, {}] }); // refused per item

    const written = await submitJson(
      { source_address: alice.address, nonce: 1, fee_limit: 1_000_000, gas_price: 100, operations: [{ type: 4, set_metadata: { key: "greeting", value: "hi" } }] },
      alice.privateKey,
    );
    await inLedger(written.hash);
    const account = await ok("GET", `/getAccount?address=${alice.address}`);
    expect(account.result.balance).to.be.a("bigint");
    await ok("GET", `/getAccount?address=${alice.address}&key=greeting`);
    await ok("GET", `/getAccount?address=${alice.address}&key=missing`);
    await fails(2, "GET", `/getAccount?address=${alice.address}&key=`);
    await fails(4, "GET", `/getAccount?address=${Keypair.generate().address}`);
    await ok("GET", `/getAccountMetaData?address=${alice.address}`);
    await ok("GET", `/getAccountMetaData?address=${alice.address}&key=greeting`);
    await fails(4, "GET", `/getAccountMetaData?address=${alice.address}&key=missing`);
    await fails(2, "GET", `/getAccountMetaData?address=${alice.address}&key=`);
    await fails(2, "GET", "/getAccountMetaData?address=x");

    // A nonce ahead of the next one waits in the pool.
    const waiting = await submitJson(
      { source_address: alice.address, nonce: 5, fee_limit: 1_000_000, gas_price: 100, operations: [{ type: 7, pay_coin: { dest_address: g.address, amount: 1 } }] },
      alice.privateKey,
    );
    expect((await ok("GET", "/getTransactionCache")).result.total_count).to.equal(1);
    await ok("GET", `/getTransactionCache?hash=${waiting.hash}&start=0&limit=10`);
    await fails(4, "GET", `/getTransactionCache?hash=${"0".repeat(64)}`);
    await fails(2, "GET", "/getTransactionCache?limit=0");
    expect((await ok("GET", "/getTxCacheSize")).queue_size).to.equal(1);

    const latest = await ok("GET", "/getTransactionHistory?limit=5");
    await ok("GET", `/getTransactionHistory?ledger_seq=${latest.result.transactions[0].ledger_seq}&start=0&limit=1`);
    await fails(4, "GET", "/getTransactionHistory?ledger_seq=999999");
    await fails(4, "GET", `/getTransactionHistory?hash=${waiting.hash}`);
    await fails(2, "GET", "/getTransactionHistory?limit=0");
    await fails(2, "GET", "/getTransactionHistory?ledger_seq=x");
  });

  it("ledgers", async () => {
    await ok("GET", "/getLedger");
    await ok("GET", "/getLedger?seq=1");
    await ok("GET", "/getLedger?seq=2&with_validator=true&with_leader=true&with_fee=true");
    await fails(2, "GET", "/getLedger?seq=0");
    await fails(2, "GET", "/getLedger?seq=abc");
    await fails(4, "GET", "/getLedger?seq=999999");
  });

  it("estimates and contracts, including contract-made transactions", async () => {
    const g = genesis();
    const pay = { type: 7, pay_coin: { dest_address: Keypair.generate().address, amount: 5 } };
    await ok("POST", "/testTransaction", { items: [{ transaction_json: { source_address: g.address, operations: [pay] }, signature_number: 2 }] });
    await fails(103, "POST", "/testTransaction", { items: [{ transaction_json: { source_address: Keypair.generate().address, operations: [pay] } }] });
    await fails(2, "POST", "/testTransaction", { items: [] });
    await fails(2, "POST", "/testTransaction", { items: [null] });

    const payload = `function init() {} function main(input) { Chain.payCoin("${g.address}", "1"); } function query(input) { Utils.log("asked " + input); return "hi " + input; }`;
    const deployed = await submitJson(
      { source_address: g.address, nonce: await nonce(g.address), fee_limit: 200_000_000, gas_price: 100,
        operations: [{ type: 1, create_account: { contract: { type: 0, payload, owner: g.address }, init_balance: 1000, priv: { thresholds: { tx_threshold: 1 } } } }] },
      g.privateKey,
    );
    const contract = JSON.parse((await inLedger(deployed.hash)).error_desc)[0].contract_address as string;
    expect((await ok("GET", `/getAccountBase?address=${contract}`)).result.contract.owner).to.equal(g.address);
    const called = await submitJson(
      { source_address: g.address, nonce: await nonce(g.address), fee_limit: 200_000_000, gas_price: 100, operations: [{ type: 7, pay_coin: { dest_address: contract, amount: 1, input: "go" } }] },
      g.privateKey,
    );
    const record = await inLedger(called.hash);
    expect(record.contract_tx_hashes).to.have.length(1);
    expect((await inLedger(record.contract_tx_hashes[0])).trigger).to.be.an("object");

    await ok("POST", "/callContract", { contract_address: contract, input: "you", opt_type: 2 });
    await ok("POST", "/callContract", { contract_address: "", code: "function init(){} function query(i){ return true; }", input: "", opt_type: 2 });
    await fails(151, "POST", "/callContract", { code: "function init(){} function query(){ Utils.assert(false, 'not ready'); }", opt_type: 2 });
    await fails(156, "POST", "/callContract", { contract_address: g.address, opt_type: 2 });
    await fails(2, "POST", "/callContract", { contract_address: "", code: "", opt_type: 2 });
    await fails(2, "POST", "/callContract", { input: 5 });
  });

  it("the fault plane", async () => {
    await ok("GET", "/debug/faults");
    const added = await ok("POST", "/debug/faults", { kind: "delay", delay_ms: 1, duration_ms: 60_000 });
    await ok("GET", "/debug/faults");
    await fails(2, "POST", "/debug/faults", { kind: "flood" });
    await fails(2, "POST", "/debug/faults", "{\"kind\": \"delay\", \"delay_ms\": 1e20}");
    await fails(2, "DELETE", "/debug/faults?id=x");
    await ok("DELETE", `/debug/faults?id=${added.result.id}`);
    await fails(4, "DELETE", `/debug/faults?id=${added.result.id}`);
    await ok("DELETE", "/debug/faults");
  });

  it("metrics, in Prometheus text", async () => {
    expect((await call("GET", "/metrics")).status).to.equal(200);
  });

  it("this document, and the 404 and 413 answers", async () => {
    await ok("GET", "/openapi.json");
    await notFound("GET", "/getBlock");
    await notFound("POST", "/hello");
    const tooLarge = await call("POST", "/submitTransaction", "a".repeat(17 << 20));
    expect(tooLarge.status).to.equal(413);
  });

  it("every route the node's route modules mount is in the spec", async () => {
    const mounted: string[] = [];
    for (const file of (await readdir(ROUTES_DIR)).filter((f) => f.endsWith(".ts"))) {
      const source = await readFile(new URL(file, ROUTES_DIR), "utf8");
      for (const [, method, path] of source.matchAll(/app\.(get|post|put|patch|delete|all)\(\s*"([^"]+)"/g)) mounted.push(`${method} ${path}`);
    }
    expect(mounted).to.include("get /hello"); // the pattern still finds routes
    const missing = mounted.filter((route) => {
      const [method, path] = route.split(" ");
      const item = spec.paths[path];
      return item === undefined || (method !== "all" && item[method] === undefined);
    });
    expect(missing, "routes mounted by packages/node/src/http/routes/ but not in docs/openapi.yaml").to.deep.equal([]);
  });

  it("every operation of the spec was called", () => {
    const operations = Object.entries(spec.paths).flatMap(([path, item]) =>
      Object.keys(item).filter((k) => ["get", "post", "delete"].includes(k)).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(operations.filter((o) => !called.has(o))).to.deep.equal([]);
  });
});
