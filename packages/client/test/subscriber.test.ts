import { expect } from "chai";
import type { AddressInfo } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";
import { WsMessageType, codecs, type ChainTxStatus, type LedgerHeader, type TransactionEnvStore, type WsMessage } from "@chainsim/protocol";
import { EventSubscriber, Keypair } from "../src/index.js";

const A = Keypair.fromSeed(new Uint8Array(32).fill(1)).address;
const B = Keypair.fromSeed(new Uint8Array(32).fill(2)).address;

/** A stand-in node: records what each connection sent and lets the test push frames or cut connections. */
class FakeNode {
  readonly received: { connection: number; message: WsMessage }[] = [];
  sockets: WebSocket[] = [];

  static async start(port = 0): Promise<FakeNode> {
    const node = new FakeNode(new WebSocketServer({ port, host: "127.0.0.1" }));
    await new Promise((resolve) => node.server.once("listening", resolve));
    return node;
  }

  private constructor(readonly server: WebSocketServer) {
    this.server.on("connection", (socket) => {
      const connection = this.sockets.push(socket);
      socket.on("message", (data) => {
        const message = codecs.WsMessage.decode(data as Buffer);
        this.received.push({ connection, message });
        socket.send(codecs.WsMessage.encode({ type: message.type, request: false, sequence: message.sequence, data: codecs.ChainResponse.encode({}) }));
      });
    });
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  subscriptions(connection: number): string[][] {
    return this.received
      .filter((r) => r.connection === connection && Number(r.message.type) === WsMessageType.SUBSCRIBE_TX)
      .map((r) => codecs.ChainSubscribeTx.decode(r.message.data ?? new Uint8Array()).address ?? []);
  }

  push(type: WsMessageType, data: Uint8Array): void {
    const frame = codecs.WsMessage.encode({ type: BigInt(type), request: true, data });
    for (const socket of this.sockets) socket.send(frame);
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.terminate();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

async function until(what: string, condition: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("EventSubscriber", () => {
  let node: FakeNode;
  let subscriber: EventSubscriber | undefined;
  beforeEach(async () => (node = await FakeNode.start()));
  afterEach(async () => {
    subscriber?.close();
    await node.close();
  });

  it("says hello, subscribes to the union of its listeners' addresses and delivers pushes", async () => {
    subscriber = new EventSubscriber(node.url);
    const headers: LedgerHeader[] = [];
    const forA: TransactionEnvStore[] = [];
    const statuses: ChainTxStatus[] = [];
    subscriber.onLedger((h) => headers.push(h));
    subscriber.onTransaction([A], (tx) => forA.push(tx));
    subscriber.onTransaction([B], () => undefined);
    subscriber.onTxStatus((s) => statuses.push(s));
    await until("a subscription", () => node.subscriptions(1).length > 0);
    expect(Number(node.received[0].message.type)).to.equal(WsMessageType.HELLO);
    expect(node.subscriptions(1).at(-1)).to.have.members([A, B]);

    node.push(WsMessageType.LEDGER_HEADER, codecs.LedgerHeader.encode({ seq: 7n }));
    const payB = (source: string) =>
      codecs.TransactionEnvStore.encode({ transaction_env: { transaction: { source_address: source, operations: [{ type: 7, pay_coin: { dest_address: B } }] } }, ledger_seq: 7n });
    node.push(WsMessageType.TX_ENV_STORE, payB(A)); // touches A and B
    node.push(WsMessageType.TX_ENV_STORE, payB(B)); // touches B only
    node.push(WsMessageType.TX_STATUS, codecs.ChainTxStatus.encode({ status: 3, tx_hash: "ab" }));
    await until("the pushes", () => statuses.length === 1);
    expect(headers.map((h) => h.seq)).to.deep.equal([7n]);
    expect(forA.map((tx) => tx.transaction_env?.transaction?.source_address)).to.deep.equal([A]);
    expect(statuses[0]).to.deep.equal({ status: 3, tx_hash: "ab" });
  });

  it("reconnects with backoff after the connection drops and subscribes again", async () => {
    subscriber = new EventSubscriber(node.url, { minBackoffMs: 20 });
    subscriber.onTransaction([A], () => undefined);
    await until("the first subscription", () => node.subscriptions(1).length > 0);
    node.sockets[0].terminate();
    await until("the second subscription", () => node.subscriptions(2).length > 0);
    expect(node.subscriptions(2).at(-1)).to.deep.equal([A]);
  });

  it("keeps retrying while the node is down, then resubscribes once it is back", async () => {
    const port = (node.server.address() as AddressInfo).port;
    await node.close();
    const errors: Error[] = [];
    subscriber = new EventSubscriber(`ws://127.0.0.1:${port}`, { minBackoffMs: 20, maxBackoffMs: 50, onError: (e) => errors.push(e) });
    subscriber.onTransaction([], () => undefined);
    await until("failed attempts", () => errors.length >= 3);
    node = await FakeNode.start(port);
    await until("the subscription", () => node.subscriptions(1).length > 0);
    expect(node.subscriptions(1).at(-1)).to.deep.equal([]);
  });

  it("closes a connection that stays silent for two heartbeats and opens a new one", async () => {
    node.server.removeAllListeners("connection");
    node.server.on("connection", (socket) => node.sockets.push(socket)); // never answers
    subscriber = new EventSubscriber(node.url, { heartbeatMs: 30, minBackoffMs: 10 });
    await until("a reconnect", () => node.sockets.length >= 2, 2_000);
  });
});
