import { spawn } from "node:child_process";
import { mkdir, open } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import type { NodeConfig } from "@chainsim/node";
import { startRecord } from "./logs/log-record.js";
import { CliError } from "./errors.js";
import { logTail } from "./log-tail.js";
import { writeNodeConfig, type ValidatorPaths } from "./network-config.js";
import { BIN_PATH } from "./paths.js";
import { stopProcess, type StopOptions, type StopOutcome } from "./processes.js";

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One validator OS process started by this process. */
export interface ValidatorProcess {
  readonly name: string;
  readonly pid: number;
  readonly paths: ValidatorPaths;
  /** Settles when the process ends. */
  readonly exited: Promise<ExitStatus>;
  /** How it ended; undefined while it runs. */
  readonly exitStatus: ExitStatus | undefined;
}

export interface StartOptions {
  /** Own process group and no hold on this process: the validator outlives `chainsim up --detach`. */
  detach?: boolean;
  /** The program and arguments before `--config FILE`; tests substitute a stand-in validator. */
  command?: string[];
  /** Extra environment variables for this validator only (tests set test-only switches such as CHAINSIM_UNSAFE_QUORUM). */
  env?: Record<string, string>;
}

/** `node dist/src/bin.js node`: the same Node.js binary that runs this CLI. */
// isolated-vm on Node ≥ 20 needs the built-in snapshot off, or isolates may crash (isolated-vm's README).
// The heap limit (V8's default here is 4 GB) makes V8 collect garbage before a validator grows to gigabytes:
// transactions passed on by peers, decoded and dropped, took validators to 3 GB (review of 2026-11-27).
const VALIDATOR_HEAP_MB = 1536;
export const VALIDATOR_COMMAND = [process.execPath, "--no-node-snapshot", `--max-old-space-size=${VALIDATOR_HEAP_MB}`, BIN_PATH, "node"];

/**
 * Writes `config` to paths.configFile and starts `chainsim node --config <file>`. The validator writes its own
 * paths.logFile; its stdout, the same lines, is discarded and its stderr (a crash's stack trace) appended to
 * that file. A record marks each start, so restarts are easy to find in the log (docs/operations.md, "Logs").
 */
export async function startValidator(config: NodeConfig, paths: ValidatorPaths, options: StartOptions = {}): Promise<ValidatorProcess> {
  await mkdir(config.data_dir, { recursive: true });
  await writeNodeConfig(config, paths.configFile);
  return spawnValidator(config.node_name, paths, options);
}

/** Starts `chainsim node --config <paths.configFile>` from the config file already there (`chainsim fault NODE start`). */
export async function spawnValidator(name: string, paths: ValidatorPaths, options: StartOptions = {}): Promise<ValidatorProcess> {
  const log = await open(paths.logFile, "a");
  try {
    await log.write(JSON.stringify(startRecord(name)) + "\n");
    const [program, ...args] = options.command ?? VALIDATOR_COMMAND;
    const child = spawn(program, [...args, "--config", paths.configFile], {
      stdio: ["ignore", "ignore", log.fd],
      detached: options.detach ?? false,
      env: options.env ? { ...process.env, ...options.env } : process.env,
    });
    const failed = new Promise<Error>((resolve) => child.on("error", resolve));
    if (child.pid === undefined) {
      throw new CliError(`cannot start validator ${name} (${await failed})`, `Check that ${program} can run`);
    }
    if (options.detach) child.unref();
    const validator = {
      name,
      pid: child.pid,
      paths,
      exitStatus: undefined as ExitStatus | undefined,
      exited: new Promise<ExitStatus>((resolve) =>
        child.once("exit", (code, signal) => {
          validator.exitStatus = { code, signal };
          resolve(validator.exitStatus);
        }),
      ),
    };
    return validator;
  } finally {
    await log.close(); // the child holds its own copy of the descriptor
  }
}

/** Stops a validator: SIGTERM (or `options.signal`), a bounded wait, then SIGKILL if it is still there. */
export function stopValidator(validator: { pid: number; paths: Pick<ValidatorPaths, "configFile"> }, options: StopOptions = {}): Promise<StopOutcome> {
  return stopProcess(validator.pid, validator.paths.configFile, options);
}

export interface ReadyOptions {
  /** Give up after this long (default 30 s). */
  timeoutMs?: number;
  onProgress?: (message: string) => void;
  /** Stop waiting, throwing the signal's reason, once it is aborted. */
  signal?: AbortSignal;
}

/**
 * Polls GET <http>/hello of every node until all answer. Fails early, with the tail of the node's log,
 * when one exits, and when the deadline passes.
 */
export async function waitForNodes(
  nodes: { name: string; http: string; process: ValidatorProcess }[],
  options: ReadyOptions = {},
): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const started = Date.now();
  const deadline = started + timeoutMs;
  const waiting = new Set(nodes);
  let nextReport = started + 2_000;
  while (waiting.size > 0) {
    options.signal?.throwIfAborted();
    for (const node of nodes) {
      const status = node.process.exitStatus;
      if (status) throw await startFailure(node, `exited (${describeExit(status)}) while the network was starting`);
    }
    for (const node of waiting) {
      if (await answersHello(node.http, Math.min(1_000, Math.max(100, deadline - Date.now())))) {
        waiting.delete(node);
        options.onProgress?.(`${node.name} answers /hello (${nodes.length - waiting.size}/${nodes.length} ready)`);
      }
    }
    if (waiting.size === 0) break;
    options.signal?.throwIfAborted();
    const now = Date.now();
    const late = [...waiting][0];
    if (now >= deadline) throw await startFailure(late, `did not answer GET ${late.http}/hello within ${timeoutMs / 1000} s`);
    if (now >= nextReport) {
      const names = [...waiting].map((node) => node.name).join(", ");
      options.onProgress?.(`waiting for /hello from ${names} (${Math.round((now - started) / 1000)} s of ${timeoutMs / 1000} s)`);
      nextReport = now + 2_000;
    }
    await sleep(200);
  }
}

async function answersHello(http: string, timeoutMs: number): Promise<boolean> {
  try {
    const response = await fetch(`${http}/hello`, { signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer(); // release the connection
    return response.ok;
  } catch {
    return false; // not listening yet, or too slow this time
  }
}

async function startFailure(node: { name: string; process: ValidatorProcess }, what: string): Promise<CliError> {
  const { logFile } = node.process.paths;
  return new CliError(
    `validator ${node.name} ${what}`,
    `Read the end of its log below (all of it: ${logFile}), fix the cause and start it again (\`chainsim up\`, or \`chainsim fault ${node.name} start\` while the others run)`,
    { details: await logTail(logFile) },
  );
}

export function describeExit(status: ExitStatus): string {
  return status.signal ? `killed by ${status.signal}` : `exit code ${status.code}`;
}
