import { expect } from "chai";
import { Keypair, createAccount, createContract, expectOk, payCoin, sendTransaction, signTransactionBlob, waitForTransaction, type ChainsimClient } from "@chainsim/client";
import {
  ErrorCode,
  TxStatus,
  WsMessageType,
  codecs,
  toHex,
  touchedAddresses,
  type TransactionEnvStore,
} from "@chainsim/protocol";
import { RawWsClient } from "../harness/raw-ws-client.js";
import { dumpLogsOnFailure, startTestNetwork, testManifest, waitFor, type TestNetwork } from "../harness/network.js";

const VOTES = `"use strict";
function init() {}
function main(input) { Chain.tlog("voted", input, Chain.msg.sender); }`;

const stores = (client: RawWsClient): TransactionEnvStore[] => client.pushes(WsMessageType.TX_ENV_STORE).map((m) => codecs.TransactionEnvStore.decode(m.data!));
const hashes = (client: RawWsClient) => stores(client).map((s) => toHex(s.hash!));
const subscribe = async (client: RawWsClient, address: string[]) =>
  codecs.ChainResponse.decode(await client.request(WsMessageType.SUBSCRIBE_TX, codecs.ChainSubscribeTx.encode({ address })));

describe("e2e: WebSocket events (compat.md §9) on one validator", function () {
  this.timeout(120_000);
  let net: TestNetwork;
  let client: ChainsimClient;
  let genesis: Keypair;
  let url: string;
  const sockets: RawWsClient[] = [];
  const connect = async (path = "/") => {
    const socket = await RawWsClient.connect(url + path);
    sockets.push(socket);
    return socket;
  };
  dumpLogsOnFailure(() => net);

  before(async () => {
    net = await startTestNetwork(testManifest("e2e-events", 1));
    client = net.clients[0];
    genesis = Keypair.fromPrivateKey(net.handle.manifest.genesis.account.private_key);
    url = net.handle.nodes[0].ws;
  });
  afterEach(() => sockets.splice(0).forEach((s) => s.close()));
  after(async () => net?.cleanup());

  it("answers HELLO with the chain status, on / and /websocket", async () => {
    for (const path of ["/", "/websocket"]) {
      const ws = await connect(path);
      const status = codecs.WsChainStatus.decode(await ws.request(WsMessageType.HELLO, codecs.ChainHello.encode({ timestamp: 1n })));
      expect(status.self_addr).to.equal(net.handle.nodes[0].address);
      expect(status.network_id).to.equal(net.handle.nodes[0].config.genesis.chain_id || undefined);
      expect(status.chain_version).to.match(/^chainsim-/);
    }
  });

  it("answers PING with PONG, also the heartbeat PING existing clients send with request=false", async () => {
    const ws = await connect();
    for (const request of [true, false]) {
      const pong = codecs.Pong.decode(await ws.request(WsMessageType.PING, codecs.Ping.encode({ nonce: 42n }), request));
      expect(pong.nonce).to.equal(42n);
    }
  });

  it("refuses invalid addresses and more than 100 addresses, accepts valid ones", async () => {
    const ws = await connect();
    expect((await subscribe(ws, ["did:bid:nope"])).error_code).to.equal(ErrorCode.INVALID_ADDRESS);
    const many = Array.from({ length: 101 }, () => Keypair.generate().address);
    expect((await subscribe(ws, many)).error_code).to.equal(ErrorCode.INVALID_PARAMETER);
    expect(await subscribe(ws, many.slice(0, 100))).to.deep.equal({});
  });

  it("pushes ledger headers in order on every close, and lists the clients in getModulesStatus", async () => {
    const ws = await connect();
    await ws.waitUntil("3 headers", () => ws.pushes(WsMessageType.LEDGER_HEADER).length >= 3, 10_000);
    const seqs = ws.pushes(WsMessageType.LEDGER_HEADER).map((m) => codecs.LedgerHeader.decode(m.data!).seq!);
    seqs.forEach((seq, i) => i > 0 && expect(seq).to.equal(seqs[i - 1] + 1n));
    const status = expectOk(await client.getModulesStatus()) as unknown as { websocket_server: { clients: unknown[]; listen_port: number } };
    expect(status.websocket_server.clients).to.have.length(1);
    expect(url).to.match(new RegExp(`:${status.websocket_server.listen_port}$`));
  });

  it("pushes a transfer to subscribers of its source and destination, with its statuses", async () => {
    const receiver = Keypair.generate();
    const [bySource, byDest, other] = [await connect(), await connect(), await connect()];
    await subscribe(bySource, [genesis.address]);
    await subscribe(byDest, [receiver.address]);
    await subscribe(other, [Keypair.generate().address]);
    const { hash } = await sendTransaction(client, { signers: [genesis], operations: [createAccount(receiver.address, { initBalance: 10_000_000n })] });
    await waitForTransaction(client, hash);
    for (const ws of [bySource, byDest]) {
      await ws.waitFor("the transaction", (m) => m.type === BigInt(WsMessageType.TX_ENV_STORE) && toHex(codecs.TransactionEnvStore.decode(m.data!).hash!) === hash);
      const statuses = ws.pushes(WsMessageType.TX_STATUS).map((m) => codecs.ChainTxStatus.decode(m.data!)).filter((s) => s.tx_hash === hash);
      expect(statuses.map((s) => s.status)).to.deep.equal([TxStatus.PENDING, TxStatus.COMPLETE]);
      const [header] = ws.pushes(WsMessageType.LEDGER_TXS).map((m) => codecs.LedgerTxs.decode(m.data!)).filter((l) => l.txs?.some((t) => t.tx_hash === hash));
      expect(header.txs![0].tran_env?.transaction?.source_address).to.equal(genesis.address);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hashes(other)).to.deep.equal([]);
  });

  it("pushes a contract call with its contract-made transaction carrying the tlog as a LOG operation", async () => {
    const created = await waitForTransaction(client, (await sendTransaction(client, { signers: [genesis], operations: [createContract(VOTES)], feeLimit: 200_000_000n })).hash);
    const contract = JSON.parse(created.error_desc)[0].contract_address as string;
    const ws = await connect();
    await subscribe(ws, [contract]);
    const { hash } = await sendTransaction(client, { signers: [genesis], operations: [payCoin(contract, 0n, { input: "soup" })] });
    const record = await waitForTransaction(client, hash);
    const [tlogHash] = record.contract_tx_hashes!;
    await ws.waitUntil("the contract-made transaction", () => hashes(ws).includes(tlogHash));
    expect(hashes(ws)).to.deep.equal([hash, tlogHash]);
    const sub = stores(ws)[1];
    expect(sub.transaction_env?.trigger).to.deep.include({ transaction_type: 1 });
    expect(sub.transaction_env?.transaction?.source_address).to.equal(contract);
    expect(sub.transaction_env?.transaction?.operations?.[0]).to.deep.include({ type: 8, log: { topic: "voted", datas: ["soup", genesis.address] } });
  });

  it("closes on text or undecodable frames, answers unknown types, and other clients carry on", async () => {
    const [texter, garbler, unknown, healthy] = [await connect(), await connect(), await connect(), await connect()];
    texter.socket.send("hello");
    garbler.socket.send(Buffer.from([0xff, 0xff, 0xff]));
    const answer = codecs.ChainResponse.decode(await unknown.request(99 as WsMessageType, new Uint8Array([1, 2, 3])));
    expect(answer.error_code).to.equal(ErrorCode.INVALID_PARAMETER);
    const bad = codecs.ChainResponse.decode(await unknown.request(WsMessageType.SUBSCRIBE_TX, new Uint8Array([0x0a, 0x50])));
    expect(bad.error_code).to.equal(ErrorCode.INVALID_PARAMETER);
    await waitFor("both closed", async () => (texter.closeCode && garbler.closeCode ? true : undefined));
    expect([texter.closeCode, garbler.closeCode]).to.deep.equal([1003, 1007]);
    const before = healthy.pushes(WsMessageType.LEDGER_HEADER).length;
    expect(codecs.Pong.decode(await healthy.request(WsMessageType.PING, codecs.Ping.encode({ nonce: 7n }))).nonce).to.equal(7n);
    await healthy.waitUntil("a later header", () => healthy.pushes(WsMessageType.LEDGER_HEADER).length > before);
  });

  it("done when: a §9-only client subscribed to an address sees all 1,000 transactions touching it, in ledger order", async function () {
    const senders = Array.from({ length: 20 }, () => Keypair.generate());
    const target = Keypair.generate();
    const funded = await sendTransaction(client, {
      signers: [genesis],
      operations: [...senders, target].map((k) => createAccount(k.address, { initBalance: 1_000_000_000n })),
    });
    await waitForTransaction(client, funded.hash);
    const ws = await connect();
    expect(await subscribe(ws, [target.address])).to.deep.equal({});

    const started = Date.now();
    const sent = new Set<string>();
    await Promise.all(
      senders.map(async (sender) => {
        const items = [];
        for (let nonce = 1n; nonce <= 50n; nonce++) {
          const blob = codecs.Transaction.encode({
            source_address: sender.address,
            nonce,
            operations: [payCoin(target.address, 1n)],
            fee_limit: 1_000_000n,
            gas_price: 100n,
          });
          items.push({ transaction_blob: toHex(blob), signatures: await signTransactionBlob(blob, [sender]) });
        }
        const results = expectOk(await client.submitTransaction(items)).results!;
        for (const result of results) {
          expect(result.error_code, result.error_desc).to.equal(0);
          sent.add(result.hash);
        }
      }),
    );
    await ws.waitUntil("1,000 transactions", () => ws.pushes(WsMessageType.TX_ENV_STORE).length >= 1000, 45_000);
    const received = stores(ws);
    this.test!.title += ` (${Date.now() - started} ms)`;

    expect(received).to.have.length(1000);
    expect(new Set(received.map((s) => toHex(s.hash!)))).to.deep.equal(sent);
    for (const store of received) expect(touchedAddresses(store.transaction_env!.transaction!).has(target.address)).to.equal(true);
    // Ledger order: ledgers ascending, and each sender's nonces ascending.
    const ledgers = received.map((s) => s.ledger_seq!);
    ledgers.forEach((seq, i) => i > 0 && expect(seq >= ledgers[i - 1]).to.equal(true));
    const lastNonce = new Map<string, bigint>();
    for (const s of received) {
      const { source_address, nonce } = s.transaction_env!.transaction!;
      expect(nonce! > (lastNonce.get(source_address!) ?? 0n)).to.equal(true);
      lastNonce.set(source_address!, nonce!);
    }
    // Nothing in between was lost: push sequences have no gap from the subscription on.
    const sequences = ws.frames.filter((m) => m.request).map((m) => m.sequence ?? 0n);
    sequences.forEach((seq, i) => expect(seq).to.equal(sequences[0] + BigInt(i)));
  });
});

