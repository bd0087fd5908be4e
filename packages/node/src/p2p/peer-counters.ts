import type { PeerStatus } from "./peer-network.js";
import type { PeerConduct } from "./peer-penalties.js";

/** The running figures behind one PeerStatus. */
export class PeerCounters {
  messagesIn = 0;
  messagesOut = 0;
  bytesIn = 0;
  bytesOut = 0;
  reconnects = 0;
  since: number | null = null;
  lastError: string | null = null;
  private opened = 0;

  /** A connection (libp2p: outbound message stream) opened; every one after the first is a reconnect. */
  connected(): void {
    if (this.opened++ > 0) this.reconnects++;
    this.since = Date.now();
  }

  disconnected(error?: unknown): void {
    this.since = null;
    if (error !== undefined) this.failed(error);
  }

  failed(error: unknown): void {
    this.lastError = error instanceof Error ? error.message : String(error);
  }

  status(address: string, remote: string, queue: { length: number; dropped: number }, conduct: PeerConduct): PeerStatus {
    return {
      ...conduct,
      address,
      connected: this.since !== null,
      remote,
      since: this.since,
      messagesIn: this.messagesIn,
      messagesOut: this.messagesOut,
      bytesIn: this.bytesIn,
      bytesOut: this.bytesOut,
      queued: queue.length,
      dropped: queue.dropped,
      reconnects: this.reconnects,
      lastError: this.lastError,
    };
  }
}
