import { createServer, type IncomingMessage, type Server } from "node:http";
import {
  ChainError,
  ErrorCode,
  TxStatus,
  WsMessageType,
  checkAddress,
  codecs,
  touchedAddresses,
  type Json,
  type SignedTransaction,
  type WsMessage,
} from "@chainsim/protocol";
import { WebSocketServer, type WebSocket } from "ws";
import { DEFAULT_LIMITS, parseHostPort, type LimitsConfig } from "../config.js";
import type { ExecutedLedger } from "../execution/executor.js";
import { CHAIN_VERSION } from "../http/routes/status.js";
import type { LedgerManager } from "../ledger/ledger-manager.js";
import type { TxService } from "../pool/tx-service.js";
import { EventClient } from "./event-client.js";
import { ledgerEvents } from "./ledger-events.js";
import type { NodeLog } from "../logging/node-log.js";

export interface EventServerOptions {
  /** A client whose unsent bytes exceed this is dropped. */
  maxBufferedBytes: number;
  /** Every interval each client is pinged; one that did not answer the previous ping is dropped. */
  heartbeatMs: number;
  /** Larger incoming frames close the connection (1009). */
  maxPayloadBytes: number;
  /** Clients at once; one more is closed at once with 1013 ("try again later") and the reason. */
  maxClients: number;
}

const HEARTBEAT_MS = 15_000;

/** The event server's options from a validator's limits (docs/operations.md, "Limits"). */
export function eventOptions(limits: LimitsConfig): EventServerOptions {
  return { maxBufferedBytes: limits.ws_send_buffer_bytes, heartbeatMs: HEARTBEAT_MS, maxPayloadBytes: limits.ws_message_bytes, maxClients: limits.ws_clients };
}

export const DEFAULT_EVENT_OPTIONS: EventServerOptions = eventOptions(DEFAULT_LIMITS);
/** A WebSocket connection must send its upgrade request within this (as HTTP requests their headers). */
const UPGRADE_HEADERS_TIMEOUT_MS = 20_000;
/** Connections past limits.ws_clients taken at once: room to answer them 1013, not a second pool of clients. */
const CONNECTIONS_UPGRADING = 64;
/** WebSocket close code 1013, "Try Again Later" (RFC 6455 registry). */
const TRY_AGAIN_LATER = 1013;

/** compat.md §9: "≤ 100 valid addresses". */
export const MAX_SUBSCRIBED_ADDRESSES = 100;
const PATHS = new Set(["/", "/websocket"]);

export interface EventSources {
  ledgers: LedgerManager;
  txs: TxService;
  validatorAddress: string;
  chainId: bigint;
  log: NodeLog;
}

/**
 * The WebSocket event server of compat.md §9: answers PING, HELLO and SUBSCRIBE_TX, and pushes ledger
 * headers, transactions and transaction statuses. Pushes are built after the ledger path has moved on
 * (setImmediate) and written without waiting for any client.
 */
export class EventServer {
  private server: WebSocketServer | undefined;
  private http: Server | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly clients = new Set<EventClient>();
  private readonly closedLedgers: ExecutedLedger[] = [];

  constructor(
    private readonly sources: EventSources,
    private readonly options: EventServerOptions = DEFAULT_EVENT_OPTIONS,
  ) {
    sources.ledgers.onClosed((ledger) => this.ledgerClosed(ledger));
    sources.txs.onAdmitted((tx) => this.admitted(tx));
  }

