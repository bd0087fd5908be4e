import { constants, existsSync } from "node:fs";
import { access, readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { LOG_LEVELS, type LogLevel } from "@chainsim/node";
import { parseCommandArgs, usageError } from "../args.js";
import { COMPOSE_OPTIONS, exclusiveComposeChoice, withComposeDefault } from "../containers/compose-args.js";
import { projectContainers } from "../containers/compose-network.js";
import { detectEngine } from "../containers/engine.js";
import { CliError } from "../errors.js";
import { LogFile } from "../logs/log-file.js";
import { followLogs, mergeLogs } from "../logs/log-merge.js";
import { formatLogRecord } from "../logs/log-record.js";
import { loadManifest } from "../manifest.js";
import { validatorPaths } from "../network-config.js";
import { DEFAULT_MANIFEST_PATH } from "../paths.js";
import { defaultDataDir } from "./up.js";

/**
 * `chainsim logs [NODE] [--follow] [--level L] [--json] [--data-dir D | --compose [FILE] [--project NAME]]`: the
 * node.log of every validator in D or in the compose project's volumes (or of NODE), merged in time order
 * (docs/operations.md, "Logs").
 */
export async function logs(args: string[]): Promise<number> {
  const { positionals, values } = parseCommandArgs(
    "logs",
    withComposeDefault(args),
    { "data-dir": { type: "string" }, ...COMPOSE_OPTIONS, follow: { type: "boolean", short: "f" }, level: { type: "string" }, json: { type: "boolean" } },
    1,
  );
  const level = values.level as LogLevel | undefined;
  if (level !== undefined && !LOG_LEVELS.includes(level)) throw usageError(`logs: --level should be one of ${LOG_LEVELS.join(", ")}, got ${JSON.stringify(level)}`);
  const compose = exclusiveComposeChoice("logs", values, { "data-dir": values["data-dir"] });
  // The default manifest names the compose project's validators, or the default data directory; --data-dir alone needs none.
  const dataDir = async () => values["data-dir"] ?? defaultDataDir((await loadManifest(DEFAULT_MANIFEST_PATH)).name);
  const files = compose ? await composeLogs(compose, positionals[0]) : await nodeLogs(resolve(await dataDir()), positionals[0]);
  // `chainsim logs | head` closes the pipe early: that is the reader being done, not a failure.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(0);
  });
  const colour = process.stdout.isTTY === true;
  const records = values.follow ? followLogs(files, { level, signal: untilInterrupted() }) : mergeLogs(files, { level });
  for await (const record of records) {
    const line = values.json ? JSON.stringify(record) : formatLogRecord(record, colour);
    if (!process.stdout.write(line + "\n")) await new Promise((resolve) => process.stdout.once("drain", resolve));
  }
  return 0;
}

/** Aborts on Ctrl-C, so that --follow prints what it holds back and exits 0. */
function untilInterrupted(): AbortSignal {
  const stop = new AbortController();
  process.once("SIGINT", () => stop.abort());
  return stop.signal;
}

/** The logs of the validators in dataDir (each directory with a config.json), or of the one named. */
async function nodeLogs(dataDir: string, name: string | undefined): Promise<LogFile[]> {
  const entries = await readdir(dataDir, { withFileTypes: true }).catch((): never[] => []);
  const nodes = entries
    .filter((entry) => entry.isDirectory() && existsSync(validatorPaths(dataDir, entry.name).configFile))
    .map((entry) => entry.name)
    .sort();
  if (nodes.length === 0) {
    throw new CliError(`no chainsim network in ${dataDir}`, "Start one with `chainsim up`, or pass the --data-dir it was started with");
  }
  if (name !== undefined && !nodes.includes(name)) throw new CliError(`no validator ${name} in ${dataDir}`, `Use one of ${nodes.join(", ")}`);
  return (name === undefined ? nodes : [name]).map((node) => new LogFile(node, validatorPaths(dataDir, node).logFile));
}

/**
 * The node.log in each container's /data volume, read where the engine keeps the volume on this machine: a
 * stopped or hung container's log can be read, and --follow works as for processes. Only the containers are
 * looked up; no validator needs to answer.
 */
async function composeLogs(compose: { file: string; project: string }, name: string | undefined): Promise<LogFile[]> {
  const engine = await detectEngine();
  const containers = await projectContainers(engine, compose.project, await loadManifest(DEFAULT_MANIFEST_PATH));
  if (name !== undefined && !containers.has(name)) throw new CliError(`compose project ${compose.project} has no validator ${name}`, `Use one of ${[...containers.keys()].join(", ")}`);
  const theirOwn = (node: string) => `${engine.compose.join(" ")} -f ${compose.file} -p ${compose.project} logs ${node}`;
  return Promise.all(
    (name === undefined ? [...containers.keys()] : [name]).map(async (node) => {
      const container = containers.get(node)!;
      const format = '{{range .Mounts}}{{if eq .Destination "/data"}}{{.Source}}{{end}}{{end}}';
      const volume = (await engine.run(["inspect", "--format", format, container])).trim();
      if (volume === "") throw new CliError(`container ${container} has no volume at /data`, "Run the services of the repository's docker-compose.yml (docs/containers.md)");
      // The volume directory must be here; a missing node.log only means nothing is written yet.
      await access(volume, constants.R_OK | constants.X_OK).catch((error: NodeJS.ErrnoException) => {
        const where = error.code === "ENOENT" ? "is not on this machine (the engine runs in a VM or on another host)" : `cannot be read (${error.code})`;
        throw new CliError(`${volume}, the /data volume of ${container}, ${where}`, `Run as a user who may read ${engine.name}'s volumes, or use \`${theirOwn(node)}\``);
      });
      return new LogFile(node, join(volume, "node.log"));
    }),
  );
}
