import { expect } from "chai";
import { Simulation, type SimulationOptions } from "./sim/simulation.js";

/** Runs one simulation per seed; returns the failing runs with what they violated. */
function runSeeds(seeds: number[], options: (seed: number) => SimulationOptions): string[] {
  const failures: string[] = [];
  for (const seed of seeds) {
    const result = new Simulation(options(seed)).run();
    if (result.violations.length > 0) {
      failures.push(`seed ${seed}: ${result.violations.map((v) => `${v.assertion}: ${v.message}`).slice(0, 3).join("; ")} (heights ${result.heights}, views ${result.views})`);
    }
  }
  return failures;
}

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

describe("PBFT simulation (seeded: lossy, duplicating, reordering links; agreement, validity, inOrder, liveness)", function () {
  this.timeout(60_000);

  it("n=4: 120 runs, half of them with a replica crashing (some restart from their snapshot)", () => {
    const failures = runSeeds(range(1, 120), (seed) => ({ seed, n: 4, crashes: seed % 2, restart: seed % 4 === 1 }));
    expect(failures).to.deep.equal([]);
  });

  it("n=4: 40 runs with an equivocating primary", () => {
    const failures = runSeeds(range(1000, 40), (seed) => ({ seed, n: 4, equivocatingPrimary: true }));
    expect(failures).to.deep.equal([]);
  });

  it("n=7: 25 runs with up to two replicas crashing", () => {
    const failures = runSeeds(range(2000, 25), (seed) => ({ seed, n: 7, crashes: seed % 3, restart: seed % 2 === 0 }));
    expect(failures).to.deep.equal([]);
  });

  it("n=1: 10 runs, the lone validator commits alone", () => {
    const failures = runSeeds(range(3000, 10), (seed) => ({ seed, n: 1 }));
    expect(failures).to.deep.equal([]);
  });

  it("the checkers catch broken replicas: unsafeQuorum=1 with an equivocating primary breaks agreement", () => {
    const results = range(4000, 10).map((seed) => new Simulation({ seed, n: 4, equivocatingPrimary: true, unsafe: { replicas: [1, 2], quorum: 1 } }).run());
    const agreementBroken = results.filter((r) => r.violations.some((v) => v.assertion === "agreement"));
    expect(agreementBroken.length).to.be.greaterThan(0);
  });
});
