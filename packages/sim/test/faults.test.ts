import { expect } from "chai";
import { seededRandom } from "@chainsim/protocol";
import { drawSchedule, overlaps, type SimFault } from "../src/faults.js";

const NODES = ["v1", "v2", "v3", "v4"];
const ADVERSARIAL = ["byzantine", "twin"];

describe("fault schedules drawn from a seed", () => {
  const schedules = Array.from({ length: 300 }, (_, seed) => drawSchedule(seededRandom(seed), NODES, 3_000, 30_000));

  it("are the same for the same seed", () => {
    expect(drawSchedule(seededRandom(7), NODES, 3_000, 30_000)).to.deep.equal(schedules[7]);
  });

  it("keep every fault inside the run's span, a partition's side with its own validator", () => {
    for (const fault of schedules.flat()) {
      expect(fault.at_ms).to.be.at.least(3_000);
      expect(fault.at_ms + fault.duration_ms).to.be.at.most(30_000);
      if (fault.kind === "partition") expect(fault.side).to.include(fault.node);
    }
  });

  it("overlap now and then, at most two at once, on two validators, never two partitions or two Byzantine ones, a wipe alone", () => {
    let pairs = 0;
    for (const schedule of schedules) {
      for (const [i, a] of schedule.entries()) {
        const during = schedule.filter((b, j) => j > i && overlaps(a, b, 0));
        for (const b of during) {
          pairs++;
          expect(b.node, JSON.stringify([a, b])).to.not.equal(a.node);
          expect(a.kind === "partition" && b.kind === "partition", JSON.stringify([a, b])).to.equal(false);
          expect(ADVERSARIAL.includes(a.kind) && ADVERSARIAL.includes(b.kind), JSON.stringify([a, b])).to.equal(false);
          expect([a.kind, b.kind], JSON.stringify([a, b])).to.not.include("wipe");
        }
        const atOnce = (t: number) => schedule.filter((f: SimFault) => f.at_ms <= t && t <= f.at_ms + f.duration_ms).length;
        expect(atOnce(a.at_ms), JSON.stringify(schedule)).to.be.at.most(2);
      }
    }
    expect(pairs).to.be.above(100);
  });
});
