import { writeFile } from "node:fs/promises";
import { unsafeQuorumFromEnv } from "@chainsim/node";
import { shrink, simulate, traceFileText, type SimulationOptions } from "@chainsim/sim";
import { integerFlag, parseCommandArgs, usageError } from "../args.js";
import { CliError } from "../errors.js";
import { loadManifest } from "../manifest.js";
import { networkConfigs } from "../network-config.js";
import { DEFAULT_MANIFEST_PATH } from "../paths.js";
import { formatReplay, formatSeeds, runSeeds } from "../sim/sim-runs.js";
import { listenFailure } from "../page-server.js";
import { serveTraceView } from "../sim/view-server.js";

/** The largest seed: a run's random streams are seeded with 32 bits of it. */
const MAX_SEED = 2 ** 32 - 1;

const traceError = (file: string) => (error: NodeJS.ErrnoException) => {
  throw new CliError(`cannot write the trace to ${file} (${error.code ?? error.message})`, "Name a file in a directory you can write");
};

/**
 * `chainsim sim [MANIFEST] --seeds N [--from S] [--jobs J] [--duration-ms MS] [--json]` and
 * `chainsim sim [MANIFEST] --replay SEED [--shrink] [--trace FILE] [--view [--port P] [--host H]]`: the whole
 * network in this process on a virtual clock, one run per seed (docs/simulation.md). Exit 1 when a seed
 * fails; with --view it serves the replayed run's trace until Ctrl-C.
 */
export async function sim(args: string[]): Promise<number | undefined> {
  const { positionals, values } = parseCommandArgs(
    "sim",
    args,
    {
      seeds: { type: "string" },
      from: { type: "string" },
      replay: { type: "string" },
      shrink: { type: "boolean" },
      trace: { type: "string" },
      view: { type: "boolean" },
      port: { type: "string" },
      host: { type: "string" },
      "duration-ms": { type: "string" },
      jobs: { type: "string" },
      json: { type: "boolean" },
    },
    1,
  );
  const replay = integerFlag("replay", values.replay);
  if (replay !== undefined && values.seeds !== undefined) throw usageError("sim: --seeds and --replay exclude each other");
  for (const flag of ["shrink", "trace", "view"] as const) if (values[flag] !== undefined && replay === undefined) throw usageError(`sim: --${flag} goes with --replay SEED`);
  if ((values.port !== undefined || values.host !== undefined) && !values.view) throw usageError("sim: --port and --host go with --view");
  // a run draws from 32-bit seeds: a larger one would replay another's run (4294967303 is seed 7)
  if (replay !== undefined && replay > MAX_SEED) throw usageError(`sim: --replay should be at most ${MAX_SEED}`);
  if (values.jobs !== undefined && replay !== undefined) throw usageError("sim: --jobs goes with --seeds");
  const jobs = integerFlag("jobs", values.jobs) ?? 1;
  if (jobs < 1) throw usageError("sim: --jobs should be at least 1");
  const port = integerFlag("port", values.port) ?? 0;
  if (port > 65_535) throw usageError(`sim: --port should be at most 65535, got ${port}`);
  const manifest = await loadManifest(positionals[0] ?? DEFAULT_MANIFEST_PATH);
  const options: Omit<SimulationOptions, "seed"> = {
    // only the validators' identities and settings count: nothing listens, nothing is written
    configs: networkConfigs(manifest, { dataDir: "/nonexistent/chainsim-sim", portBase: manifest.port_base }),
    genesisPrivateKey: manifest.genesis.account.private_key,
    durationMs: integerFlag("duration-ms", values["duration-ms"]),
    unsafeQuorum: unsafeQuorumFromEnv() ?? undefined,
  };
  if (replay !== undefined) {
    // a trace file that cannot be written is said before the run, not after it (and a shrink)
    if (values.trace !== undefined) await writeFile(values.trace, "").catch(traceError(values.trace));
    const traced = { ...options, seed: replay, keepTrace: values.trace !== undefined || values.view === true };
    const result = await simulate(traced);
    const shown = values.shrink && !result.ok ? await shrink(traced, result, (step) => process.stderr.write(`shrinking: ${step.faults} faults: ${step.failed ? "still fails" : "passes"}\n`)) : result;
    process.stdout.write((values.json ? JSON.stringify({ ...shown, trace: undefined }) : formatReplay(shown, shown === result ? undefined : result)) + "\n");
    const nodes = manifest.nodes.map((node) => node.name);
    if (values.trace !== undefined) {
      await writeFile(values.trace, traceFileText(shown, nodes)).catch(traceError(values.trace));
      process.stderr.write(`trace: ${shown.trace!.length} entries in ${values.trace}\n`);
    }
    if (!values.view) return shown.ok ? 0 : 1;
    const host = values.host ?? "127.0.0.1";
    const server = await serveTraceView(traceFileText(shown, nodes), { port, host }).catch(listenFailure(port, host));
    process.stdout.write(`trace view of seed ${replay}: ${server.url}  (Ctrl-C to stop)\n`);
    process.once("SIGINT", () => void server.close().then(() => process.exit(0)));
    return undefined;
  }
  const count = integerFlag("seeds", values.seeds) ?? 10;
  const from = integerFlag("from", values.from) ?? 1;
  if (count < 1) throw usageError("sim: --seeds should be at least 1");
  if (from + count - 1 > MAX_SEED) throw usageError(`sim: seeds run up to ${MAX_SEED}; --from ${from} --seeds ${count} goes past it`);
  const { report, results } = await runSeeds(
    options,
    from,
    count,
    (result, ms) => process.stderr.write(`seed ${result.seed}: ${result.ok ? "pass" : `FAIL (${result.failures[0]!.invariant})`}, ${result.ledgers} ledgers, ${(ms / 1000).toFixed(1)} s\n`),
    jobs,
  );
  process.stdout.write((values.json ? JSON.stringify(report) : formatSeeds(results, report)) + "\n");
  return report.failed.length === 0 ? 0 : 1;
}
