import { expect } from "chai";
import { BYZANTINE_BEHAVIORS } from "./sim/adversary.js";
import { Simulation, type SimulationOptions, type SimulationResult } from "./sim/simulation.js";

/** Runs one simulation per seed: the failing runs with what they violated, and what all runs exercised. */
function runSeeds(seeds: number[], options: (seed: number) => SimulationOptions): { failures: string[]; total: SimulationResult["stats"] } {
  const failures: string[] = [];
  const total = { viewChanges: 0, stableCheckpoints: 0, stateTransfers: 0, nullCommits: 0 };
  for (const seed of seeds) {
    const result = new Simulation(options(seed)).run();
    for (const key of Object.keys(total) as (keyof typeof total)[]) total[key] += result.stats[key];
    if (result.violations.length > 0) {
      const first = result.violations.slice(0, 3).map((v) => `${v.assertion}: ${v.message}`);
      failures.push(`seed ${seed}: ${first.join("; ")} (heights ${result.heights}, views ${result.views})`);
      if (FAIL_FAST) break;
    }
  }
  return { failures, total };
}

/** Stop a scenario at its first failing seed (mutation testing wants a verdict, not every failure). */
const FAIL_FAST = process.env.CHAINSIM_SIM_FAIL_FAST === "1";
const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);
/** Seeds per adversarial scenario and validator count; CHAINSIM_SIM_SEEDS runs more (or fewer). */
const ADVERSARY_SEEDS = Number(process.env.CHAINSIM_SIM_SEEDS ?? 100);
/** Scenarios of long virtual runs (slow links, idling) take a quarter as many (each run costs four), and so do targeted ones. */
const LONG_RUN_SEEDS = Math.max(5, Math.round(ADVERSARY_SEEDS / 4));

