import { createHash } from "node:crypto";
import type { Channel, Clock, MessageHandler, Offence, PeerNetwork, PeerStatus, RequestHandler } from "@chainsim/node";
import type { Scheduler } from "./scheduler.js";
import { describePayload } from "./trace.js";

/** How the simulated wire behaves; every draw comes from the run's seeded random source. */
export interface WireModel {
  /** One-way latency: base plus a uniform jitter (jitter larger than the gap between two messages reorders them). */
  latencyMs: number;
  jitterMs: number;
  /** Chance that a message (or a request, or its answer) is lost. */
  loss: number;
  /** Chance that a message arrives twice. */
  duplicate: number;
}

export const DEFAULT_WIRE: WireModel = { latencyMs: 5, jitterMs: 20, loss: 0.01, duplicate: 0.01 };

const digest = (payload: Uint8Array) => createHash("sha256").update(payload).digest("hex").slice(0, 12);

/**
 * The simulation's network between validators (docs/simulation.md): every message is an event on the
 * scheduler, delivered after a seeded latency, maybe lost or duplicated, never across a partition, and
 * only to the incarnation of the peer that is alive when it arrives.
 */
export class SimWire {
  private readonly endpoints = new Map<string, SimPeerNetwork>();
  /** The twin of a validator, by the address they share. */
  private readonly twins = new Map<string, SimPeerNetwork>();
  /** Directed links that carry nothing ("from>to"). */
  private readonly cut = new Set<string>();
  readonly offences: { from: string; by: string; offence: Offence }[] = [];
  /** Told of every message a validator puts on the wire (the conduct check reads consensus messages). */
  onSent: (from: string, channel: Channel, payload: Uint8Array) => void = () => {};

  constructor(
    readonly scheduler: Scheduler,
    readonly random: () => number,
    public model: WireModel = DEFAULT_WIRE,
    /** Short names for the trace, by address. */
    private readonly names: Map<string, string> = new Map(),
  ) {}

  /**
   * The network of a new incarnation of validator `address` (the previous one, if any, is gone). A twin (a
   * second process with the key) sends as `address` and gets answers to its own requests; of what peers
   * send to `address`, half reaches it instead of the original, as when a twin's connection replaces the
   * original's until the original reconnects (docs/faults.md, "Twins").
   */
  attach(address: string, peers: string[], clock: Clock, twin = false): SimPeerNetwork {
    const network = new SimPeerNetwork(this, address, peers, clock);
    (twin ? this.twins : this.endpoints).set(address, network);
    return network;
  }

  /** Stops delivering to `network` (its process is gone). */
  detach(network: SimPeerNetwork): void {
    for (const map of [this.endpoints, this.twins]) if (map.get(network.address) === network) map.delete(network.address);
  }

  /** Cuts (or, with `false`, mends) both directions between every member of `a` and every member of `b`. */
  partition(a: string[], b: string[], on = true): void {
    for (const x of a) for (const y of b) for (const link of [`${x}>${y}`, `${y}>${x}`]) on ? this.cut.add(link) : this.cut.delete(link);
  }

  heal(): void {
    this.cut.clear();
  }

  name(address: string): string {
    return this.names.get(address) ?? address.slice(0, 8);
  }

  /**
   * Carries `run` from `from` to `to` (a message, a request, an answer), or drops it. An answer goes to the
   * very network that asked (`target`), which for a twin is not the one that receives as `to`.
   */
  carry(from: string, to: string, what: string, run: (receiver: SimPeerNetwork) => void, target?: SimPeerNetwork): void {
    const id = this.scheduler.messageId();
    const link = { id, from: this.name(from), to: this.name(to), what };
    this.scheduler.trace({ kind: "send", ...link });
    if (this.cut.has(`${from}>${to}`)) return this.scheduler.trace({ kind: "drop", ...link, why: "cut" });
    if (this.random() < this.model.loss) return this.scheduler.trace({ kind: "drop", ...link, why: "lost" });
    const copies = this.random() < this.model.duplicate ? 2 : 1;
    for (let i = 0; i < copies; i++) {
      const delay = this.model.latencyMs + Math.floor(this.random() * (this.model.jitterMs + 1));
      const toTwin = target === undefined && this.twins.has(to) && this.random() < 0.5;
      this.scheduler.at(delay, this.name(to), "deliver", () => {
        const receiver = target ?? (toTwin ? this.twins.get(to) : this.endpoints.get(to));
        if (!receiver?.running) return this.scheduler.trace({ kind: "drop", ...link, why: "down" });
        if (this.cut.has(`${from}>${to}`)) return this.scheduler.trace({ kind: "drop", ...link, why: "cut" });
        this.scheduler.trace({ kind: "recv", ...link });
        run(receiver);
      });
    }
  }
}

