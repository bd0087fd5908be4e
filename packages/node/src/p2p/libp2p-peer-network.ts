import "./promise-with-resolvers.js";
import { noise } from "@chainsafe/libp2p-noise";
import { yamux } from "@chainsafe/libp2p-yamux";
import type { Connection, Libp2p, PeerId, Stream } from "@libp2p/interface";
import { tcp } from "@libp2p/tcp";
import { multiaddr, type Multiaddr } from "@multiformats/multiaddr";
import { createLibp2p } from "libp2p";
import { parseHostPort, type NodeConfig, type PeerConfig } from "../config.js";
import { channelTag, encodeFrame, FrameDecoder, FrameLengthError, tagChannel } from "./frames.js";
import { DEFAULT_QUEUE_LIMITS, type QueueLimits } from "./outbound-queue.js";
import { libp2pIdentity, peerIdOfPublicKey } from "./peer-identity.js";
import { DEFAULT_BACKOFF, PeerLink, type BackoffPolicy } from "./peer-link.js";
import type { Channel, MessageHandler, PeerNetwork, PeerStatus, RequestHandler } from "./peer-network.js";
import { DEFAULT_PENALTY_POLICY, PeerPenalties, penaltyPolicy, type Offence, type PenaltyPolicy } from "./peer-penalties.js";
import { answer, exchange } from "./request-stream.js";
import type { NodeLog } from "../logging/node-log.js";

/** The long-lived stream each node opens to each peer and writes its messages on. */
export const MESSAGE_PROTOCOL = "/chainsim/messages/1.0.0";
/** One short-lived stream per request. */
export const REQUEST_PROTOCOL = "/chainsim/request/1.0.0";

export interface Libp2pPeerNetworkOptions {
  /** This validator's key (priSPK…); its libp2p identity derives from it. */
  privateKey: string;
  /** `host:port` to listen on. */
  listenAddress: string;
  /** The other validators; connections from anyone else are refused. */
  peers: PeerConfig[];
  queueLimits?: QueueLimits;
  backoff?: BackoffPolicy;
  /** libp2p connections at once (limits.p2p_connections); libp2p's default when absent. */
  maxConnections?: number;
  /** When a misbehaving peer is banned, and for how long. */
  penalties?: PenaltyPolicy;
  /** Where unexpected failures (a throwing message handler) are reported. */
  log?: NodeLog;
}

/**
 * PeerNetwork over libp2p (TCP, noise, yamux) among a fixed set of validators whose PeerIds follow
 * from their public keys. Every outgoing message passes through `transmit` and every incoming one
 * through `deliver`: the one place a fault plane can drop, delay or reorder them.
 */
export class Libp2pPeerNetwork implements PeerNetwork {
  private node?: Libp2p;
  private readonly links = new Map<string, PeerLink>();
  private readonly addressByPeerId = new Map<string, string>();
  private readonly messageHandlers: MessageHandler[] = [];
  private requestHandler?: RequestHandler;
  private readonly penalties: PeerPenalties;

  private constructor(
    readonly address: string,
    private readonly key: Awaited<ReturnType<typeof libp2pIdentity>>["key"],
    private readonly options: Libp2pPeerNetworkOptions,
  ) {
    this.penalties = new PeerPenalties(options.penalties ?? DEFAULT_PENALTY_POLICY);
    for (const peer of options.peers) {
      if (peer.address === address) throw new Error(`p2p peer ${peer.address} is this validator itself`);
      if (this.links.has(peer.address)) throw new Error(`p2p peer ${peer.address} is listed twice`);
      const peerId = peerIdOfPublicKey(peer.public_key);
      const target = dialAddress(peer.host, peer.port, peerId);
      this.addressByPeerId.set(peerId, peer.address);
      const dial = (signal: AbortSignal) => this.started().dialProtocol(target, MESSAGE_PROTOCOL, { signal });
      this.links.set(peer.address, new PeerLink(peer.address, target.toString(), dial, options.queueLimits ?? DEFAULT_QUEUE_LIMITS, options.backoff ?? DEFAULT_BACKOFF));
    }
  }

  static async create(options: Libp2pPeerNetworkOptions): Promise<Libp2pPeerNetwork> {
    const { key, address } = await libp2pIdentity(options.privateKey);
    return new Libp2pPeerNetwork(address, key, options);
  }

  /** The network a validator's config describes. */
  static fromConfig(config: NodeConfig, log?: NodeLog): Promise<Libp2pPeerNetwork> {
    return Libp2pPeerNetwork.create({
      privateKey: config.validator.private_key,
      listenAddress: config.p2p.listen_address,
      peers: config.p2p.peers,
      maxConnections: config.limits.p2p_connections,
      penalties: penaltyPolicy(config.limits),
      log,
    });
  }

  async start(): Promise<void> {
    if (this.node) return;
    const { host, port } = parseHostPort(this.options.listenAddress);
    // strangers are refused before any stream opens; a banned validator too, until its ban ends
    const admitted = (peerId: PeerId) => {
      const address = this.addressByPeerId.get(peerId.toString());
      return address !== undefined && !this.penalties.banned(address);
    };
    const node = await createLibp2p({
      privateKey: this.key,
      addresses: { listen: [hostAddress(host, port).toString()] },
      transports: [tcp()],
      connectionEncrypters: [noise()],
      streamMuxers: [yamux()],
      ...(this.options.maxConnections === undefined ? {} : { connectionManager: { maxConnections: this.options.maxConnections } }),
      connectionGater: {
        denyDialPeer: (peerId) => !admitted(peerId),
        denyInboundEncryptedConnection: (peerId) => !admitted(peerId),
        denyOutboundEncryptedConnection: (peerId) => !admitted(peerId),
      },
    });
    await node.handle(MESSAGE_PROTOCOL, (stream, connection) => this.acceptMessageStream(stream, connection));
    await node.handle(REQUEST_PROTOCOL, (stream, connection) => this.acceptRequestStream(stream, connection), { maxInboundStreams: 64 });
    node.addEventListener("peer:connect", (event) => {
      const link = this.linkOf(event.detail);
      link?.peerSeen();
      if (link) this.options.log?.("p2p: peer connected", { peer: link.address });
    });
    node.addEventListener("peer:disconnect", (event) => {
      const link = this.linkOf(event.detail);
      if (link) this.options.log?.warn("p2p: peer disconnected", { peer: link.address });
    });
    this.node = node;
    for (const link of this.links.values()) link.start();
  }

