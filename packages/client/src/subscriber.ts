import {
  WsMessageType,
  canonicalAddress,
  codecs,
  touchedAddresses,
  type ChainTxStatus,
  type LedgerHeader,
  type TransactionEnvStore,
  type WsMessage,
} from "@chainsim/protocol";

/** The part of the WebSocket API the subscriber uses: browsers' global WebSocket and the `ws` package both have it. */
export interface WebSocketLike {
  binaryType: string;
  readonly readyState: number;
  send(data: Uint8Array): void;
  close(): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: unknown) => void) | null;
  onerror: ((event: unknown) => void) | null;
}
export type WebSocketFactory = (url: string) => WebSocketLike;

export interface SubscriberOptions {
  /** Defaults to the global WebSocket (browsers, Node ≥ 22), else the `ws` package. */
  webSocket?: WebSocketFactory;
  /** First reconnect delay; it doubles on each failed attempt up to maxBackoffMs and resets once connected. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** A PING goes out this often; a connection silent for two intervals is closed and reopened. */
  heartbeatMs?: number;
  /** Refused subscriptions and connection failures (the subscriber keeps reconnecting). */
  onError?: (error: Error) => void;
}

const OPEN = 1;

/**
 * Subscribes to a node's WebSocket events (compat.md §9, docs/events.md) and keeps the subscription
 * alive: after a lost connection it reconnects with backoff, says hello and subscribes again. Events
 * while disconnected are not replayed: read them over HTTP if a gap matters.
 */
export class EventSubscriber {
  private socket: WebSocketLike | undefined;
  private closed = false;
  private backoff: number;
  private sequence = 0n;
  private lastHeard = 0;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private reconnect: ReturnType<typeof setTimeout> | undefined;
  private readonly ledgerListeners = new Set<(header: LedgerHeader) => void>();
  private readonly txListeners = new Set<{ addresses: Set<string>; listener: (tx: TransactionEnvStore) => void }>();
  private readonly statusListeners = new Set<(status: ChainTxStatus) => void>();
  private readonly options: Required<Omit<SubscriberOptions, "webSocket" | "onError">> & SubscriberOptions;

  /** `url`: the node's WebSocket address, e.g. `ws://127.0.0.1:16003` (hello's websocket_address is the port). */
  constructor(
    readonly url: string,
    options: SubscriberOptions = {},
  ) {
    this.options = { minBackoffMs: 250, maxBackoffMs: 10_000, heartbeatMs: 5_000, ...options };
    this.backoff = this.options.minBackoffMs;
    void this.connect();
  }

  /** Every closed ledger's header. Returns a function that removes the listener. */
  onLedger(listener: (header: LedgerHeader) => void): () => void {
    this.ledgerListeners.add(listener);
    return () => this.ledgerListeners.delete(listener);
  }

  /** Applied transactions (and contract-made ones) touching any of `addresses`; none given: every transaction. */
  onTransaction(addresses: string[], listener: (tx: TransactionEnvStore) => void): () => void {
    const entry = { addresses: new Set(addresses.map(canonicalAddress)), listener };
    this.txListeners.add(entry);
    this.subscribe();
    return () => {
      this.txListeners.delete(entry);
      this.subscribe();
    };
  }

