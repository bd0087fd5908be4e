import { expect } from "chai";
import type { PersistedState } from "@chainsim/consensus";
import { PersistThenSend } from "../src/consensus/persist-then-send.js";

/** Persist before send, also after a failed save (docs/consensus.md, "Persistence"). */
describe("PersistThenSend", () => {
  const message = (n: number) => ({ message: new Uint8Array([n]), signature: new Uint8Array(0) });
  const snapshot = (view: number) => ({ view }) as unknown as PersistedState;

  it("sends an output only after its snapshot is stored, and nothing after a failed save until a save succeeds", async () => {
    const events: string[] = [];
    let failNext = false;
    let view = 0;
    const outbound = new PersistThenSend({
      save: async (s) => {
        if (failNext) {
          failNext = false;
          throw new Error("disk full");
        }
        events.push(`saved view ${s.view}`);
      },
      snapshot: () => snapshot(view),
      send: (_to, m) => events.push(`sent ${m.message![0]}`),
      log: (line) => events.push(line.split(":").slice(0, 2).join(":")),
    });
    outbound.carry(snapshot(0), [{ to: "all", message: message(1) }]);
    outbound.carry(undefined, [{ to: 2, message: message(2) }]);
    await outbound.flushed();
    expect(events).to.deep.equal(["saved view 0", "sent 1", "sent 2"]);

    events.length = 0;
    failNext = true;
    view = 1;
    // The VIEW-CHANGE of view 1 is not stored: it does not leave, and neither does its resend (no save asked)
    // until a save of the replica's current snapshot succeeds.
    outbound.carry(snapshot(1), [{ to: "all", message: message(3) }]);
    outbound.carry(undefined, [{ to: "all", message: message(3) }]);
    await outbound.flushed();
    expect(events).to.deep.equal(["consensus: storing the snapshot failed, messages not sent", "saved view 1", "sent 3"]);
    events.length = 0;
    outbound.carry(undefined, [{ to: 1, message: message(4) }]);
    await outbound.flushed();
    expect(events).to.deep.equal(["sent 4"]);
  });
});
