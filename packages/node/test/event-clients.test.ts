import { createServer } from "node:net";
import { expect } from "chai";
import { WebSocket } from "ws";
import { WsMessageType } from "@chainsim/protocol";
import { EventClient } from "../src/events/event-client.js";
import { EventServer } from "../src/events/event-server.js";
import { TestChain, chainPerTest } from "./helpers/chain.js";
import { collectingLog } from "./helpers/log.js";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(what: string, condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Slow and dead WebSocket clients are dropped, and the others keep being served (issue 6, point 3). */
describe("event clients that cannot keep up", () => {
  let chain: TestChain;
  chainPerTest((c) => (chain = c));

  it("drops a client that stops answering pings, and keeps one that answers", async () => {
    const server = new EventServer(
      { ledgers: chain.ledgers, txs: chain.txs, validatorAddress: chain.validator.address, chainId: 0n, log: collectingLog([]) },
      { maxBufferedBytes: 1 << 20, heartbeatMs: 50, maxPayloadBytes: 1 << 20, maxClients: 16 },
    );
    const port = await freePort();
    await server.start(`127.0.0.1:${port}`);
    const dead = new WebSocket(`ws://127.0.0.1:${port}/`, { autoPong: false });
    const alive = new WebSocket(`ws://127.0.0.1:${port}/`);
    try {
      const closed = new Promise<void>((resolve) => dead.once("close", () => resolve()));
      await waitFor("both clients connected", () => server.clientStatus().length === 2);
      await closed;
      await new Promise((resolve) => setTimeout(resolve, 200)); // several more heartbeats
      expect(server.clientStatus()).to.have.length(1);
      expect(alive.readyState).to.equal(WebSocket.OPEN);
    } finally {
      dead.terminate();
      alive.terminate();
      await server.stop();
    }
  });

  it("drops a client whose unsent bytes pass the bound instead of buffering more for it", () => {
    const sent: Uint8Array[] = [];
    const drops: string[] = [];
    const socket = { OPEN: 1, readyState: 1, bufferedAmount: 0, send: (data: Uint8Array) => sent.push(data) };
    const client = new EventClient(socket as never, "test", 1024, (_, why) => drops.push(why));
    client.push(WsMessageType.LEDGER_HEADER, new Uint8Array(10));
    socket.bufferedAmount = 4096; // the reader stopped: the socket keeps what it could not write
    client.push(WsMessageType.LEDGER_HEADER, new Uint8Array(10));
    expect(sent).to.have.length(1);
    expect(drops).to.deep.equal(["send buffer over 1024 bytes (limits.ws_send_buffer_bytes)"]);
  });

  it("closes a client past limits.ws_clients with 1013 and the reason, and takes one again when a place frees", async () => {
    const server = new EventServer(
      { ledgers: chain.ledgers, txs: chain.txs, validatorAddress: chain.validator.address, chainId: 0n, log: collectingLog([]) },
      { maxBufferedBytes: 1 << 20, heartbeatMs: 60_000, maxPayloadBytes: 1 << 20, maxClients: 2 },
    );
    const port = await freePort();
    await server.start(`127.0.0.1:${port}`);
    const sockets = [0, 1].map(() => new WebSocket(`ws://127.0.0.1:${port}/`));
    try {
      await waitFor("two clients connected", () => server.clientStatus().length === 2);
      const third = new WebSocket(`ws://127.0.0.1:${port}/`);
      sockets.push(third);
      const [code, reason] = await new Promise<[number, string]>((resolve) => third.once("close", (c, r) => resolve([c, r.toString()])));
      expect(code).to.equal(1013);
      expect(reason).to.equal("this validator serves at most 2 WebSocket clients (limits.ws_clients): retry later");
      sockets[0].close();
      await waitFor("a place freed", () => server.clientStatus().length === 1);
      const fourth = new WebSocket(`ws://127.0.0.1:${port}/`);
      sockets.push(fourth);
      await waitFor("the next client served", () => server.clientStatus().length === 2 && fourth.readyState === WebSocket.OPEN);
    } finally {
      sockets.forEach((socket) => socket.terminate());
      await server.stop();
    }
  });
});
