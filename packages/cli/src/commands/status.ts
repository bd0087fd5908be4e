import { parseCommandArgs, usageError } from "../args.js";
import { CliError } from "../errors.js";
import { loadManifest } from "../manifest.js";
import { networkRecordPath, readNetworkRecord } from "../network-record.js";
import { readNetworkStatus, statusRows } from "../network-status.js";
import { formatTable } from "../output.js";
import { DEFAULT_MANIFEST_PATH } from "../paths.js";
import { defaultDataDir } from "./up.js";

const WATCH_INTERVAL_MS = 1000;

/** `chainsim status [MANIFEST] [--data-dir D | --nodes URL,...] [--watch] [--json]`: one table across nodes. */
export async function status(args: string[]): Promise<number> {
  const { positionals, values } = parseCommandArgs(
    "status",
    args,
    { "data-dir": { type: "string" }, nodes: { type: "string" }, watch: { type: "boolean" }, json: { type: "boolean" } },
    1,
  );
  if (values.nodes && values["data-dir"]) throw usageError("give --data-dir or --nodes, not both");
  const nodes = values.nodes ? nodesFromUrls(values.nodes) : await nodesFromRecord(values["data-dir"] ?? defaultDataDir((await loadManifest(positionals[0] ?? DEFAULT_MANIFEST_PATH)).name));
  const show = async () => {
    const network = await readNetworkStatus(nodes);
    if (values.json) return void process.stdout.write(JSON.stringify(network) + "\n");
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

export function nodesFromUrls(list: string): { name: string; http: string }[] {
  return list.split(",").map((url) => {
    const http = url.trim().replace(/\/+$/, "");
    if (!/^https?:\/\/[^/]+$/.test(http)) throw usageError(`--nodes: ${JSON.stringify(url)} is not a node URL`, "Example: --nodes http://127.0.0.1:16002,http://127.0.0.1:16012");
    return { name: http.replace(/^https?:\/\//, ""), http };
  });
}

export async function nodesFromRecord(dataDir: string): Promise<{ name: string; http: string }[]> {
  const record = await readNetworkRecord(dataDir);
  if (!record) {
    throw new CliError(`no network is recorded in ${networkRecordPath(dataDir)}`, "Start one with `chainsim up`, or name its nodes with --nodes URL,...");
  }
  return record.nodes.map((n) => ({ name: n.name, http: n.http }));
}
