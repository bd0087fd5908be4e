import { parseCommandArgs, usageError } from "../args.js";
import { COMPOSE_OPTIONS, openComposeFromArgs, withComposeDefault } from "../containers/compose-args.js";
import { CliError } from "../errors.js";
import { loadManifest } from "../manifest.js";
import { networkRecordPath, readNetworkRecord } from "../network-record.js";
import { readNetworkStatus, statusRows } from "../network-status.js";
import { formatTable } from "../output.js";
import { DEFAULT_MANIFEST_PATH } from "../paths.js";
import { defaultDataDir } from "./up.js";

const WATCH_INTERVAL_MS = 1000;

/** `chainsim status [MANIFEST] [--data-dir D | --nodes URL,... | --compose [FILE] [--project NAME]] [--watch] [--json]`: one table across nodes. */
export async function status(args: string[]): Promise<number> {
  const { positionals, values } = parseCommandArgs("status", withComposeDefault(args), { ...NODES_OPTIONS, watch: { type: "boolean" }, json: { type: "boolean" } }, 1);
  const nodes = await chosenNodes("status", positionals[0], values);
  const show = async () => {
    const network = await readNetworkStatus(nodes);
    if (values.json) {
      process.stdout.write(JSON.stringify(network) + "\n");
      return network;
    }
    const text = formatTable(statusRows(network));
    process.stdout.write((values.watch ? `\x1b[2J\x1b[H${new Date().toISOString()}\n` : "") + text + "\n");
    if (network.mismatch) process.stdout.write(`ledger hashes differ at seq ${network.common_seq}: the network has forked\n`);
    return network;
  };
  if (!values.watch) {
    const network = await show();
    return network && network.nodes.every((n) => !n.error) && !network.mismatch ? 0 : 1;
  }
  for (;;) {
    await show();
    await new Promise((resolve) => setTimeout(resolve, WATCH_INTERVAL_MS));
  }
}

/** How `status` and `dashboard` name the network they watch. */
export const NODES_OPTIONS = { "data-dir": { type: "string" }, nodes: { type: "string" }, ...COMPOSE_OPTIONS } as const;

/** The nodes of --nodes, of a --compose project, or of the network recorded in --data-dir (default: the manifest's). */
export async function chosenNodes(command: string, manifestPath: string | undefined, values: { "data-dir"?: string; nodes?: string; compose?: string; project?: string }): Promise<{ name: string; http: string }[]> {
  if (values.nodes && values["data-dir"]) throw usageError(`${command}: give --data-dir or --nodes, not both`);
  if (values.nodes) {
    if (values.compose !== undefined) throw usageError(`${command}: --nodes and --compose exclude each other`);
    return nodesFromUrls(values.nodes);
  }
  const manifest = await loadManifest(manifestPath ?? DEFAULT_MANIFEST_PATH);
  const compose = await openComposeFromArgs(command, values, { "data-dir": values["data-dir"] }, manifest, (message) => process.stderr.write(`${message}\n`));
  return compose ? compose.nodes : nodesFromRecord(values["data-dir"] ?? defaultDataDir(manifest.name));
}

function nodesFromUrls(list: string): { name: string; http: string }[] {
  return list.split(",").map((url) => {
    const http = url.trim().replace(/\/+$/, "");
    if (!/^https?:\/\/[^/]+$/.test(http)) throw usageError(`--nodes: ${JSON.stringify(url)} is not a node URL`, "Example: --nodes http://127.0.0.1:16002,http://127.0.0.1:16012");
    return { name: http.replace(/^https?:\/\//, ""), http };
  });
}

async function nodesFromRecord(dataDir: string): Promise<{ name: string; http: string }[]> {
  const record = await readNetworkRecord(dataDir);
  if (!record) {
    throw new CliError(`no network is recorded in ${networkRecordPath(dataDir)}`, "Start one with `chainsim up`, or name its nodes with --nodes URL,...");
  }
  return record.nodes.map((n) => ({ name: n.name, http: n.http }));
}
