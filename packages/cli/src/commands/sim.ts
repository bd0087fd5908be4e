import { unsafeQuorumFromEnv } from "@chainsim/node";
import { shrink, simulate, type SimulationOptions } from "@chainsim/sim";
import { integerFlag, parseCommandArgs, usageError } from "../args.js";
import { loadManifest } from "../manifest.js";
import { networkConfigs } from "../network-config.js";
import { DEFAULT_MANIFEST_PATH } from "../paths.js";
import { formatReplay, formatSeeds, runSeeds } from "../sim/sim-runs.js";

/**
 * `chainsim sim [MANIFEST] --seeds N [--from S] [--duration-ms MS] [--json]` and
 * `chainsim sim [MANIFEST] --replay SEED [--shrink]`: the whole network in this process on a virtual clock,
 * one run per seed (docs/simulation.md). Exit 1 when a seed fails.
 */
export async function sim(args: string[]): Promise<number> {
  const { positionals, values } = parseCommandArgs(
    "sim",
    args,
    { seeds: { type: "string" }, from: { type: "string" }, replay: { type: "string" }, shrink: { type: "boolean" }, "duration-ms": { type: "string" }, json: { type: "boolean" } },
    1,
  );
  const replay = integerFlag("replay", values.replay);
  if (replay !== undefined && values.seeds !== undefined) throw usageError("sim: --seeds and --replay exclude each other");
  if (values.shrink && replay === undefined) throw usageError("sim: --shrink goes with --replay SEED");
  const manifest = await loadManifest(positionals[0] ?? DEFAULT_MANIFEST_PATH);
  const options: Omit<SimulationOptions, "seed"> = {
    // only the validators' identities and settings count: nothing listens, nothing is written
    configs: networkConfigs(manifest, { dataDir: "/nonexistent/chainsim-sim", portBase: manifest.port_base }),
    genesisPrivateKey: manifest.genesis.account.private_key,
    durationMs: integerFlag("duration-ms", values["duration-ms"]),
    unsafeQuorum: unsafeQuorumFromEnv() ?? undefined,
  };
  if (replay !== undefined) {
    const result = await simulate({ ...options, seed: replay });
    const shown = values.shrink && !result.ok ? await shrink({ ...options, seed: replay }, result, (step) => process.stderr.write(`shrinking: ${step.faults} faults: ${step.failed ? "still fails" : "passes"}\n`)) : result;
    process.stdout.write((values.json ? JSON.stringify({ ...shown, trace: undefined }) : formatReplay(shown, shown === result ? undefined : result)) + "\n");
    return shown.ok ? 0 : 1;
  }
  const count = integerFlag("seeds", values.seeds) ?? 10;
  const from = integerFlag("from", values.from) ?? 1;
  if (count < 1) throw usageError("sim: --seeds should be at least 1");
  const { report, results } = await runSeeds(options, from, count, (result, ms) =>
    process.stderr.write(`seed ${result.seed}: ${result.ok ? "pass" : `FAIL (${result.failures[0]!.invariant})`}, ${result.ledgers} ledgers, ${(ms / 1000).toFixed(1)} s\n`),
  );
  process.stdout.write((values.json ? JSON.stringify(report) : formatSeeds(results, report)) + "\n");
  return report.failed.length === 0 ? 0 : 1;
}
