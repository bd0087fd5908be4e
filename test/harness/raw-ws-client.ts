import { WebSocket } from "ws";
import { WsMessageType, codecs, type WsMessage } from "@chainsim/protocol";

/**
 * A WebSocket client that knows only compat.md §9: it writes WsMessage frames by hand with the protobuf
 * codecs, so tests check the wire protocol rather than the SDK's subscriber.
 */
export class RawWsClient {
  /** Every frame received, in order. */
  readonly frames: WsMessage[] = [];
  closeCode: number | undefined;
  private sequence = 100n;

  private constructor(readonly socket: WebSocket) {
    socket.on("message", (data) => this.frames.push(codecs.WsMessage.decode(data as Buffer)));
    socket.on("close", (code) => (this.closeCode = code));
  }

  static async connect(url: string): Promise<RawWsClient> {
    const socket = new WebSocket(url);
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    return new RawWsClient(socket);
  }

  /** Sends a request and resolves with the data of the response carrying its type and sequence. */
  async request(type: WsMessageType, data: Uint8Array, request = true, timeoutMs = 5_000): Promise<Uint8Array> {
    const sequence = this.sequence++;
    this.socket.send(codecs.WsMessage.encode({ type: BigInt(type), request, sequence, data }));
    const answer = await this.waitFor(`the answer to type ${type}`, (m) => !m.request && m.type === BigInt(type) && (m.sequence ?? 0n) === sequence, timeoutMs);
    return answer.data ?? new Uint8Array();
  }

  pushes(type: WsMessageType): WsMessage[] {
    return this.frames.filter((m) => m.request && m.type === BigInt(type));
  }

  /** The first frame `match` accepts, waiting for it (`match` runs on every frame at each poll: keep it cheap). */
  async waitFor(what: string, match: (m: WsMessage) => boolean, timeoutMs = 10_000): Promise<WsMessage> {
    let found: WsMessage | undefined;
    await this.waitUntil(what, () => (found = this.frames.find(match)) !== undefined, timeoutMs);
    return found!;
  }

  /**
   * Waits until `condition` (run once a poll) holds. A condition over all frames given to waitFor ran once
   * per frame: with 2,000 frames it decoded two million messages a poll, the test process stopped answering
   * the validator's pings, and the validator dropped it (flaky on a loaded machine).
   */
  async waitUntil(what: string, condition: () => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (condition()) return;
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  close(): void {
    this.socket.terminate();
  }
}
