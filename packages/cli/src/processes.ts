import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { CliError } from "./errors.js";

/**
 * True while `pid` runs a validator started with `configFile`. Where /proc exists the command line must
 * name that config, so a recycled pid in a stale network.json is never mistaken for (or killed as) a
 * validator; an exited but not yet reaped process (zombie) counts as gone.
 */
export function isValidatorRunning(pid: number, configFile: string): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  let cmdline: string;
  let stat: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return process.platform !== "linux"; // no /proc: trust the pid
  }
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state !== "Z" && state !== "X" && cmdline.split("\0").includes(configFile);
}

export type StopOutcome = "stopped" | "killed" | "not running";

export interface StopOptions {
  /** SIGTERM (default) lets the validator close its databases; SIGKILL simulates a crash. */
  signal?: "SIGTERM" | "SIGKILL" | "SIGINT";
  /** How long to wait after `signal` before falling back to SIGKILL. */
  graceMs?: number;
}

/** Sends `signal`, waits (bounded) for the process to end, then SIGKILLs it if it is still there. */
export async function stopProcess(pid: number, configFile: string, options: StopOptions = {}): Promise<StopOutcome> {
  const signal = options.signal ?? "SIGTERM";
  if (!isValidatorRunning(pid, configFile)) return "not running";
  if (!send(pid, signal)) return "not running"; // it ended between the check and the signal
  send(pid, "SIGCONT"); // a paused (SIGSTOP) validator would otherwise never see SIGTERM
  if (await waitForExit(pid, configFile, options.graceMs ?? 10_000)) return signal === "SIGKILL" ? "killed" : "stopped";
  send(pid, "SIGKILL");
  if (await waitForExit(pid, configFile, 5_000)) return "killed";
  throw new CliError(`process ${pid} (${configFile}) survived SIGKILL`, "Check it with `ps`; it may be stuck in the kernel");
}

/**
 * SIGSTOP freezes a validator (its sockets stay open, it answers nothing: a hung machine); SIGCONT resumes it.
 * False when no validator runs as `pid`.
 */
export function freezeValidator(pid: number, configFile: string, frozen: boolean): boolean {
  return isValidatorRunning(pid, configFile) && send(pid, frozen ? "SIGSTOP" : "SIGCONT");
}

/** False when the process is already gone. */
function send(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

async function waitForExit(pid: number, configFile: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isValidatorRunning(pid, configFile)) {
    if (Date.now() >= deadline) return false;
    await sleep(25);
  }
  return true;
}
