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

/** Reassembles frames from chunks as they arrive (a chunk may hold part of a frame, or many). */
export class FrameDecoder {
  private buffer: Uint8Array = new Uint8Array(0);

  /** The frames completed by `chunk`; throws on a frame longer than MAX_FRAME_BYTES or of length 0. */
  push(chunk: Uint8Array): Frame[] {
    this.buffer = this.buffer.length === 0 ? chunk : concat(this.buffer, chunk);
    const frames: Frame[] = [];
    let offset = 0;
    while (this.buffer.length - offset >= 4) {
      const length = new DataView(this.buffer.buffer, this.buffer.byteOffset + offset).getUint32(0);
      if (length === 0 || length > MAX_FRAME_BYTES) throw new Error(`frame length ${length} is outside 1..${MAX_FRAME_BYTES}`);
      if (this.buffer.length - offset < 4 + length) break;
      // a copy into a plain Uint8Array: a handler may keep the body, and chunks may be Buffers over pooled memory
      frames.push({ tag: this.buffer[offset + 4], body: new Uint8Array(this.buffer.subarray(offset + HEADER_BYTES, offset + 4 + length)) });
      offset += 4 + length;
    }
    this.buffer = this.buffer.subarray(offset);
    return frames;
  }

  /** Bytes of an unfinished frame. */
  get pending(): number {
    return this.buffer.length;
  }
}

export function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}
