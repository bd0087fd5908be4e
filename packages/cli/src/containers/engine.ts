import { execFile } from "node:child_process";
import { CliError } from "../errors.js";

/**
 * The container engine that runs docker-compose.yml: `docker` when its engine answers, else `podman`.
 * Only the CLI is driven (no socket API), so the same calls work with both.
 */
export interface Engine {
  readonly name: "docker" | "podman";
  /** `docker compose …` or `podman-compose …`. */
  readonly compose: string[];
  /** Runs `<engine> args`; rejects with the command's stderr when it exits non-zero. */
  run(args: string[], options?: RunOptions): Promise<string>;
}

export interface RunOptions {
  env?: Record<string, string>;
  cwd?: string;
  timeoutMs?: number;
}

/** Runs a program; resolves with its stdout, rejects with a CliError naming the command and its stderr tail. */
export function runProgram(program: string, args: string[], options: RunOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      program,
      args,
      { cwd: options.cwd, timeout: options.timeoutMs ?? 120_000, maxBuffer: 16 << 20, env: { ...process.env, ...options.env } },
      (error, stdout, stderr) => {
        if (!error) return resolve(String(stdout));
        const why = String(stderr).trim().split("\n").slice(-5).join("\n") || error.message;
        reject(new CliError(`\`${program} ${args.join(" ")}\` failed: ${why}`, "See the engine's message above"));
      },
    );
  });
}

const answers = (program: string, args: string[]) => runProgram(program, args, { timeoutMs: 30_000 }).then(() => true, () => false);

/** Finds the engine; a CliError that says what to install when neither answers. */
export async function detectEngine(): Promise<Engine> {
  if (await answers("docker", ["info"])) {
    return { name: "docker", compose: ["docker", "compose"], run: (args, options) => runProgram("docker", args, options) };
  }
  if (await answers("podman", ["info"])) {
    return { name: "podman", compose: ["podman-compose"], run: (args, options) => runProgram("podman", args, options) };
  }
  throw new CliError(
    "no container engine answers: neither `docker info` nor `podman info` succeeds",
    "Start a Docker engine, or install podman with `sudo bash scripts/containers/setup-podman.sh` (podman, podman-compose, runc; docs/containers.md)",
  );
}