  /** PENDING, COMPLETE and FAILURE of the transactions onTransaction subscribed to (all of them if none). */
  onTxStatus(listener: (status: ChainTxStatus) => void): () => void {
    this.statusListeners.add(listener);
    this.subscribe();
    return () => {
      this.statusListeners.delete(listener);
      this.subscribe();
    };
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.reconnect);
    clearInterval(this.heartbeat);
    this.socket?.close();
  }

  private async connect(): Promise<void> {
    let socket: WebSocketLike;
    try {
      socket = (this.options.webSocket ?? (await defaultWebSocket()))(this.url);
    } catch (error) {
      this.options.onError?.(error as Error);
      return this.retry();
    }
    if (this.closed) return socket.close();
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    socket.onopen = () => {
      this.backoff = this.options.minBackoffMs;
      this.lastHeard = Date.now();
      this.send(WsMessageType.HELLO, codecs.ChainHello.encode({ timestamp: BigInt(Date.now()) * 1000n }));
      this.subscribe();
      this.heartbeat = setInterval(() => this.beat(), this.options.heartbeatMs);
    };
    socket.onmessage = (event) => this.received(event.data);
    socket.onerror = () => this.options.onError?.(new Error(`WebSocket ${this.url}: connection error`));
    socket.onclose = () => {
      clearInterval(this.heartbeat);
      if (this.socket === socket) this.socket = undefined;
      this.retry();
    };
  }

  private retry(): void {
    if (this.closed) return;
    this.reconnect = setTimeout(() => void this.connect(), this.backoff);
    this.backoff = Math.min(this.backoff * 2, this.options.maxBackoffMs);
  }

  private beat(): void {
    if (Date.now() - this.lastHeard > 2 * this.options.heartbeatMs) {
      this.socket?.close();
      return;
    }
    this.send(WsMessageType.PING, codecs.Ping.encode({ nonce: BigInt(Date.now()) }));
  }

  /** Sends the union of the listeners' addresses; [] (all) if any listener wants everything. */
  private subscribe(): void {
    if (this.txListeners.size === 0 && this.statusListeners.size === 0) return;
    const entries = [...this.txListeners];
    const all = entries.length === 0 || entries.some((e) => e.addresses.size === 0);
    const address = all ? [] : [...new Set(entries.flatMap((e) => [...e.addresses]))];
    this.send(WsMessageType.SUBSCRIBE_TX, codecs.ChainSubscribeTx.encode({ address }));
  }

  private send(type: WsMessageType, data: Uint8Array): void {
    if (this.socket?.readyState !== OPEN) return; // sent again on (re)connect
    this.socket.send(codecs.WsMessage.encode({ type: BigInt(type), request: true, sequence: this.sequence++, data }));
  }

  private received(data: unknown): void {
    this.lastHeard = Date.now();
    try {
      this.dispatch(codecs.WsMessage.decode(new Uint8Array(data as ArrayBuffer)));
    } catch (error) {
      this.options.onError?.(error as Error);
    }
  }

  private dispatch(message: WsMessage): void {
    const data = message.data ?? new Uint8Array();
    const type = Number(message.type ?? 0n);
    if (!message.request) {
      // Answers: only a refusal matters (PONG and the hello status just prove the connection lives).
      if (type === WsMessageType.SUBSCRIBE_TX) {
        const answer = codecs.ChainResponse.decode(data);
        if (answer.error_code) this.options.onError?.(new Error(`subscription refused (${answer.error_code}): ${answer.error_desc}`));
      }
      return;
    }
    if (type === WsMessageType.LEDGER_HEADER) {
      const header = codecs.LedgerHeader.decode(data);
      for (const listener of this.ledgerListeners) listener(header);
    } else if (type === WsMessageType.TX_ENV_STORE) {
      const tx = codecs.TransactionEnvStore.decode(data);
      const touched = touchedAddresses(tx.transaction_env?.transaction ?? {});
      for (const { addresses, listener } of this.txListeners) {
        if (addresses.size === 0 || [...addresses].some((a) => touched.has(a))) listener(tx);
      }
    } else if (type === WsMessageType.TX_STATUS) {
      const status = codecs.ChainTxStatus.decode(data);
      for (const listener of this.statusListeners) listener(status);
    }
  }
}

async function defaultWebSocket(): Promise<WebSocketFactory> {
  const global = (globalThis as { WebSocket?: new (url: string) => WebSocketLike }).WebSocket;
  if (global) return (url) => new global(url);
  const { WebSocket } = await import("ws");
  return (url) => new WebSocket(url) as unknown as WebSocketLike;
}
