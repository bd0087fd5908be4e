/**
 * What a message is about (PBFT messages, gossiped transactions, chain-tip announcements); each channel
 * keeps its own handler semantics but shares the per-peer order. A channel's wire tag is its index here.
 */
export const CHANNELS = ["consensus", "txs", "status"] as const;

export type Channel = (typeof CHANNELS)[number];

import type { Offence, PeerConduct } from "./peer-penalties.js";

export type MessageHandler = (from: string, payload: Uint8Array, channel: Channel) => void;
export type RequestHandler = (from: string, payload: Uint8Array) => Promise<Uint8Array>;

/** One peer as this node sees it; feeds getModulesStatus.peer_manager. */
export interface PeerStatus extends PeerConduct {
  /** The peer's validator address. */
  address: string;
  /** True while messages to this peer have an open path (libp2p: our outbound message stream). */
  connected: boolean;
  /** Where the peer is reached: a multiaddr (libp2p) or "memory". */
  remote: string;
  /** When the current connection opened (ms since the epoch); null while disconnected. */
  since: number | null;
  messagesIn: number;
  messagesOut: number;
  bytesIn: number;
  bytesOut: number;
  /** Messages waiting in the outbound queue. */
  queued: number;
  /** Messages dropped because the outbound queue was full (the oldest go first). */
  dropped: number;
  /** Connections opened after the first one. */
  reconnects: number;
  lastError: string | null;
}

/**
 * The validator's view of the other validators: fire-and-forget messages on two channels and
 * request/response. Peers are named by validator address; only configured peers are ever talked to.
 */
export interface PeerNetwork {
  /** This validator's address. */
  readonly address: string;
  start(): Promise<void>;
  /** Closes every connection, timer and listener; pending requests reject. */
  stop(): Promise<void>;
  /**
   * Fire-and-forget, ordered per peer. Each peer has a bounded outbound queue (messages wait there
   * while the peer is unreachable); when it is full the oldest message is dropped and counted.
   */
  send(peer: string, payload: Uint8Array, channel: Channel): void;
  /** `send` to every configured peer. */
  broadcast(payload: Uint8Array, channel: Channel): void;
  onMessage(handler: MessageHandler): void;
  /** Rejects on timeout, an unknown or unreachable peer, a peer that goes away, or a failing handler. */
  request(peer: string, payload: Uint8Array, timeoutMs: number): Promise<Uint8Array>;
  onRequest(handler: RequestHandler): void;
  /**
   * Counts a message of `peer`'s that a handler found wrong (docs/networks.md, "Hostile peers"); past the
   * threshold the peer is disconnected and refused for the ban duration.
   */
  penalize(peer: string, offence: Offence): void;
  peers(): PeerStatus[];
}