  async start(listenAddress: string): Promise<void> {
    const { host, port } = parseHostPort(listenAddress);
    // The HTTP server under the WebSockets, with bounds of its own: a connection must upgrade within the
    // timeouts, and connections at once are bounded (the clients and room for those upgrading, who get the
    // 1013 answer). Node's defaults held 50 half-sent upgrades for minutes (review of 2026-11-27).
    const http = createServer((_req, res) => res.writeHead(426, { "Content-Type": "text/plain" }).end("Upgrade Required"));
    http.headersTimeout = UPGRADE_HEADERS_TIMEOUT_MS;
    http.requestTimeout = UPGRADE_HEADERS_TIMEOUT_MS;
    http.maxConnections = this.options.maxClients + CONNECTIONS_UPGRADING;
    this.http = http;
    const server = new WebSocketServer({
      server: http,
      maxPayload: this.options.maxPayloadBytes,
      verifyClient: ({ req }: { req: IncomingMessage }, done: (ok: boolean, code?: number, message?: string) => void) =>
        done(PATHS.has(new URL(req.url ?? "/", "http://localhost").pathname), 404, "WebSocket paths are / and /websocket"),
    });
    await new Promise<void>((resolve, reject) => {
      http.once("error", (error) => reject(new Error(`cannot listen for WebSockets on ${listenAddress}: ${error.message}`)));
      http.listen(port, host, resolve);
    });
    server.on("connection", (socket, req) => this.connected(socket, req));
    this.server = server;
    this.heartbeat = setInterval(() => this.beat(), this.options.heartbeatMs).unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.heartbeat);
    for (const client of this.clients) client.socket.terminate();
    this.clients.clear();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    const http = this.http;
    this.http = undefined;
    if (http) {
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      await closed;
    }
  }

  /** getModulesStatus.websocket_server.clients */
  clientStatus(): Json[] {
    return [...this.clients].map((client) => client.status());
  }

  private connected(socket: WebSocket, req: IncomingMessage): void {
    if (this.clients.size >= this.options.maxClients) {
      return socket.close(TRY_AGAIN_LATER, `this validator serves at most ${this.options.maxClients} WebSocket clients (limits.ws_clients): retry later`);
    }
    const client = new EventClient(socket, `${req.socket.remoteAddress}:${req.socket.remotePort}`, this.options.maxBufferedBytes, (c, why) =>
      this.drop(c, why),
    );
    this.clients.add(client);
    socket.on("message", (data, isBinary) => this.received(client, data as Buffer, isBinary));
    socket.on("pong", () => (client.alive = true));
    socket.on("close", () => this.clients.delete(client));
    // ws closes the socket after an error (bad frame, oversized payload); only the other clients matter.
    // At debug: a client can cause one per connection (an oversized or invalid frame), so at info it could fill the log.
    socket.on("error", (error) => this.sources.log.debug(`websocket ${client.remote}: ${error.message}`));
  }

  private drop(client: EventClient, why: string): void {
    if (!this.clients.delete(client)) return;
    this.sources.log(`websocket ${client.remote} dropped: ${why}`);
    client.socket.terminate();
  }

  private beat(): void {
    for (const client of this.clients) {
      if (!client.alive) {
        client.drop(`no answer to a ping within ${this.options.heartbeatMs} ms`);
        continue;
      }
      client.alive = false;
      client.socket.ping();
    }
  }

  private received(client: EventClient, data: Buffer, isBinary: boolean): void {
    client.alive = true;
    if (!isBinary) {
      client.socket.close(1003, "frames are binary WsMessage (compat.md §9)");
      return;
    }
    let message: WsMessage;
    try {
      message = codecs.WsMessage.decode(data);
    } catch {
      client.socket.close(1007, "not a WsMessage");
      return;
    }
    const type = message.type ?? 0n;
    // Responses to our pushes need no answer; existing clients' heartbeat PING comes with request=false.
    if (!message.request && type !== BigInt(WsMessageType.PING)) return;
    try {
      client.respond(type, message.sequence, this.answer(client, type, message.data ?? new Uint8Array()));
    } catch (error) {
      const e = error instanceof ChainError ? error : new ChainError(ErrorCode.INVALID_PARAMETER, (error as Error).message);
      client.respond(type, message.sequence, codecs.ChainResponse.encode({ error_code: e.code, error_desc: e.message }));
    }
  }

  private answer(client: EventClient, type: bigint, data: Uint8Array): Uint8Array {
    switch (Number(type)) {
      case WsMessageType.PING:
        return codecs.Pong.encode({ nonce: codecs.Ping.decode(data).nonce });
      case WsMessageType.HELLO:
        codecs.ChainHello.decode(data);
        return codecs.WsChainStatus.encode({
          self_addr: this.sources.validatorAddress,
          ledger_version: this.sources.ledgers.lastHeader.version,
          monitor_version: 1000n,
          chain_version: CHAIN_VERSION,
          timestamp: BigInt(Date.now()) * 1000n,
          network_id: this.sources.chainId,
        });
      case WsMessageType.SUBSCRIBE_TX:
        client.subscription = subscription(codecs.ChainSubscribeTx.decode(data).address ?? []);
        return codecs.ChainResponse.encode({});
      default:
        throw new ChainError(ErrorCode.INVALID_PARAMETER, `unknown WsMessage type ${type}`);
    }
  }

  private admitted(tx: SignedTransaction): void {
    let status: Uint8Array | undefined;
    let touched: Set<string> | undefined;
    for (const client of this.clients) {
      if (client.subscription === "none") continue;
      touched ??= touchedAddresses(tx.transaction);
      if (!client.wants(touched)) continue;
      status ??= codecs.ChainTxStatus.encode({
        status: TxStatus.PENDING,
        tx_hash: tx.hashHex,
        source_address: tx.transaction.source_address,
        source_account_seq: tx.transaction.nonce,
        timestamp: BigInt(Date.now()) * 1000n,
      });
      client.push(WsMessageType.TX_STATUS, status);
    }
  }

  private ledgerClosed(ledger: ExecutedLedger): void {
    if (this.clients.size === 0) return;
    this.closedLedgers.push(ledger);
    if (this.closedLedgers.length === 1) setImmediate(() => this.pushClosedLedgers());
  }

  private pushClosedLedgers(): void {
    for (const ledger of this.closedLedgers.splice(0)) {
      try {
        this.pushLedger(ledger);
      } catch (error) {
        this.sources.log(`websocket pushes of ledger ${ledger.header.seq} failed: ${(error as Error).message}`);
      }
    }
  }

  /** Per client: the header, then each transaction touching its subscription (with its status), then LedgerTxs. */
  private pushLedger(ledger: ExecutedLedger): void {
    const events = ledgerEvents(ledger);
    let allTxs: Uint8Array | undefined;
    for (const client of this.clients) {
      client.push(WsMessageType.LEDGER_HEADER, events.header);
      if (client.subscription === "none") continue;
      const mine = client.subscription === "all" ? events.records : events.records.filter((r) => client.wants(r.touched));
      for (const record of mine) {
        client.push(WsMessageType.TX_ENV_STORE, record.store);
        if (record.status) client.push(WsMessageType.TX_STATUS, record.status);
      }
      const encode = () =>
        codecs.RawLedgerTxs.encode({ header: ledger.header, txs: mine.map((r) => r.result), ledger_length: BigInt(events.records.length) });
      client.push(WsMessageType.LEDGER_TXS, client.subscription === "all" ? (allTxs ??= encode()) : encode());
    }
  }
}

function subscription(addresses: string[]): "all" | Set<string> {
  if (addresses.length > MAX_SUBSCRIBED_ADDRESSES) {
    throw new ChainError(ErrorCode.INVALID_PARAMETER, `at most ${MAX_SUBSCRIBED_ADDRESSES} addresses per subscription, got ${addresses.length}`);
  }
  if (addresses.length === 0) return "all";
  return new Set(addresses.map((address, i) => checkAddress(address, `address[${i}]`)));
}
