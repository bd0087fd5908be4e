import { Counter, type Registry } from "prom-client";
import type { Channel, MessageHandler, Offence, PeerNetwork, PeerStatus, RequestHandler } from "../p2p/index.js";

type Direction = "sent" | "received";

/**
 * The node's PeerNetwork, counting what passes its interface by direction, channel (the message type: a
 * fixed set) and peer (always a configured validator). Payload bytes, without framing: the wire totals per
 * peer are in getModulesStatus' peer_manager.
 */
export class MeteredPeerNetwork implements PeerNetwork {
  private readonly messages: Counter<"direction" | "type" | "peer">;
  private readonly bytes: Counter<"direction" | "type" | "peer">;

  constructor(
    private readonly inner: PeerNetwork,
    private readonly peerAddresses: string[],
    registry: Registry,
  ) {
    const labelNames = ["direction", "type", "peer"] as const;
    this.messages = new Counter({ name: "chainsim_p2p_messages_total", help: "Peer messages sent and received, by type and peer", labelNames, registers: [registry] });
    this.bytes = new Counter({ name: "chainsim_p2p_bytes_total", help: "Payload bytes of peer messages sent and received, by type and peer", labelNames, registers: [registry] });
  }

  get address(): string {
    return this.inner.address;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  stop(): Promise<void> {
    return this.inner.stop();
  }

  send(peer: string, payload: Uint8Array, channel: Channel): void {
    this.inner.send(peer, payload, channel);
    this.count("sent", peer, payload, channel);
  }

  broadcast(payload: Uint8Array, channel: Channel): void {
    this.inner.broadcast(payload, channel);
    for (const peer of this.peerAddresses) this.count("sent", peer, payload, channel);
  }

  onMessage(handler: MessageHandler): void {
    this.inner.onMessage((from, payload, channel) => {
      this.count("received", from, payload, channel);
      handler(from, payload, channel);
    });
  }

  request(peer: string, payload: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    return this.inner.request(peer, payload, timeoutMs);
  }

  onRequest(handler: RequestHandler): void {
    this.inner.onRequest(handler);
  }

  peers(): PeerStatus[] {
    return this.inner.peers();
  }

  penalize(peer: string, offence: Offence): void {
    this.inner.penalize(peer, offence);
  }

  private count(direction: Direction, peer: string, payload: Uint8Array, type: Channel): void {
    this.messages.inc({ direction, type, peer });
    this.bytes.inc({ direction, type, peer }, payload.length);
  }
}
