import { expect } from "chai";
import { readFile } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { Keypair, expectOk, payCoin, type ChainsimClient } from "@chainsim/client";
import { ErrorCode, codecs, parseJson, stringifyJson, toHex } from "@chainsim/protocol";
import { startTestNetwork, testManifest, waitFor, type TestNetwork } from "../harness/network.js";

/** The HTTP contract of node-api.md and compat.md §4, on a validator whose dev endpoints are off. */
describe("e2e: HTTP contract of a validator", function () {
  this.timeout(60_000);
  let net: TestNetwork;
  let client: ChainsimClient;
  let base: string;
  let genesis: Keypair;

  before(async () => {
    net = await startTestNetwork(testManifest("e2e-http", 1, {}, ["[dev]", "private_key_endpoints = false"]));
    client = net.clients[0];
    base = net.handle.nodes[0].http;
    genesis = Keypair.fromPrivateKey(net.handle.manifest.genesis.account.private_key);
  });
  after(async () => net?.cleanup());

  const raw = async (path: string, init?: RequestInit) => {
    const res = await fetch(base + path, init);
    return { status: res.status, body: parseJson(await res.text()) as Record<string, any> };
  };

  it("hello has every field of node-api.md with real values", async () => {
    const hello = (await raw("/hello")).body;
    expect(Object.keys(hello).sort()).to.deep.equal(
      ["chain_version", "current_time", "hash_type", "ledger_version", "license_version", "monitor_version", "network_id", "overlay_version", "websocket_address"],
    );
    expect(hello.current_time).to.match(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  });

  it("getModulesStatus has every module and field, the databases with real LevelDB figures", async () => {
    const status = (await raw("/getModulesStatus")).body;
    expect(Object.keys(status)).to.include.members([
      "account_db", "keyvalue_db", "ledger_db", "consensus manager", "glue_manager", "ledger_manager", "peer_manager", "web server", "websocket_server",
    ]);
    for (const db of ["account_db", "keyvalue_db", "ledger_db"]) {
      expect(status[db].disk_usage).to.be.greaterThan(0);
      expect(status[db]["rocksdb.stats"]).to.contain("Compactions");
      expect(Number(status[db]["rocksdb.cur-size-all-mem-tables"])).to.be.greaterThan(0);
      expect(status[db]).to.have.property("rocksdb.estimate-table-readers-mem");
    }
    expect(status["consensus manager"].consensus.type).to.equal("pbft");
    expect(status.glue_manager.transaction_pool).to.have.keys("account_nonce_size", "queue_by_address_and_nonce_size", "queue_size", "time_queue_size");
    expect(status.glue_manager.system).to.have.keys("current_time", "process_uptime", "uptime");
    expect(status.glue_manager.ledger_upgrade).to.have.keys("current_states", "local_state");
    const ledger = status.ledger_manager;
    expect(ledger).to.include.keys("account_count", "chain_max_ledger_seq", "hash_type", "lcl_header_space_used", "ledger_context", "ledger_sequence", "sync", "time", "tx_count", "validation_address");
    expect(ledger.account_count).to.equal(2); // genesis and the validator
    expect(ledger.validation_address).to.equal(net.handle.nodes[0].address);
    expect(status.peer_manager.consensus_network).to.include.keys("peer_active_size", "node_rand", "peers", "tx_task_size");
    const web = status["web server"];
    expect(web).to.include.keys("context", "end_request_count", "expire_request_count", "start_request_count", "thread_count", "time");
    expect(web.start_request_count).to.be.greaterThan(1);
    expect(status.websocket_server.listen_port).to.equal(Number(net.handle.nodes[0].ws.split(":").pop()));
  });

  it("getConsensusInfo has every field, with the single-validator values", async () => {
    // An instance shows once the validator has decided a ledger (an empty one within empty_close_interval_ms).
    const info = await waitFor("a decided instance", async () => {
      const body = (await raw("/getConsensusInfo")).body;
      return body.instances.length > 0 ? body : undefined;
    });
    expect(info).to.include.keys(
      "abnormal_records", "ckp_interval", "fault_number", "instances", "is_leader", "last_exe_seq", "leader", "quorum_size",
      "replica_id", "type", "validator_address", "validator_address_random", "validators", "view_active", "view_number", "viewchanges",
    );
    expect(info).to.include({ fault_number: 0, quorum_size: 1, replica_id: 0, is_leader: true, type: "pbft", view_number: 0 });
    expect(info.instances[0]).to.include.keys("commits", "cons_value", "end_time", "have_send_viewchange", "last_propose_time", "phase", "phase_item", "pre_prepare", "pre_prepare_round", "prepares", "seq", "start_time", "vn");
    expect(info.instances[0].phase).to.equal("PHASE_COMMITED");
  });

  it("answers errors with HTTP 200 and error_code; unknown paths with a JSON 404; oversized bodies with 413", async () => {
    const badJson = await raw("/submitTransaction", { method: "POST", body: "{not json" });
    expect(badJson).to.deep.include({ status: 200 });
    expect(badJson.body.error_code).to.equal(ErrorCode.INVALID_PARAMETER);
    // A body that is JSON but not an object (twenty-third review of 2026-11-26: `null` answered 1, an internal error).
    for (const path of ["/callContract", "/submitTransaction", "/testTransaction", "/getTransactionBlob"]) {
      for (const body of ["null", "[1]", "5", '"text"']) {
        expect((await raw(path, { method: "POST", body })).body, `${path} ${body}`).to.deep.include({ error_code: ErrorCode.INVALID_PARAMETER, error_desc: "the request body should be a JSON object" });
      }
    }
    for (const [field, value] of [["contract_address", { toString: 1 }], ["contract_address", ["did:bid:x"]], ["input", 5], ["code", true], ["source_address", null]] as const) {
      const answer = await raw("/callContract", { method: "POST", body: JSON.stringify({ code: "function query() {}", [field]: value }) });
      expect(answer.body, field).to.deep.include({ error_code: ErrorCode.INVALID_PARAMETER, error_desc: `${field} should be a string` });
    }
    const noItems = await raw("/submitTransaction", { method: "POST", body: "{}" });
    expect(noItems.body.error_code).to.equal(ErrorCode.INVALID_PARAMETER);
    const unknown = await raw("/nope");
    expect(unknown.status).to.equal(404);
    expect(unknown.body.error_code).to.equal(ErrorCode.NOT_EXIST);
    // Bodies above 1 Mi characters are parsed in the node's parsing thread (docs/api.md, "Request bodies"):
    // the same answers as on the event loop's thread.
    const large = await raw("/submitTransaction", { method: "POST", body: JSON.stringify({ items: [{ transaction_blob: "zz", padding: "a".repeat(2 << 20) }] }) });
    const small = await raw("/submitTransaction", { method: "POST", body: JSON.stringify({ items: [{ transaction_blob: "zz", padding: "a" }] }) });
    expect(large.body).to.deep.equal(small.body);
    expect(large.body.results[0].error_code).to.equal(ErrorCode.INVALID_PARAMETER);
    const largeBad = await raw("/submitTransaction", { method: "POST", body: `{"items": [1, "${"a".repeat(2 << 20)}" 2]}` });
    expect(largeBad.body.error_code).to.equal(ErrorCode.INVALID_PARAMETER);
    expect(largeBad.body.error_desc).to.match(/^the request body is not valid JSON: Comma .* at position 2097169$/);
    const huge = await fetch(base + "/submitTransaction", { method: "POST", body: "x".repeat(17 * 1024 * 1024) });
    expect(huge.status).to.equal(413);
    const badAddress = await raw("/getAccount?address=did:bid:nothing");
    expect(badAddress.body.error_code).to.equal(ErrorCode.INVALID_PARAMETER);
    const unknownContract = await raw("/callContract", { method: "POST", body: stringifyJson({ contract_address: Keypair.generate().address, opt_type: 2 }) });
    expect(unknownContract.body).to.deep.include({ error_code: ErrorCode.NOT_EXIST, result: null });
  });

  it("counts bodies in flight by the bytes received: idle connections block nobody, and past 64 MiB the largest body is answered 114", async () => {
    const { hostname, port } = new URL(base);
    /** A connection that declares a body of `declared` bytes and sends `sent` of them; `answer` collects what comes back. */
    const open = (declared: number, sent: number) =>
      new Promise<{ socket: Socket; answer: () => string }>((resolve, reject) => {
        let text = "";
        const socket = connect(Number(port), hostname, () => {
          socket.write(`POST /getTransactionBlob HTTP/1.1\r\nHost: x\r\nContent-Length: ${declared}\r\n\r\n`);
          socket.write("a".repeat(sent), () => resolve({ socket, answer: () => text }));
        });
        socket.on("data", (chunk) => (text += chunk.toString()));
        socket.on("error", () => {});
        socket.once("error", reject);
      });
    const small = async () => (await raw("/getTransactionBlob", { method: "POST", body: "{}" })).body;
    // Four connections that declare 16 MiB and send a byte (review of 2026-11-27: they refused every POST).
    const idle = await Promise.all(Array.from({ length: 4 }, () => open(16 << 20, 1)));
    try {
      expect((await small()).error_code).to.equal(ErrorCode.INVALID_PARAMETER); // answered: no items
      // Five bodies of 15 MiB less a byte: past 64 MiB, the largest in flight is answered 114 and closed.
      const heavy = await Promise.all(Array.from({ length: 5 }, () => open(15 << 20, (15 << 20) - 1)));
      try {
        const refused = await waitFor("a body answered 114", async () => heavy.map((h) => h.answer()).find((text) => text.includes('"error_code":114')));
        expect(refused).to.include("this validator is receiving 64 MiB of request bodies (limits.http_bodies_in_flight_bytes), this one the largest: retry later");
        expect((await small()).error_code).to.equal(ErrorCode.INVALID_PARAMETER);
      } finally {
        heavy.forEach((h) => h.socket.destroy());
      }
    } finally {
      idle.forEach((h) => h.socket.destroy());
    }
    await waitFor("bodies accepted again", async () => ((await small()).error_code === ErrorCode.INVALID_PARAMETER ? true : undefined));
    const log = await readFile(net.handle.nodes[0].process.paths.logFile, "utf8");
    expect(log).to.not.match(/internal error|request aborted/);
  });

  it("never answers 304: every GET gets 200 and a body, whatever the client's cache headers", async () => {
    const first = await fetch(`${base}/getAccountBase?address=${genesis.address}`);
    const again = await fetch(`${base}/getAccountBase?address=${genesis.address}`, { headers: { "If-None-Match": first.headers.get("etag") ?? "*" } });
    expect(again.status).to.equal(200);
    expect(parseJson(await again.text())).to.have.property("result");
  });

  it("accepts domainid 0 and refuses any other domain with 170", async () => {
    expect((await raw(`/getAccountBase?address=${genesis.address}&domainid=0`)).body.error_code).to.equal(0);
    expect((await raw(`/getAccountBase?address=${genesis.address}&domainid=7`)).body.error_code).to.equal(ErrorCode.DOMAIN_NOT_EXIST);
  });

  it("refuses getSignature and private_keys with 6 when the dev setting is off", async () => {
    const blob = toHex(codecs.Transaction.encode({ source_address: genesis.address, nonce: 1n, operations: [payCoin(genesis.address, 1n)] }));
    const sig = await raw("/getSignature", { method: "POST", body: stringifyJson({ private_key: genesis.privateKey, transaction_blob: blob }) });
    expect(sig.body.error_code).to.equal(ErrorCode.ACCESS_DENIED);
    const transaction_json = { source_address: genesis.address, nonce: 1, fee_limit: 1_000_000, gas_price: 100, operations: [{ type: 7, pay_coin: { dest_address: genesis.address, amount: 1 } }] };
    const submit = await client.submitTransaction([{ transaction_json, private_keys: [genesis.privateKey] }]);
    expect(submit.results![0].error_code).to.equal(ErrorCode.ACCESS_DENIED);
  });

  it("shows pending transactions in the cache until a ledger includes them", async () => {
    const dest = Keypair.generate().address;
    // nonce 2 waits in the pool until nonce 1 arrives
    const tx = { source_address: genesis.address, nonce: 2n, fee_limit: 1_000_000n, gas_price: 100n, operations: [payCoin(dest, 10n)] };
    const blob = codecs.Transaction.encode(tx);
    const { signTransactionBlob } = await import("@chainsim/client");
    const submitted = await client.submitTransaction([{ transaction_blob: toHex(blob), signatures: await signTransactionBlob(blob, [genesis]) }]);
    const hash = submitted.results![0].hash;
    expect(submitted.success_count).to.equal(1);
    expect((await client.getTxCacheSize()).queue_size).to.equal(1);
    const cached = expectOk(await client.getTransactionCache(hash)).result;
    expect(cached.transactions[0]).to.include({ hash, status: "processing" });
    expect(cached.transactions[0]).to.have.property("incoming_time");
    const first = codecs.Transaction.encode({ ...tx, nonce: 1n });
    await client.submitTransaction([{ transaction_blob: toHex(first), signatures: await signTransactionBlob(first, [genesis]) }]);
    await waitFor("both transactions in a ledger", async () => ((await client.getTxCacheSize()).queue_size === 0 ? true : undefined));
    expect(expectOk(await client.getTransactionHistory({ hash })).result.transactions[0].error_code).to.equal(0);
    expect((await client.getTransactionCache(hash)).error_code).to.equal(ErrorCode.NOT_EXIST);
  });

  it("estimates a fee with testTransaction without committing anything", async () => {
    const before = expectOk(await client.getAccount(genesis.address)).result;
    const dest = Keypair.generate().address;
    const test = expectOk(
      await client.testTransaction({ items: [{ transaction_json: { source_address: genesis.address, operations: [{ type: 7, pay_coin: { dest_address: dest, amount: 5 } }] } }] }),
    ).result as Record<string, any>;
    const estimate = test.txs[0];
    expect(estimate.actual_fee).to.be.greaterThan(0);
    expect(estimate.transaction_env.transaction.fee_limit).to.equal(estimate.actual_fee);
    expect(estimate.transaction_env.transaction.gas_price).to.equal(100);
    expect((await client.getAccount(dest)).error_code).to.equal(ErrorCode.NOT_EXIST);
    expect(expectOk(await client.getAccount(genesis.address)).result.nonce).to.equal(before.nonce);
    const failing = await client.testTransaction({ items: [{ transaction_json: { source_address: genesis.address, operations: [{ type: 7, pay_coin: { dest_address: genesis.address, amount: 5 } }] } }] });
    expect(failing.error_code).to.equal(ErrorCode.SOURCE_EQUALS_DESTINATION);
  });

  it("lists the latest transactions newest first and pages them", async () => {
    const latest = expectOk(await client.getTransactionHistory({})).result;
    expect(Number(latest.total_count)).to.be.at.least(2);
    const second = expectOk(await client.getTransactionHistory({ start: 1, limit: 1 })).result;
    expect(second.transactions).to.have.length(1);
    expect(second.transactions[0].hash).to.equal(latest.transactions[1].hash);
    expect(Number(latest.transactions[0].ledger_seq)).to.be.at.least(Number(latest.transactions[1].ledger_seq));
  });
});