describe("e2e: WebSocket events on a 4-validator network", function () {
  this.timeout(120_000);
  let net: TestNetwork;
  const sockets: RawWsClient[] = [];
  dumpLogsOnFailure(() => net);
  after(async () => {
    sockets.forEach((s) => s.close());
    await net?.cleanup();
  });

  it("every validator pushes the same ledger and transaction, whichever node took it", async () => {
    net = await startTestNetwork(testManifest("e2e-events-4", 4));
    const genesis = Keypair.fromPrivateKey(net.handle.manifest.genesis.account.private_key);
    const receiver = Keypair.generate();
    for (const node of net.handle.nodes) {
      const ws = await RawWsClient.connect(node.ws);
      sockets.push(ws);
      await subscribe(ws, [receiver.address]);
    }
    const { hash } = await sendTransaction(net.clients[2], { signers: [genesis], operations: [createAccount(receiver.address, { initBalance: 1n })] });
    const frames = await Promise.all(
      sockets.map((ws) => ws.waitFor("the transaction", (m) => m.type === BigInt(WsMessageType.TX_ENV_STORE), 20_000)),
    );
    expect(toHex(codecs.TransactionEnvStore.decode(frames[0].data!).hash!)).to.equal(hash);
    for (const frame of frames) expect(toHex(frame.data!)).to.equal(toHex(frames[0].data!));
  });
});
