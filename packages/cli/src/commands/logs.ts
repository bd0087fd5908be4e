import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { resolve } from "node:path";
import { LOG_LEVELS, type LogLevel } from "@chainsim/node";
import { parseCommandArgs, usageError } from "../args.js";
import { CliError } from "../errors.js";
import { LogFile } from "../logs/log-file.js";
import { followLogs, mergeLogs } from "../logs/log-merge.js";
import { formatLogRecord } from "../logs/log-record.js";
import { loadManifest } from "../manifest.js";
import { validatorPaths } from "../network-config.js";
import { DEFAULT_MANIFEST_PATH } from "../paths.js";
import { defaultDataDir } from "./up.js";

/**
 * `chainsim logs [NODE] [--follow] [--level L] [--json] [--data-dir D]`: the node.log of every validator in D
 * (or of NODE), merged in time order (docs/operations.md, "Logs").
 */
export async function logs(args: string[]): Promise<number> {
  const { positionals, values } = parseCommandArgs(
    "logs",
    args,
    { "data-dir": { type: "string" }, follow: { type: "boolean", short: "f" }, level: { type: "string" }, json: { type: "boolean" } },
    1,
  );
  const level = values.level as LogLevel | undefined;
  if (level !== undefined && !LOG_LEVELS.includes(level)) throw usageError(`logs: --level should be one of ${LOG_LEVELS.join(", ")}, got ${JSON.stringify(level)}`);
  const dataDir = resolve(values["data-dir"] ?? defaultDataDir((await loadManifest(DEFAULT_MANIFEST_PATH)).name));
  const files = await nodeLogs(dataDir, positionals[0]);
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
