import { channelTag, encodeFrame, tagChannel } from "./frames.js";
import { DEFAULT_QUEUE_LIMITS, OutboundQueue, type QueueLimits } from "./outbound-queue.js";
import { PeerCounters } from "./peer-counters.js";
import { PeerPenalties, type Offence } from "./peer-penalties.js";
import type { Channel, MessageHandler, PeerNetwork, PeerStatus, RequestHandler } from "./peer-network.js";

interface Envelope {
  from: string;
  to: string;
  frame: Uint8Array;
}

/**
 * The "wire" of in-process networks: started members by address and one FIFO of messages in flight,
 * drained on setImmediate. Everything runs on one thread in a fixed order, so a test run repeats exactly.
 */
export class MemoryHub {
  private readonly members = new Map<string, MemoryPeerNetwork>();
  private readonly inFlight: Envelope[] = [];
  private draining?: NodeJS.Immediate;
  private readonly idleWaiters: (() => void)[] = [];

  /** Resolves once no message is in flight (handlers may have sent more: those are waited for too). */
  idle(): Promise<void> {
    if (this.inFlight.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  member(address: string): MemoryPeerNetwork | undefined {
    return this.members.get(address);
  }

  join(network: MemoryPeerNetwork): void {
    if (this.members.has(network.address)) throw new Error(`${network.address} is already started on this hub`);
    this.members.set(network.address, network);
    for (const member of this.members.values()) if (member !== network) member.peerStarted(network.address);
  }

  leave(network: MemoryPeerNetwork): void {
    if (this.members.get(network.address) === network) this.members.delete(network.address);
    for (const member of this.members.values()) member.peerStopped(network.address);
  }

  post(envelope: Envelope): void {
    this.inFlight.push(envelope);
    this.draining ??= setImmediate(() => this.drain());
  }

  private drain(): void {
    this.draining = undefined;
    // only what is in flight now: messages sent by handlers go in the next round, after other I/O
    for (const { from, to, frame } of this.inFlight.splice(0)) {
      if (this.members.get(to)?.receive(from, frame) === false) this.members.get(from)?.refusedBy(to);
    }
    if (this.inFlight.length > 0) this.draining = setImmediate(() => this.drain());
    else for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}

interface MemoryPeer {
  queue: OutboundQueue;
  counters: PeerCounters;
}

/**
 * PeerNetwork inside one process, for tests of the node: the same contract as Libp2pPeerNetwork
 * (per-peer order, bounded queues while a peer is down, unknown senders ignored) without sockets.
 * Frames are encoded as on libp2p so sizes and channel checks match. `transmit` and `deliver` are the
 * single way out and in, as in the libp2p network.
 */
export class MemoryPeerNetwork implements PeerNetwork {
  private readonly links = new Map<string, MemoryPeer>();
  private readonly messageHandlers: MessageHandler[] = [];
  private requestHandler?: RequestHandler;
  private readonly pending = new Set<(error: Error) => void>();
  private running = false;
  private readonly penalties = new PeerPenalties();

  constructor(
    private readonly hub: MemoryHub,
    readonly address: string,
    peers: string[],
    limits: QueueLimits = DEFAULT_QUEUE_LIMITS,
  ) {
    for (const peer of peers) {
      if (peer === address) throw new Error(`peer ${peer} is this validator itself`);
      this.links.set(peer, { queue: new OutboundQueue(limits), counters: new PeerCounters() });
    }
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.hub.join(this);
    for (const address of this.links.keys()) if (this.hub.member(address)) this.peerStarted(address);
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.hub.leave(this);
    for (const link of this.links.values()) link.counters.disconnected();
    for (const reject of this.pending) reject(new Error("network stopped"));
  }

  send(peer: string, payload: Uint8Array, channel: Channel): void {
    this.transmit(peer, this.link(peer), encodeFrame(channelTag(channel), payload));
  }

  broadcast(payload: Uint8Array, channel: Channel): void {
    const frame = encodeFrame(channelTag(channel), payload);
    for (const [address, link] of this.links) this.transmit(address, link, frame);
  }

  onMessage(handler: MessageHandler): void {
    this.messageHandlers.push(handler);
  }

  request(peer: string, payload: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      this.link(peer);
      const target = this.hub.member(peer);
      if (!this.running) throw new Error(`request to ${peer} failed: the p2p network is not started`);
      if (!target) throw new Error(`request to ${peer} failed: the peer is not reachable`);
      const finish = (error?: Error, body?: Uint8Array) => {
        clearTimeout(timer);
        this.pending.delete(finish);
        if (error) reject(error);
        else resolve(body!);
      };
      const timer = setTimeout(() => finish(new Error(`request to ${peer} timed out after ${timeoutMs} ms`)), timeoutMs);
      this.pending.add(finish);
      target.answer(this.address, payload.slice()).then(
        (body) => (target.running ? finish(undefined, body) : finish(new Error(`request to ${peer} failed: the peer stopped`))),
        (error: Error) => finish(new Error(`the peer's request handler failed: ${error.message}`)),
      );
    });
  }

  onRequest(handler: RequestHandler): void {
    this.requestHandler = handler;
  }

  peers(): PeerStatus[] {
    return [...this.links].map(([address, link]) => link.counters.status(address, "memory", link.queue, this.penalties.conduct(address)));
  }

  /** Counted as on libp2p; a banned peer's messages and requests are refused until the ban ends. */
  penalize(peer: string, offence: Offence): void {
    this.link(peer);
    this.penalties.penalize(peer, offence);
  }

  /** The one way out: straight to the hub while the peer is up, else into the peer's bounded queue. */
  protected transmit(peer: string, link: MemoryPeer, frame: Uint8Array): void {
    link.queue.push(frame);
    if (this.running && this.hub.member(peer)) this.flush(peer, link);
  }

  /**
   * The one way in: counts the message and hands it to the handlers. Unlike libp2p, which logs a throwing
   * handler, this lets the error escape (uncaught) so a test of the node fails loudly.
   */
  protected deliver(from: string, link: MemoryPeer, channel: Channel, payload: Uint8Array): void {
    link.counters.messagesIn++;
    link.counters.bytesIn += payload.length + 5;
    for (const handler of this.messageHandlers) handler(from, payload, channel);
  }

  /** Called by the hub; false when `from` is not a configured peer (refused, as libp2p's gater does). */
  receive(from: string, frame: Uint8Array): boolean {
    const link = this.links.get(from);
    if (!link) return false;
    if (this.running && !this.penalties.banned(from)) this.deliver(from, link, tagChannel(frame[4]), frame.slice(5));
    return true;
  }

  /** Called by the hub when `peer` refused a frame from this network. */
  refusedBy(peer: string): void {
    this.links.get(peer)?.counters.disconnected(new Error(`${peer} refused the connection: not a configured validator there`));
  }

  /** Called by the hub. */
  async answer(from: string, payload: Uint8Array): Promise<Uint8Array> {
    if (!this.links.has(from)) throw new Error("not a configured validator");
    if (this.penalties.banned(from)) throw new Error("banned for misbehaving");
    if (!this.requestHandler) throw new Error("this node serves no requests");
    return this.requestHandler(from, payload);
  }

  /** Called by the hub when `address` starts: the link is up, queued frames go out. */
  peerStarted(address: string): void {
    const link = this.links.get(address);
    if (!link || !this.running) return;
    link.counters.connected();
    this.flush(address, link);
  }

  peerStopped(address: string): void {
    this.links.get(address)?.counters.disconnected(new Error("peer stopped"));
  }

  private flush(peer: string, link: MemoryPeer): void {
    while (link.queue.length > 0) {
      const [frame] = link.queue.take(0);
      link.counters.messagesOut++;
      link.counters.bytesOut += frame.length;
      this.hub.post({ from: this.address, to: peer, frame });
    }
  }

  private link(peer: string): MemoryPeer {
    const link = this.links.get(peer);
    if (!link) throw new Error(`unknown peer ${peer}: not in p2p.peers`);
    return link;
  }
}
