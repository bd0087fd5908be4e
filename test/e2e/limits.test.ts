import { expect } from "chai";
import { readFile } from "node:fs/promises";
import { WebSocket } from "ws";
import { ApiError, Keypair, payCoin, sendTransaction, type ChainsimClient } from "@chainsim/client";
import { ErrorCode, parseJson } from "@chainsim/protocol";
import { startTestNetwork, testManifest, waitFor, type TestNetwork } from "../harness/network.js";

/**
 * A manifest's [limits] reach the validator, and each limit answers with a clear error that names its setting
 * (docs/operations.md, "Limits"). The defaults are exercised by http-contract.test.ts and the unit tests.
 */
describe("e2e: a validator's limits are settings, each with a clear error", function () {
  this.timeout(60_000);
  let net: TestNetwork;
  let client: ChainsimClient;
  let base: string;
  let genesis: Keypair;
  const sockets: WebSocket[] = [];

  before(async () => {
    const limits = ["[limits]", "http_body_bytes = 65536", "submit_items = 3", "pool_per_account = 2", "ws_clients = 2"];
    net = await startTestNetwork(testManifest("e2e-limits", 1, {}, limits));
    client = net.clients[0];
    base = net.handle.nodes[0].http;
    genesis = Keypair.fromPrivateKey(net.handle.manifest.genesis.account.private_key);
  });
  after(async () => {
    sockets.forEach((socket) => socket.terminate());
    await net?.cleanup();
  });

  it("listens on 127.0.0.1 only", () => {
    for (const node of net.handle.nodes) {
      expect(new URL(node.http).hostname).to.equal("127.0.0.1");
      expect(new URL(node.ws).hostname).to.equal("127.0.0.1");
    }
  });

  it("answers 413 to a body above limits.http_body_bytes, and takes one at the limit", async () => {
    const over = await fetch(base + "/submitTransaction", { method: "POST", body: "x".repeat(65_537) });
    expect(over.status).to.equal(413);
    expect(parseJson(await over.text())).to.deep.equal({ error_code: ErrorCode.INVALID_PARAMETER, error_desc: "request body is larger than 65536 bytes (limits.http_body_bytes)" });
    const at = await fetch(base + "/submitTransaction", { method: "POST", body: JSON.stringify({ items: [], padding: "x".repeat(65_536 - 25) }) }); // 65,536 bytes exactly
    expect(at.status).to.equal(200);
    expect(parseJson(await at.text())).to.deep.equal({ results: [], success_count: 0 });
  });

  it("takes bodies as sent: a compressed body or an unknown charset is error 2, not inflated, not logged", async () => {
    const { gzipSync } = await import("node:zlib");
    const gzipped = await fetch(base + "/submitTransaction", { method: "POST", headers: { "Content-Encoding": "gzip" }, body: gzipSync(JSON.stringify({ items: [] })) });
    expect(gzipped.status).to.equal(200);
    expect(parseJson(await gzipped.text())).to.deep.equal({ error_code: ErrorCode.INVALID_PARAMETER, error_desc: "the request body cannot be read: content encoding unsupported", result: null });
    const charset = await fetch(base + "/submitTransaction", { method: "POST", headers: { "Content-Type": `text/plain; charset=${"A".repeat(1000)}` }, body: "{}" });
    const answer = parseJson(await charset.text()) as { error_code: number; error_desc: string };
    expect(answer.error_code).to.equal(ErrorCode.INVALID_PARAMETER);
    expect(answer.error_desc.length, "the client's text is cut").to.be.below(300);
    const log = await readFile(net.handle.nodes[0].process.paths.logFile, "utf8");
    expect(log).to.not.include("internal error");
  });

  it("refuses more than limits.submit_items items as a whole", async () => {
    const items = Array.from({ length: 4 }, () => ({ transaction_blob: "00" }));
    const answer = await client.submitTransaction(items as never);
    expect(answer.error_code).to.equal(ErrorCode.INVALID_PARAMETER);
    expect(answer.error_desc).to.equal("at most 3 items per request (limits.submit_items)");
  });

  it("keeps at most limits.pool_per_account transactions of one account waiting, and says so", async () => {
    const dest = Keypair.generate().address;
    // Nonces 2 and 3 wait behind nonce 1, which is never sent: the third waiting one is refused with 114.
    const submit = (nonce: bigint) => sendTransaction(client, { signers: [genesis], nonce, operations: [payCoin(dest, 1n)] });
    await submit(2n);
    await submit(3n);
    const refused = await submit(4n).then(
      () => expect.fail("a third waiting transaction was accepted"),
      (error: unknown) => error,
    );
    expect(refused).to.be.instanceOf(ApiError);
    expect((refused as ApiError).code).to.equal(ErrorCode.TX_POOL_FULL);
    expect((refused as ApiError).message).to.contain("already has 2 transactions waiting (limits.pool_per_account)");
  });

  it("closes a WebSocket client past limits.ws_clients with 1013 and the reason", async () => {
    const ws = net.handle.nodes[0].ws;
    const open = () => {
      const socket = new WebSocket(ws);
      sockets.push(socket);
      return socket;
    };
    const first = [open(), open()];
    await waitFor("two clients connected", async () => (first.every((s) => s.readyState === WebSocket.OPEN) ? true : undefined));
    const third = open();
    const [code, reason] = await new Promise<[number, string]>((resolve) => third.once("close", (c, r) => resolve([c, r.toString()])));
    expect(code).to.equal(1013);
    expect(reason).to.equal("this validator serves at most 2 WebSocket clients (limits.ws_clients): retry later");
  });
});
