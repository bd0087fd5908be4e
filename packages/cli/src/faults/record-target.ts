import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { CliError } from "../errors.js";
import { wipeNodeData } from "../launcher.js";
import { networkRecordPath, readNetworkRecord, runningNodes, writeNetworkRecord, type NetworkRecord } from "../network-record.js";
import { freezeValidator, isValidatorRunning, stopProcess } from "../processes.js";
import { spawnValidator, waitForNodes } from "../validator.js";
import { partitionRulesAgainst, type StatefulTarget } from "./node-state.js";

/**
 * Faults on a network another `chainsim up` started, found through `<dataDir>/network.json`. A validator
 * started here runs detached (it must outlive this command), and its new pid is written back to the record
 * so `down`, `status` and later faults find it.
 */
export async function recordTarget(dataDir: string, onProgress: (message: string) => void): Promise<StatefulTarget> {
  const record = await readNetworkRecord(dataDir);
  if (!record) throw new CliError(`no network is recorded in ${networkRecordPath(dataDir)}`, "Start one with `chainsim up --detach` (or pass its --data-dir)");
  if (runningNodes(record).length === 0) throw new CliError(`network ${record.network} in ${dataDir} is not running`, `Start it with \`chainsim up --data-dir ${dataDir}\``);
  const entry = (name: string): NetworkRecord["nodes"][number] => {
    const node = record.nodes.find((n) => n.name === name);
    if (!node) throw new CliError(`network ${record.network} has no validator ${JSON.stringify(name)}`, `Use one of ${record.nodes.map((n) => n.name).join(", ")}`);
    return node;
  };
  const stop = async (name: string, signal: "SIGKILL" | "SIGTERM") => {
    const node = entry(name);
    if ((await stopProcess(node.pid, node.config_file, { signal })) === "not running") onProgress(`${name} was not running`);
  };
  const start = async (name: string) => {
    const node = entry(name);
    if (isValidatorRunning(node.pid, node.config_file)) throw new CliError(`${name} is already running (pid ${node.pid})`, `Stop it first: chainsim fault ${name} kill`);
    const paths = { dir: dirname(node.config_file), configFile: node.config_file, logFile: node.log_file };
    const validator = await spawnValidator(name, paths, { detach: true });
    node.pid = validator.pid;
    await writeNetworkRecord(record);
    await waitForNodes([{ name, http: node.http, process: validator }], { onProgress });
  };
  const target: StatefulTarget = {
    nodes: record.nodes,
    state: async (name) => {
      const node = entry(name);
      const process = !isValidatorRunning(node.pid, node.config_file) ? "down" : isStopped(node.pid) ? "paused" : "running";
      return { process, disconnected: (await partitionRulesAgainst(target, node)).length > 0 };
    },
    kill: (name) => stop(name, "SIGKILL"),
    start,
    restart: async (name, { wipe }) => {
      await stop(name, "SIGTERM");
      if (wipe) await wipeNodeData(dirname(entry(name).config_file));
      await start(name);
    },
    pause: async (name, paused) => {
      const node = entry(name);
      if (!freezeValidator(node.pid, node.config_file, paused)) throw new CliError(`${name} is not running`, `Start it with chainsim fault ${name} start`);
    },
    startTwin: () => {
      throw new CliError("twin needs a process that owns it for its whole life", "Use a twin in a scenario: perturb = [\"twin\"] (docs/faults.md)");
    },
    stopTwin: async () => {},
  };
  return target;
}

/** Whether the process is stopped by a signal (SIGSTOP, `pause`): state T in /proc/PID/stat (Linux). */
function isStopped(pid: number): boolean {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).startsWith("T");
}
