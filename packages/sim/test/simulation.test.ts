import { expect } from "chai";
import { simulate } from "../src/simulation.js";
import { testNetwork } from "./network.js";

describe("whole-network simulation", function () {
  this.timeout(120_000);

  it("runs four validators without faults: every invariant holds", async () => {
    const started = performance.now();
    const result = await simulate({ ...testNetwork(4), seed: 1, durationMs: 10_000, faultKinds: [] });
    console.log(`      ${JSON.stringify({ ...result, trace: undefined })} in ${Math.round(performance.now() - started)} ms`);
    expect(result.failures).to.deep.equal([]);
    expect(result.ledgers).to.be.above(3);
    expect(result.accepted).to.be.above(10);
  });
});
