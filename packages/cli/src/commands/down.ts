import { parseCommandArgs } from "../args.js";
import { CliError } from "../errors.js";
import { stopRecordedNetwork } from "../launcher.js";
import { loadManifest } from "../manifest.js";
import { networkRecordPath } from "../network-record.js";
import { DEFAULT_MANIFEST_PATH } from "../paths.js";
import { defaultDataDir } from "./up.js";

const OUTCOMES = {
  stopped: "stopped",
  killed: "killed (it ignored SIGTERM)",
  "not running": "was not running",
} as const;

/** `chainsim down [--data-dir D] [MANIFEST]`: stops the network recorded in D/network.json. */
export async function down(args: string[]): Promise<number> {
  const { positionals, values } = parseCommandArgs("down", args, { "data-dir": { type: "string" } }, 1);
  const dataDir = values["data-dir"] ?? defaultDataDir((await loadManifest(positionals[0] ?? DEFAULT_MANIFEST_PATH)).name);
  const result = await stopRecordedNetwork(dataDir);
  if (!result) {
    throw new CliError(
      `no network is recorded in ${networkRecordPath(dataDir)}`,
      "Nothing to stop there; for a network started with --data-dir D, run `chainsim down --data-dir D`",
    );
  }
  for (const node of result.stopped) process.stdout.write(`${node.name} (pid ${node.pid}): ${OUTCOMES[node.outcome]}\n`);
  process.stdout.write(`network ${result.record.network} is down; its data stays in ${result.record.data_dir}\n`);
  return 0;
}
