import { readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { CliError } from "./errors.js";
import { isValidatorRunning } from "./processes.js";

/** A launched validator as `up --json` reports it (http and ws are full URLs; p2p is host:port). */
export interface NodeEndpoint {
  name: string;
  address: string;
  http: string;
  ws: string;
  p2p: string;
  pid: number;
}

/** `<dataDir>/network.json`: what `down` and `status` need to find a running network. */
export interface NetworkRecord {
  network: string;
  manifest: string;
  data_dir: string;
  port_base: number;
  detached: boolean;
  /** The `chainsim up` process; for a foreground network it stops the validators on Ctrl-C. */
  launcher_pid: number;
  started_at: string;
  nodes: (NodeEndpoint & { config_file: string; log_file: string })[];
}

export function networkRecordPath(dataDir: string): string {
  return join(resolve(dataDir), "network.json");
}

/** The record in `dataDir`, or undefined when there is none. */
export async function readNetworkRecord(dataDir: string): Promise<NetworkRecord | undefined> {
  const file = networkRecordPath(dataDir);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const broken = () => new CliError(`${file} is not a network record`, "Delete it if no network runs from that directory");
  let record: NetworkRecord;
  try {
    record = JSON.parse(text) as NetworkRecord;
  } catch {
    throw broken();
  }
  if (!Array.isArray(record?.nodes) || !record.nodes.every((n) => Number.isInteger(n?.pid) && typeof n.config_file === "string")) {
    throw broken();
  }
  return record;
}

export async function writeNetworkRecord(record: NetworkRecord): Promise<void> {
  await writeFile(networkRecordPath(record.data_dir), JSON.stringify(record, null, 2) + "\n");
}

export async function removeNetworkRecord(dataDir: string): Promise<void> {
  await rm(networkRecordPath(dataDir), { force: true });
}

/** The recorded validators that are still running. */
export function runningNodes(record: NetworkRecord): NetworkRecord["nodes"] {
  return record.nodes.filter((node) => isValidatorRunning(node.pid, node.config_file));
}
