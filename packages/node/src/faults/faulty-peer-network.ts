import type { Channel, MessageHandler, Offence, PeerNetwork, PeerStatus, RequestHandler } from "../p2p/index.js";
import type { ByzantineTransforms } from "./byzantine.js";
import type { FaultPlane } from "./fault-plane.js";
import { systemClock, type Clock, type ClockTimer } from "../clock.js";

/**
 * The PeerNetwork a node uses when debug.fault_injection is on: the real network behind the rules of a
 * FaultPlane. Every message this node sends passes `outgoing` and every message it receives `incoming`;
 * requests and their answers are refused across a partition. Working on the interface (not on sockets)
 * means a rule covers every connection, including ones opened after it was posted.
 */
export class FaultyPeerNetwork implements PeerNetwork {
  private readonly timers = new Set<ClockTimer>();

  constructor(
    private readonly inner: PeerNetwork,
    private readonly plane: FaultPlane,
    private readonly byzantine: ByzantineTransforms,
    private readonly clock: Clock = systemClock,
  ) {}

  get address(): string {
    return this.inner.address;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  /** Messages still held back by delay or reorder are dropped. */
  async stop(): Promise<void> {
    for (const timer of this.timers) this.clock.clear(timer);
    this.timers.clear();
    await this.inner.stop();
  }

  send(peer: string, payload: Uint8Array, channel: Channel): void {
    this.outgoing(peer, payload, channel);
    this.remember(payload, channel);
  }

  /** Per peer, so rules (and an equivocating primary) can treat peers differently. */
  broadcast(payload: Uint8Array, channel: Channel): void {
    for (const peer of this.plane.peers) this.outgoing(peer, payload, channel);
    this.remember(payload, channel);
  }

  onMessage(handler: MessageHandler): void {
    this.inner.onMessage((from, payload, channel) => {
      if (this.blocked(from)) return;
      this.remember(payload, channel);
      handler(from, payload, channel);
    });
  }

  async request(peer: string, payload: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    if (this.plane.partitioned(peer)) {
      this.plane.stats.partitioned++;
      throw new Error(`request to ${peer} failed: cut off by a partition fault rule`);
    }
    return this.inner.request(peer, payload, timeoutMs);
  }

  onRequest(handler: RequestHandler): void {
    this.inner.onRequest(async (from, payload) => {
      if (this.plane.partitioned(from)) {
        this.plane.stats.partitioned++;
        throw new Error("cut off by a partition fault rule");
      }
      return handler(from, payload);
    });
  }

  penalize(peer: string, offence: Offence): void {
    this.inner.penalize(peer, offence);
  }

  peers(): PeerStatus[] {
    return this.inner.peers();
  }

  /** Consensus messages are kept for `replay` after they were sent, so a replay is always of an older one. */
  private remember(payload: Uint8Array, channel: Channel): void {
    if (channel === "consensus") this.byzantine.remember(payload);
  }

  /** Partition, then drop: true when a message with `peer` must vanish (counted). */
  private blocked(peer: string): boolean {
    if (this.plane.partitioned(peer)) {
      this.plane.stats.partitioned++;
      return true;
    }
    if (this.plane.fires("drop", peer)) {
      this.plane.stats.dropped++;
      return true;
    }
    return false;
  }

  private outgoing(peer: string, payload: Uint8Array, channel: Channel): void {
    if (this.blocked(peer)) return;
    let payloads = [payload];
    if (channel === "consensus") {
      const modes = this.plane.byzantineModes(peer);
      if (modes.length > 0) {
        payloads = this.byzantine.apply(payload, modes);
        if (payloads.length !== 1 || payloads[0] !== payload) this.plane.stats.byzantine++;
      }
    }
    for (const message of payloads) {
      this.later(peer, message, channel);
      if (this.plane.fires("duplicate", peer)) {
        this.plane.stats.duplicated++;
        this.later(peer, message, channel);
      }
    }
  }

  /** Sends now, or after the delay rules' time (plus a reorder window when a reorder rule fires). */
  private later(peer: string, payload: Uint8Array, channel: Channel): void {
    let waitMs = 0;
    for (const rule of this.plane.matching("delay", peer)) waitMs += rule.delay_ms + Math.floor(this.plane.random() * (rule.jitter_ms + 1));
    if (waitMs > 0) this.plane.stats.delayed++;
    for (const rule of this.plane.matching("reorder", peer)) {
      if (this.plane.random() < rule.probability) {
        this.plane.stats.reordered++;
        waitMs += rule.window_ms;
      }
    }
    if (waitMs === 0) {
      this.inner.send(peer, payload, channel);
      return;
    }
    const timer = this.clock.setTimeout(() => {
      this.timers.delete(timer);
      this.inner.send(peer, payload, channel);
    }, waitMs);
    this.timers.add(timer);
  }
}