describe("PBFT simulation (seeded: lossy, duplicating, reordering links; agreement, validity, inOrder, liveness)", function () {
  // About 30 s per scenario of 100 seeds with n = 7 on an idle machine; CI machines are 2-3× slower at times.
  // The mutation test sets CHAINSIM_SIM_TIMEOUT_MS=0 (none): it times whole runs, against its baseline's.
  this.timeout(Number(process.env.CHAINSIM_SIM_TIMEOUT_MS ?? Math.max(120_000, ADVERSARY_SEEDS * 3_000)));

  it("n=4: 120 runs, half with a replica crashing (some restart from their snapshot), a third pipelining", () => {
    const { failures, total } = runSeeds(range(1, 120), (seed) => ({
      seed,
      n: 4,
      crashes: seed % 2,
      restart: seed % 4 === 1,
      ...(seed % 3 === 0 && { pipeline: 3, proposeIntervalMs: 30 }),
    }));
    expect(failures).to.deep.equal([]);
    // The runs are rough enough to exercise every path, not only the normal case.
    for (const count of Object.values(total)) expect(count).to.be.greaterThan(0);
  });

  it("n=4: 40 runs with an equivocating primary", () => {
    const { failures } = runSeeds(range(1000, 40), (seed) => ({ seed, n: 4, equivocatingPrimary: true, pipeline: 1 + (seed % 3) }));
    expect(failures).to.deep.equal([]);
  });

  it("n=7: 25 runs with up to two replicas crashing", () => {
    const { failures } = runSeeds(range(2000, 25), (seed) => ({ seed, n: 7, crashes: seed % 3, restart: seed % 2 === 0 }));
    expect(failures).to.deep.equal([]);
  });

  it("n=1: 10 runs, the lone validator commits alone", () => {
    const { failures } = runSeeds(range(3000, 10), (seed) => ({ seed, n: 1 }));
    expect(failures).to.deep.equal([]);
  });

  // Targeted schedules first: they are cheap, and test:mutants stops at the first failing scenario.
  it(`n=4: ${LONG_RUN_SEEDS} runs in which one replica hears no CHECKPOINT for a while, then the network idles: a re-sent one gets it the stable proof`, () => {
    const { failures } = runSeeds(range(21000, LONG_RUN_SEEDS), (seed) => ({
      seed,
      n: 4,
      ckpInterval: 2 + (seed % 3),
      checkpointTail: { ms: 1000 + (seed % 4) * 500, lose: "to" },
      idleMs: 1000,
    }));
    expect(failures).to.deep.equal([]);
  });

  it(`n=4: ${LONG_RUN_SEEDS} runs in which, with one replica down for good, another loses each CHECKPOINT it sends and crashes right after, then the network idles`, () => {
    const { failures } = runSeeds(range(22000, LONG_RUN_SEEDS), (seed) => ({
      seed,
      n: 4,
      crashes: 1,
      permanentCrashes: 1,
      ckpInterval: 2 + (seed % 3),
      checkpointTail: { ms: 1000 + (seed % 4) * 500, lose: "from-then-crash" },
      idleMs: 1000,
    }));
    expect(failures).to.deep.equal([]);
  });

  it(`n=4: ${ADVERSARY_SEEDS} runs in which the primary goes down for good, the next one (Byzantine) withholds its NEW-VIEW and sends pre-prepares of views far ahead, and the next NEW-VIEW arrives after its pre-prepares: view 2 lasts`, () => {
    const { failures } = runSeeds(range(23000, ADVERSARY_SEEDS), (seed) => ({
      seed,
      n: 4,
      crashing: [0],
      permanentCrashes: 1,
      byzantine: { replica: 1, behaviors: seed % 2 === 0 ? ["withheld-new-view"] : ["withheld-new-view", "future-pre-prepares"] },
      chaos: { minDelayMs: 1, maxDelayMs: 20, dropRate: 0, duplicateRate: 0 },
      newViewDelayMs: 150,
      // A state transfer and a slow value check must fit in one timeout: nothing else may end view 2.
      viewTimeoutMs: 1000,
      maxView: 2,
      pipeline: 1 + (seed % 3),
    }));
    expect(failures).to.deep.equal([]);
  });

  it(`n=4 to 7: ${LONG_RUN_SEEDS} runs with partitions and a Byzantine replica whose VIEW-CHANGEs re-sign certificates as if it had pre-prepared them`, () => {
    const { failures } = runSeeds(range(24000, LONG_RUN_SEEDS), (seed) => {
      const n = [4, 5, 6, 7][seed % 4];
      return { seed, n, byzantine: { replica: seed % n, behaviors: ["misattributed-certificate"] }, partitions: true, pipeline: 3, proposeIntervalMs: 30 };
    });
    expect(failures).to.deep.equal([]);
  });

  for (const n of [4, 5, 6, 7]) {
    it(`n=${n}: ${ADVERSARY_SEEDS} runs with a Byzantine replica (conflicting, out-of-window and replayed votes, forged VIEW-CHANGEs, bad NEW-VIEWs)`, () => {
      const f = Math.floor((n - 1) / 3);
      const { failures, total } = runSeeds(range(5000 + 100 * n, ADVERSARY_SEEDS), (seed) => ({
        seed,
        n,
        byzantine: { replica: seed % n, behaviors: BYZANTINE_BEHAVIORS.filter((_, k) => (seed >> k) % 2 === 1 || k === seed % BYZANTINE_BEHAVIORS.length) },
        crashes: f - 1,
        restartAnytime: seed % 2 === 0,
        pipeline: 1 + (seed % 2),
      }));
      expect(failures).to.deep.equal([]);
      expect(total.viewChanges).to.be.greaterThan(0);
    });

    it(`n=${n}: ${ADVERSARY_SEEDS} runs with partitions that heal, crashes and restarts at any instant, and values that fail the check`, () => {
      const f = Math.floor((n - 1) / 3);
      const { failures, total } = runSeeds(range(9000 + 100 * n, ADVERSARY_SEEDS), (seed) => ({
        seed,
        n,
        partitions: true,
        crashes: f,
        restartAnytime: true,
        invalidValues: 0.1,
        ckpInterval: 2 + (seed % 3),
      }));
      expect(failures).to.deep.equal([]);
      for (const count of [total.viewChanges, total.stableCheckpoints, total.stateTransfers]) expect(count).to.be.greaterThan(0);
    });
  }

  it(`n=7: ${ADVERSARY_SEEDS} runs with two colluding Byzantine replicas forging prepared certificates`, () => {
    const { failures } = runSeeds(range(16000, ADVERSARY_SEEDS), (seed) => ({
      seed,
      n: 7,
      byzantine: { replica: seed % 7, accomplice: (seed + 1 + (seed % 3)) % 7, behaviors: ["forged-certificate"] },
      pipeline: 1 + (seed % 3),
    }));
    expect(failures).to.deep.equal([]);
  });

  it(`n=4: ${ADVERSARY_SEEDS} runs with an equivocating primary that also replays old messages, while a backup crashes and restarts`, () => {
    const { failures } = runSeeds(range(13000, ADVERSARY_SEEDS), (seed) => ({
      seed,
      n: 4,
      equivocatingPrimary: true,
      byzantine: { replica: 0, behaviors: ["replay"] },
      crashes: 1,
      restartAnytime: true,
      pipeline: 1 + (seed % 3),
    }));
    expect(failures).to.deep.equal([]);
  });

  it(`n=4: ${ADVERSARY_SEEDS} runs with a fully Byzantine primary (two versions of each value, COMMITs for both, the other version to replicas that restart)`, () => {
    const { failures } = runSeeds(range(15000, ADVERSARY_SEEDS), (seed) => ({
      seed,
      n: 4,
      equivocatingPrimary: true,
      fullyByzantinePrimary: true,
      crashes: 1,
      restartAnytime: true,
      restartDelayMs: [5, 60],
      // Calm links: no view change ends the attack before a restarted replica hears the other story.
      chaos: { minDelayMs: 1, maxDelayMs: 20, dropRate: 0, duplicateRate: 0 },
      pipeline: 1 + (seed % 3),
    }));
    expect(failures).to.deep.equal([]);
  });

  it(`n=4: ${ADVERSARY_SEEDS} runs losing most CHECKPOINTs while the network is rough`, () => {
    const { failures, total } = runSeeds(range(14000, ADVERSARY_SEEDS), (seed) => ({ seed, n: 4, ckpInterval: 2, checkpointLoss: 0.7, crashes: seed % 2 }));
    expect(failures).to.deep.equal([]);
    expect(total.stableCheckpoints).to.be.greaterThan(0);
  });

  it(`n=4: ${LONG_RUN_SEEDS} runs whose links stay slower than the view timeout after healing: only the timeout's backoff lets views finish`, () => {
    const { failures, total } = runSeeds(range(17000, LONG_RUN_SEEDS), (seed) => ({
      seed,
      n: 4,
      crashes: seed % 2,
      viewTimeoutMs: 150,
      healed: { minDelayMs: 100, maxDelayMs: 250, dropRate: 0, duplicateRate: 0 },
    }));
    expect(failures).to.deep.equal([]);
    expect(total.viewChanges).to.be.greaterThan(0);
  });

  it(`n=4 and 7: ${LONG_RUN_SEEDS} runs in which every NEW-VIEW arrives after the new view's first pre-prepares`, () => {
    const { failures } = runSeeds(range(18000, LONG_RUN_SEEDS), (seed) => ({
      seed,
      n: seed % 2 === 0 ? 4 : 7,
      crashes: seed % 2 === 0 ? 1 : 2,
      restart: seed % 4 < 2,
      newViewDelayMs: 150,
      pipeline: 1 + (seed % 3),
    }));
    expect(failures).to.deep.equal([]);
  });

  it(`n=4: ${ADVERSARY_SEEDS} runs losing most CHECKPOINTs with one replica down for good and another crashing and restarting`, () => {
    const { failures } = runSeeds(range(19000, ADVERSARY_SEEDS), (seed) => ({ seed, n: 4, ckpInterval: 2, checkpointLoss: 0.7, crashes: 2, restartAnytime: true, permanentCrashes: 1 }));
    expect(failures).to.deep.equal([]);
  });

  it(`n=4, 5 and 7: ${LONG_RUN_SEEDS} idle networks keep their view while a Byzantine replica votes for a seq nobody proposed`, () => {
    const { failures } = runSeeds(range(20000, LONG_RUN_SEEDS), (seed) => {
      const n = [4, 5, 7][seed % 3];
      return { seed, n, byzantine: { replica: seed % n, behaviors: ["phantom-votes"] }, idleMs: 8_000 };
    });
    expect(failures).to.deep.equal([]);
  });

  it("the checkers catch broken replicas: unsafeQuorum=1 with an equivocating primary breaks agreement", () => {
    const results = range(4000, 10).map((seed) => new Simulation({ seed, n: 4, equivocatingPrimary: true, unsafe: { replicas: [1, 2], quorum: 1 } }).run());
    const broken = results.filter((r) => r.violations.some((v) => v.assertion === "agreement"));
    expect(broken.length).to.be.greaterThan(0);
  });
});
