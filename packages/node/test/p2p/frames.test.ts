import { expect } from "chai";
import { encodeFrame, FrameDecoder, FrameLengthError, MAX_FRAME_BYTES } from "../../src/p2p/frames.js";

/** `bytes` cut into pieces of `size` (the last one shorter). */
function pieces(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out;
}

const join = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((part) => [...part]));

describe("frames", () => {
  it("decodes frames however the stream cuts them: one byte at a time, many frames a chunk, an empty body", () => {
    const bodies = [Uint8Array.from([1, 2, 3]), new Uint8Array(0), Uint8Array.from({ length: 300 }, (_, i) => i % 256)];
    const stream = join(...bodies.map((body, i) => encodeFrame(i, body)));
    for (const size of [1, 2, 5, 7, stream.length]) {
      const decoder = new FrameDecoder();
      const frames = pieces(stream, size).flatMap((chunk) => decoder.push(chunk));
      expect(frames.map((frame) => frame.tag), `chunks of ${size}`).to.deep.equal([0, 1, 2]);
      expect(frames.map((frame) => [...frame.body]), `chunks of ${size}`).to.deep.equal(bodies.map((body) => [...body]));
    }
  });

  it("hands out bodies of their own: changing a chunk afterwards does not change them", () => {
    const chunk = encodeFrame(0, Uint8Array.from([9, 9]));
    const [frame] = new FrameDecoder().push(chunk);
    chunk.fill(0);
    expect([...frame!.body]).to.deep.equal([9, 9]);
    expect(frame!.body.byteOffset).to.equal(0);
    expect(frame!.body.buffer.byteLength).to.equal(2);
  });

  it("refuses a frame length of 0 or past MAX_FRAME_BYTES", () => {
    const header = (length: number) => {
      const bytes = new Uint8Array(4);
      new DataView(bytes.buffer).setUint32(0, length);
      return bytes;
    };
    expect(() => new FrameDecoder().push(header(0))).to.throw(FrameLengthError, /outside 1\.\./);
    expect(() => new FrameDecoder().push(header(MAX_FRAME_BYTES + 1))).to.throw(FrameLengthError, /outside 1\.\./);
  });

  it("tells how many bytes of an unfinished frame it holds: a stream ending with some was truncated", () => {
    const frame = encodeFrame(0, Uint8Array.from([1, 2, 3]));
    const decoder = new FrameDecoder();
    expect(decoder.partial).to.equal(0);
    decoder.push(frame.subarray(0, 2));
    expect(decoder.partial).to.equal(2);
    decoder.push(frame.subarray(2, 6));
    expect(decoder.partial).to.equal(6);
    decoder.push(frame.subarray(6));
    expect(decoder.partial).to.equal(0);
  });

  it("copies each byte of a frame once, however many chunks it came in (joining at every chunk copied a 9 MB frame 140 times over)", () => {
    const body = new Uint8Array(9_000_000).fill(7);
    const chunks = pieces(encodeFrame(1, body), 64 * 1024);
    // Counts the bytes of every Uint8Array the decoder makes (it reads the global at each `new`).
    const Original = globalThis.Uint8Array;
    let allocated = 0;
    globalThis.Uint8Array = class extends Original {
      constructor(...args: unknown[]) {
        super(...(args as unknown as [number]));
        allocated += this.byteLength;
      }
    } as typeof Uint8Array;
    let frames;
    try {
      const decoder = new FrameDecoder();
      frames = chunks.flatMap((chunk) => decoder.push(chunk));
    } finally {
      globalThis.Uint8Array = Original;
    }
    expect(frames.map((frame) => frame.body.length)).to.deep.equal([body.length]);
    expect(allocated).to.be.below(body.length + 1024);
  });
});
