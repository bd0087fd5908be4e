import { codecs, WsMessageType } from "@chainsim/protocol";
import type { WebSocket } from "ws";
import { formatTime } from "../status/time.js";

/** Who gets transaction pushes: nobody until SUBSCRIBE_TX, then everyone ("all") or a set of addresses. */
export type Subscription = "none" | "all" | Set<string>;

/**
 * One connected WebSocket client. Sending never waits: a frame goes into the socket's buffer, and a
 * client whose buffer is over the limit is dropped, so a slow reader cannot hold up the node or grow
 * its memory.
 */
export class EventClient {
  subscription: Subscription = "none";
  /** Cleared by each heartbeat tick, set again by any sign of life (a ws pong or any frame). */
  alive = true;
  private pushSequence = 0n;
  private sent = 0;
  private readonly since = Date.now();

  constructor(
    readonly socket: WebSocket,
    readonly remote: string,
    private readonly maxBuffered: number,
    private readonly onDrop: (client: EventClient, why: string) => void,
  ) {}

  wants(addresses: Set<string>): boolean {
    if (this.subscription === "none") return false;
    if (this.subscription === "all") return true;
    for (const address of addresses) if (this.subscription.has(address)) return true;
    return false;
  }

  /** A push (request=true) with this client's next sequence, so it can tell it missed nothing. */
  push(type: WsMessageType, data: Uint8Array): void {
    this.send(type, true, this.pushSequence++, data);
  }

  respond(type: bigint, sequence: bigint | undefined, data: Uint8Array): void {
    this.send(type, false, sequence, data);
  }

  private send(type: WsMessageType | bigint, request: boolean, sequence: bigint | undefined, data: Uint8Array): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    if (this.socket.bufferedAmount > this.maxBuffered) {
      this.onDrop(this, `send buffer over ${this.maxBuffered} bytes (limits.ws_send_buffer_bytes)`);
      return;
    }
    this.socket.send(codecs.WsMessage.encode({ type: BigInt(type), request, sequence, data }));
    this.sent++;
  }

  drop(why: string): void {
    this.onDrop(this, why);
  }

  status(): { [key: string]: string | number | boolean } {
    const s = this.subscription;
    return {
      remote: this.remote,
      connected_since: formatTime(this.since),
      subscribed: s === "all" ? "all" : s === "none" ? "none" : `${s.size} addresses`,
      messages_out: this.sent,
      buffered_bytes: this.socket.bufferedAmount,
    };
  }
}
