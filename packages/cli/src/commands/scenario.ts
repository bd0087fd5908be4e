import { randomInt } from "node:crypto";
import { integerFlag, parseCommandArgs, usageError } from "../args.js";
import { COMPOSE_OPTIONS, composeChoice, composePortBase, withComposeDefault } from "../containers/compose-args.js";
import { loadManifest } from "../manifest.js";
import { formatReport } from "../scenario/report.js";
import { runScenario } from "../scenario/runner.js";

/**
 * `chainsim scenario MANIFEST [--seed N] [--liveness-bound-ms MS] [--port-base P] [--data-dir D | --compose [FILE] [--project NAME]] [--json]`:
 * exit 0 only when every invariant holds. With --compose the validators are the compose project's containers.
 */
export async function scenario(args: string[]): Promise<number> {
  const { positionals, values } = parseCommandArgs(
    "scenario",
    withComposeDefault(args),
    { seed: { type: "string" }, "liveness-bound-ms": { type: "string" }, "port-base": { type: "string" }, "data-dir": { type: "string" }, json: { type: "boolean" }, ...COMPOSE_OPTIONS },
    1,
  );
  if (!positionals[0]) throw usageError("scenario: name a manifest, e.g. `chainsim scenario networks/ci.toml`");
  const compose = composeChoice("scenario", values);
  if (compose && values["data-dir"] !== undefined) throw usageError("scenario: --data-dir and --compose exclude each other (the containers keep their data in volumes)");
  if (values["port-base"] !== undefined && values["data-dir"] === undefined && !compose) throw usageError("scenario: --port-base goes with --data-dir or --compose (a temporary network takes free ports)");
  const manifest = await loadManifest(positionals[0]);
  const seed = integerFlag("seed", values.seed) ?? randomInt(2 ** 31);
  process.stderr.write(`seed ${seed}\n`);
  const portBase = integerFlag("port-base", values["port-base"]);
  const report = await runScenario(manifest, {
    seed,
    dataDir: values["data-dir"],
    portBase: compose ? composePortBase(portBase, manifest.port_base) : portBase,
    compose,
    livenessBoundMs: integerFlag("liveness-bound-ms", values["liveness-bound-ms"]),
    onProgress: (message) => process.stderr.write(`${message}\n`),
  });
  process.stdout.write((values.json ? JSON.stringify(report) : formatReport(report)) + "\n");
  return report.verdict === "pass" ? 0 : 1;
}
