import { CHANNELS, type Channel } from "./peer-network.js";

// Every stream carries frames: a 4-byte big-endian length, then that many bytes: one tag byte and the
// body. On the message stream the tag is the channel; on a request stream a response's tag is its status.

/** The largest frame accepted (tag + body): big enough for a ledger with proofs, small enough to bound memory. */
export const MAX_FRAME_BYTES = 32 * 1024 * 1024;
const HEADER_BYTES = 5;

export function channelTag(channel: Channel): number {
  const tag = CHANNELS.indexOf(channel);
  if (tag < 0) throw new Error(`unknown channel ${JSON.stringify(channel)}`);
  return tag;
}

export function tagChannel(tag: number): Channel {
  const channel = CHANNELS[tag];
  if (channel === undefined) throw new Error(`frame names unknown channel tag ${tag}`);
  return channel;
}

/** A frame header naming a length outside 1..MAX_FRAME_BYTES: the rest of the stream cannot be framed. */
export class FrameLengthError extends Error {}

export interface Frame {
  tag: number;
  body: Uint8Array;
}

export function encodeFrame(tag: number, body: Uint8Array): Uint8Array {
  if (body.length + 1 > MAX_FRAME_BYTES) throw new Error(`frame of ${body.length} bytes exceeds ${MAX_FRAME_BYTES}`);
  const frame = new Uint8Array(HEADER_BYTES + body.length);
  new DataView(frame.buffer).setUint32(0, body.length + 1);
  frame[4] = tag;
  frame.set(body, HEADER_BYTES);
  return frame;
}

/**
 * Reassembles frames from chunks as they arrive (a chunk may hold part of a frame, or many). Chunks are kept
 * as they come and joined once per frame: joining them at every chunk copied a 9 MB frame, arriving in
 * 64 KiB pieces, 140 times over (630 MB a PRE-PREPARE, most of a validator's time in the garbage collector).
 */
export class FrameDecoder {
  private readonly chunks: Uint8Array[] = [];
  private buffered = 0;
  /** The length (tag + body) of the frame at the front, once its header was read. */
  private expected: number | undefined;

  /** `maxFrameBytes`: the largest frame this stream may carry (request streams carry small ones). */
  constructor(private readonly maxFrameBytes = MAX_FRAME_BYTES) {}

  /** Bytes of a frame not complete yet: a stream ending with some ended in the middle of a frame. */
  get partial(): number {
    return this.buffered + (this.expected === undefined ? 0 : 4);
  }

  /** The frames completed by `chunk`; throws on a frame longer than maxFrameBytes or of length 0. */
  push(chunk: Uint8Array): Frame[] {
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
    }
    const frames: Frame[] = [];
    for (;;) {
      if (this.expected === undefined) {
        if (this.buffered < 4) break;
        const header = this.take(4);
        const length = new DataView(header.buffer).getUint32(0);
        if (length === 0 || length > this.maxFrameBytes) throw new FrameLengthError(`frame length ${length} is outside 1..${this.maxFrameBytes}`);
        this.expected = length;
      }
      if (this.buffered < this.expected) break;
      const tag = this.take(1)[0]!;
      // a copy into a plain Uint8Array: a handler may keep the body, and chunks may be Buffers over pooled memory
      frames.push({ tag, body: this.take(this.expected - 1) });
      this.expected = undefined;
    }
    return frames;
  }

  /** The next `count` bytes, copied out of the chunks, which give them up. */
  private take(count: number): Uint8Array {
    const out = new Uint8Array(count);
    let filled = 0;
    while (filled < count) {
      const first = this.chunks[0]!;
      const used = Math.min(first.length, count - filled);
      out.set(first.subarray(0, used), filled);
      filled += used;
      if (used === first.length) this.chunks.shift();
      else this.chunks[0] = first.subarray(used);
    }
    this.buffered -= count;
    return out;
  }
}
