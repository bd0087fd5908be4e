import type { Stream } from "@libp2p/interface";
import { OutboundQueue, type QueueLimits } from "./outbound-queue.js";
import { PeerCounters } from "./peer-counters.js";
import type { PeerStatus } from "./peer-network.js";
import type { PeerConduct } from "./peer-penalties.js";

/** Delay before redialing a peer: doubles after every failed attempt, from initialMs up to maxMs. */
export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 100, maxMs: 5000 };

/** Frames sent to libp2p in one `send`: batching amortises yamux headers and noise encryption. */
const BATCH_BYTES = 64 * 1024;

/**
 * Everything this node keeps about one configured peer on libp2p: the bounded queue of frames for it,
 * our outbound message stream (the only one we ever write messages to), the peer's inbound stream to
 * us (read only), and the redial timer. Each side writes on the stream it opened, so two peers dialing
 * each other at once end up with exactly one stream per direction, whichever connection carries it.
 */
export class PeerLink {
  readonly queue: OutboundQueue;
  readonly counters = new PeerCounters();
  private outbound?: Stream;
  private inbound?: Stream;
  private dialing?: AbortController;
  private retryTimer?: NodeJS.Timeout;
  private delayMs: number;
  private pumping = false;
  private running = false;

  constructor(
    readonly address: string,
    readonly remote: string,
    private readonly dial: (signal: AbortSignal) => Promise<Stream>,
    limits: QueueLimits,
    private readonly backoff: BackoffPolicy,
  ) {
    this.queue = new OutboundQueue(limits);
    this.delayMs = backoff.initialMs;
  }

  start(): void {
    this.running = true;
    void this.connect();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.dialing?.abort(new Error("network stopped"));
    this.outbound?.abort(new Error("network stopped"));
    this.inbound?.abort(new Error("network stopped"));
    this.outbound = this.inbound = undefined;
    this.counters.disconnected();
  }

  enqueue(frame: Uint8Array): void {
    this.queue.push(frame);
    void this.pump();
  }

  /** The peer just connected to us, so it is up: redial now instead of waiting out the backoff. */
  peerSeen(): void {
    if (this.running && this.retryTimer !== undefined) {
      clearTimeout(this.retryTimer);
      this.retryTimer = undefined;
      void this.connect();
    }
  }

  /** The peer's stream to us; a newer one replaces the old (the peer opens a new one only after losing it). */
  acceptInbound(stream: Stream): void {
    const previous = this.inbound;
    this.inbound = stream;
    previous?.abort(new Error("replaced by a newer stream from the same peer"));
    // we never write on it; closing our end once the peer closes theirs releases it on both sides
    stream.addEventListener("remoteCloseWrite", () => void stream.close().catch(() => stream.abort(new Error("close failed"))), { once: true });
    stream.addEventListener("close", () => {
      if (this.inbound === stream) this.inbound = undefined;
    }, { once: true });
  }

  status(conduct: PeerConduct): PeerStatus {
    return this.counters.status(this.address, this.remote, this.queue, conduct);
  }

  private async connect(): Promise<void> {
    if (!this.running || this.outbound || this.dialing) return;
    const controller = new AbortController();
    this.dialing = controller;
    try {
      const stream = await this.dial(controller.signal);
      if (!this.running) return stream.abort(new Error("network stopped"));
      this.attach(stream);
    } catch (error) {
      if (!this.running) return;
      this.counters.failed(error);
      this.scheduleRetry();
    } finally {
      if (this.dialing === controller) this.dialing = undefined;
    }
  }

  private attach(stream: Stream): void {
    this.outbound = stream;
    this.delayMs = this.backoff.initialMs;
    this.counters.connected();
    stream.addEventListener("close", (event) => this.detach(stream, event.error ?? new Error("stream closed by the peer")), { once: true });
    void this.pump();
  }

  /** Forgets a broken outbound stream (once, whichever of close event or failed write notices first) and redials. */
  private detach(stream: Stream, error: unknown): void {
    if (this.outbound !== stream) return;
    this.outbound = undefined;
    if (stream.status === "open") stream.abort(error instanceof Error ? error : new Error(String(error)));
    this.counters.disconnected(error);
    if (this.running) this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.retryTimer !== undefined) return;
    const delay = this.delayMs;
    this.delayMs = Math.min(this.delayMs * 2, this.backoff.maxMs);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect();
    }, delay);
  }

  /** Moves queued frames onto the outbound stream while it accepts them; waits for 'drain' when it does not. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.outbound && this.queue.length > 0) {
        const stream = this.outbound;
        if (stream.writableNeedsDrain) {
          await drained(stream).catch((error: unknown) => this.detach(stream, error));
          continue;
        }
        const frames = this.queue.take(BATCH_BYTES);
        const batch = frames.length === 1 ? frames[0] : joinFrames(frames);
        try {
          stream.send(batch);
        } catch (error) {
          this.queue.dropped += frames.length;
          this.detach(stream, error);
          continue;
        }
        this.counters.messagesOut += frames.length;
        this.counters.bytesOut += batch.length;
      }
    } finally {
      this.pumping = false;
    }
  }
}

/**
 * Resolves at the stream's next 'drain' event, rejects if it closes first. Not `stream.onDrain()`: in
 * @libp2p/utils 7.4 it keeps its first, resolved promise, so every later call resolves at once and a
 * writer waiting on it spins while the stream still needs to drain.
 */
function drained(stream: Stream): Promise<void> {
  return new Promise((resolve, reject) => {
    const onDrain = () => {
      stream.removeEventListener("close", onClose);
      resolve();
    };
    const onClose = () => {
      stream.removeEventListener("drain", onDrain);
      reject(new Error("the stream closed while waiting to send"));
    };
    stream.addEventListener("drain", onDrain, { once: true });
    stream.addEventListener("close", onClose, { once: true });
  });
}

function joinFrames(frames: Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(frames.reduce((sum, frame) => sum + frame.length, 0));
  let offset = 0;
  for (const frame of frames) {
    joined.set(frame, offset);
    offset += frame.length;
  }
  return joined;
}