/** A message as the trace shows it: what it is and a digest of its bytes (the trace hash then covers them). */
const describe = (channel: Channel, payload: Uint8Array) => `${describePayload(channel, payload)} ${digest(payload)}`;

/** One validator incarnation's PeerNetwork on the SimWire. */
export class SimPeerNetwork implements PeerNetwork {
  running = false;
  private messageHandler: MessageHandler | undefined;
  private requestHandler: RequestHandler | undefined;

  constructor(
    private readonly wire: SimWire,
    readonly address: string,
    private readonly peerAddresses: string[],
    /** The clock of this incarnation: its timers end with it. */
    private readonly clock: Clock,
  ) {}

  async start(): Promise<void> {
    this.running = true;
  }

  async stop(): Promise<void> {
    this.running = false;
  }

  send(peer: string, payload: Uint8Array, channel: Channel): void {
    if (!this.running || !this.peerAddresses.includes(peer)) return;
    const bytes = payload.slice();
    this.wire.onSent(this.wire.name(this.address), channel, bytes);
    this.wire.carry(this.address, peer, describe(channel, bytes), (receiver) => receiver.messageHandler?.(this.address, bytes, channel));
  }

  broadcast(payload: Uint8Array, channel: Channel): void {
    for (const peer of this.peerAddresses) this.send(peer, payload, channel);
  }

  onMessage(handler: MessageHandler): void {
    this.messageHandler = handler;
  }

  onRequest(handler: RequestHandler): void {
    this.requestHandler = handler;
  }

  request(peer: string, payload: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    if (!this.running) return Promise.reject(new Error("the network is stopped"));
    if (!this.peerAddresses.includes(peer)) return Promise.reject(new Error(`unknown peer ${peer}`));
    const clock = this.clock;
    return new Promise((resolve, reject) => {
      let done = false;
      const finish = (outcome: () => void) => {
        if (done) return;
        done = true;
        clock.clear(timer);
        outcome();
      };
      const timer = clock.setTimeout(() => finish(() => reject(new Error(`request to ${peer} timed out after ${timeoutMs} ms`))), timeoutMs);
      const bytes = payload.slice();
      this.wire.carry(this.address, peer, `sync request ${bytes.length}B ${digest(bytes)}`, (receiver) => {
        const handler = receiver.requestHandler;
        if (!handler) return;
        void handler(this.address, bytes).then(
          (answer) => {
            if (!receiver.running) return;
            this.wire.carry(peer, this.address, `sync answer ${answer.length}B ${digest(answer)}`, () => finish(() => resolve(answer)), this);
          },
          () => undefined, // a failing handler: the requester times out
        );
      });
    });
  }

  penalize(peer: string, offence: Offence): void {
    this.wire.offences.push({ from: peer, by: this.address, offence });
    this.wire.scheduler.trace({ kind: "penalize", node: this.wire.name(this.address), what: `${this.wire.name(peer)}: ${offence}` });
  }

  peers(): PeerStatus[] {
    return this.peerAddresses.map((address) => ({
      address,
      connected: this.running,
      remote: "sim",
      since: null,
      messagesIn: 0,
      messagesOut: 0,
      bytesIn: 0,
      bytesOut: 0,
      queued: 0,
      dropped: 0,
      reconnects: 0,
      lastError: null,
      misbehaviour: 0,
      penaltyScore: 0,
      bannedUntil: null,
    }));
  }
}
