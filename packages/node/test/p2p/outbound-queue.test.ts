import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { expect } from "chai";
import { OutboundQueue } from "../../src/p2p/outbound-queue.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

describe("OutboundQueue", () => {
  it("hands out frames in order, at least one and at most about maxBytes a take", () => {
    const queue = new OutboundQueue({ messages: 10, bytes: 1_000 });
    for (const size of [100, 200, 300, 400]) queue.push(new Uint8Array(size));
    expect(queue.take(350).map((frame) => frame.length)).to.deep.equal([100, 200]);
    expect(queue.take(10).map((frame) => frame.length)).to.deep.equal([300]);
    expect(queue.take(1_000).map((frame) => frame.length)).to.deep.equal([400]);
    expect(queue.length).to.equal(0);
  });

  it("drops the oldest frames past its bounds, never the newest", () => {
    const queue = new OutboundQueue({ messages: 3, bytes: 1_000 });
    for (let i = 0; i < 5; i++) queue.push(Uint8Array.of(i));
    expect(queue.take(1_000).map((frame) => frame[0])).to.deep.equal([2, 3, 4]);
    expect(queue.dropped).to.equal(2);
    queue.push(new Uint8Array(900));
    queue.push(new Uint8Array(200));
    expect(queue.take(10_000).map((frame) => frame.length)).to.deep.equal([200]);
  });

  it("keeps no reference to a frame once taken or dropped (a validator held 470 MB of sent frames)", async () => {
    const queue = new OutboundQueue({ messages: 2, bytes: 1 << 20 });
    const refs: WeakRef<Uint8Array>[] = [];
    for (let i = 0; i < 3; i++) {
      const frame = new Uint8Array(1000);
      refs.push(new WeakRef(frame));
      queue.push(frame);
    }
    queue.take(1000); // the first was dropped, the second is taken
    // A WeakRef holds its target until the current job ends.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(refs.map((ref) => ref.deref() !== undefined)).to.deep.equal([false, false, true]);
  });
});
