import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect } from "chai";
import { BIN_PATH } from "@chainsim/cli";

const run = promisify(execFile);
const network = (name: string) => fileURLToPath(new URL(`../../../networks/${name}.toml`, import.meta.url));

/**
 * CI's budget of whole-network simulation seeds (docs/simulation.md, "In CI"), through `chainsim sim`:
 * CHAINSIM_SIM_BUDGET="local-4 seeds,local-7 seeds" (default 300,10), each run 8 s of virtual load and faults.
 * `chainsim sim networks/local-4.toml --seeds 1000` runs more on a machine of your own.
 */
const [LOCAL4_SEEDS, LOCAL7_SEEDS] = (process.env.CHAINSIM_SIM_BUDGET ?? "300,10").split(",").map(Number);
const DURATION_MS = "8000";

describe("e2e: chainsim sim, CI's budget of seeds", function () {
  this.timeout(30 * 60_000);

  for (const [name, seeds] of [["local-4", LOCAL4_SEEDS], ["local-7", LOCAL7_SEEDS]] as const) {
    it(`${name}: ${seeds} seeds, every invariant holds in every one`, async () => {
      const { stdout } = await run(process.execPath, ["--no-node-snapshot", BIN_PATH, "sim", network(name), "--seeds", String(seeds), "--duration-ms", DURATION_MS, "--json"], { maxBuffer: 64 * 1024 * 1024 }).catch((error) => {
        // exit 1: a seed failed; the JSON says which
        if (error.stdout) return { stdout: error.stdout as string };
        throw error;
      });
      const report = JSON.parse(stdout) as { runs: number; failed: { seed: number; invariant: string; detail: string }[]; seeds_per_minute: number; simulated_seconds_per_run: number };
      console.log(`      ${report.runs} seeds, ${report.seeds_per_minute} per minute, ${report.simulated_seconds_per_run} simulated s each`);
      expect(report.failed, `replay with: chainsim sim networks/${name}.toml --replay SEED --duration-ms ${DURATION_MS}`).to.deep.equal([]);
      expect(report.runs).to.equal(seeds);
    });
  }
});