  async stop(): Promise<void> {
    const node = this.node;
    if (!node) return;
    this.node = undefined;
    for (const link of this.links.values()) link.stop();
    await node.stop();
  }

  send(peer: string, payload: Uint8Array, channel: Channel): void {
    this.transmit(this.link(peer), encodeFrame(channelTag(channel), payload));
  }

  broadcast(payload: Uint8Array, channel: Channel): void {
    const frame = encodeFrame(channelTag(channel), payload);
    for (const link of this.links.values()) this.transmit(link, frame);
  }

  onMessage(handler: MessageHandler): void {
    this.messageHandlers.push(handler);
  }

  async request(peer: string, payload: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    const link = this.link(peer);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error(`request to ${peer} timed out after ${timeoutMs} ms`)), timeoutMs);
    try {
      const stream = await this.started().dialProtocol(multiaddr(link.remote), REQUEST_PROTOCOL, { signal: controller.signal });
      return await exchange(stream, payload, controller.signal);
    } catch (error) {
      throw controller.signal.aborted ? controller.signal.reason : new Error(`request to ${peer} failed: ${(error as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }

  onRequest(handler: RequestHandler): void {
    this.requestHandler = handler;
  }

  peers(): PeerStatus[] {
    return [...this.links.values()].map((link) => link.status(this.penalties.conduct(link.address)));
  }

  penalize(peer: string, offence: Offence): void {
    const link = this.link(peer);
    if (!this.penalties.penalize(peer, offence)) return;
    this.options.log?.(`p2p: ${peer} banned until ${new Date(this.penalties.conduct(peer).bannedUntil!).toISOString()} (last offence: ${offence})`);
    link.counters.failed(new Error(`banned for misbehaving (last: ${offence})`));
    void this.node?.hangUp(multiaddr(link.remote)).catch((error: unknown) => this.options.log?.(`p2p: hanging up on ${peer}: ${(error as Error).message}`));
  }

  /** The one way out for messages: queues the frame for the peer's outbound stream. */
  protected transmit(link: PeerLink, frame: Uint8Array): void {
    link.enqueue(frame);
  }

  /** The one way in for messages: counts them and hands them to the handlers. */
  protected deliver(link: PeerLink, channel: Channel, payload: Uint8Array): void {
    if (this.penalties.banned(link.address)) return; // still in flight when the ban began
    link.counters.messagesIn++;
    link.counters.bytesIn += payload.length + 5;
    for (const handler of this.messageHandlers) {
      try {
        handler(link.address, payload, channel);
      } catch (error) {
        this.options.log?.error(`p2p: a message handler failed on a ${channel} message from ${link.address}: ${(error as Error)?.stack ?? error}`);
      }
    }
  }

  private acceptMessageStream(stream: Stream, connection: Connection): void {
    const link = this.linkOf(connection.remotePeer);
    if (!link) return stream.abort(new Error("not a configured validator"));
    link.acceptInbound(stream);
    const decoder = new FrameDecoder();
    let refused = false;
    stream.addEventListener("message", (event) => {
      try {
        for (const frame of decoder.push(event.data.subarray())) this.deliver(link, tagChannel(frame.tag), frame.body);
      } catch (error) {
        refused = true;
        link.counters.failed(error);
        stream.abort(error as Error);
        this.penalize(link.address, error instanceof FrameLengthError ? "oversized" : "garbage");
      }
    });
    stream.addEventListener("close", () => {
      if (!refused && decoder.partial > 0 && this.node) this.penalize(link.address, "truncated");
    }, { once: true });
  }

  private acceptRequestStream(stream: Stream, connection: Connection): void {
    const link = this.linkOf(connection.remotePeer);
    if (!link) return stream.abort(new Error("not a configured validator"));
    if (this.penalties.banned(link.address)) return stream.abort(new Error("banned for misbehaving"));
    answer(stream, link.address, this.requestHandler, (offence) => this.penalize(link.address, offence));
  }

  private linkOf(peerId: PeerId): PeerLink | undefined {
    const address = this.addressByPeerId.get(peerId.toString());
    return address === undefined ? undefined : this.links.get(address);
  }

  private link(peer: string): PeerLink {
    const link = this.links.get(peer);
    if (!link) throw new Error(`unknown peer ${peer}: not in p2p.peers`);
    return link;
  }

  private started(): Libp2p {
    if (!this.node) throw new Error("the p2p network is not started");
    return this.node;
  }
}

function hostAddress(host: string, port: number): Multiaddr {
  const protocol = /^\d+\.\d+\.\d+\.\d+$/.test(host) ? "ip4" : host.includes(":") ? "ip6" : "dns";
  return multiaddr(`/${protocol}/${host}/tcp/${port}`);
}

function dialAddress(host: string, port: number, peerId: string): Multiaddr {
  return hostAddress(host, port).encapsulate(`/p2p/${peerId}`);
}
