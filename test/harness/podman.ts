import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { isPortFree, nodePorts } from "@chainsim/cli";

/** Shared by the container e2e tests: commands, podman setup (or why it cannot be used), free ports, teardown. */

export const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const SETUP = "scripts/containers/setup-podman.sh";

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command in the repository; never rejects (the caller reads the exit code). */
export function run(program: string, args: string[], options: { timeoutMs?: number; env?: Record<string, string> } = {}): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      program,
      args,
      { cwd: REPO, timeout: options.timeoutMs ?? 120_000, maxBuffer: 64 << 20, env: { ...process.env, ...options.env } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 127) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) + (error && typeof error.code !== "number" ? String(error.message) : "") });
      },
    );
  });
}

export async function must(program: string, args: string[], options: Parameters<typeof run>[2] = {}): Promise<RunResult> {
  const result = await run(program, args, options);
  if (result.code !== 0) throw new Error(`${program} ${args.join(" ")} exited ${result.code}:\n${tail(result.stderr || result.stdout)}`);
  return result;
}

export function tail(text: string, lines = 30): string {
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}

/**
 * Makes podman ready or fails: setup-podman.sh installs what is missing (apt-get, as root), writes the
 * containers.conf docs/containers.md needs, and proves a container's published port answers. A machine where
 * it cannot is a failure, not a skip (CI runs the script as root, so podman is expected to work there).
 */
export async function requirePodman(): Promise<void> {
  const setup = await run("bash", [SETUP], { timeoutMs: 600_000 });
  if (setup.code !== 0) throw new Error(`podman cannot run docker-compose.yml here: ${SETUP} exited ${setup.code}:\n${tail(setup.stderr, 10)}`);
}

/** The image docker-compose.yml uses, assembled from the current dist/ (a no-op when nothing changed). */
export function buildOfflineImage(): Promise<RunResult> {
  return must("npm", ["run", "--silent", "image:offline", "--", "--no-build"], { timeoutMs: 600_000 });
}

/** A port prefix (port base / 100) in 200..319 whose ports of `nodes` validators are free on this machine. */
export async function freePortPrefix(nodes: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const prefix = 200 + Math.floor(Math.random() * 120);
    const ports = Array.from({ length: nodes }, (_, i) => nodePorts(prefix * 100, i)).flatMap((p) => [p.p2p, p.http, p.ws]);
    if ((await Promise.all(ports.map((p) => isPortFree(p)))).every(Boolean)) return prefix;
  }
  throw new Error("no free port range found after 50 attempts");
}

/** The last log lines of each service's container, for a failed test. */
export async function printContainerLogs(project: string, services: string[], lines = 15): Promise<void> {
  for (const service of services) {
    const logs = await run("podman", ["logs", "--tail", String(lines), `${project}_${service}_1`]);
    console.log(`      --- last log lines of ${service} ---\n${tail(logs.stdout + logs.stderr, lines).replace(/^/gm, "      ")}`);
  }
}

/**
 * Removes everything compose project `project` created: containers, volumes and the project network
 * (podman-compose 1.0.3 leaves the network behind). Safe when the project is already gone; throws when
 * something is left.
 */
export async function removeComposeProject(project: string, env: Record<string, string> = {}): Promise<void> {
  await run("podman-compose", ["-f", "docker-compose.yml", "-p", project, "down", "-v"], { timeoutMs: 180_000, env });
  const label = `label=io.podman.compose.project=${project}`;
  const leftover = (await run("podman", ["ps", "-aq", "--filter", label])).stdout.split("\n").filter(Boolean);
  if (leftover.length > 0) await run("podman", ["rm", "-f", "-t", "2", ...leftover]);
  const volumes = (await run("podman", ["volume", "ls", "-q"])).stdout.split("\n").filter((v) => v.startsWith(`${project}_`));
  if (volumes.length > 0) await run("podman", ["volume", "rm", "-f", ...volumes]);
  // Removing the network right after `down` failed once; retry briefly.
  const network = `${project}_default`;
  for (let attempt = 0; attempt < 5; attempt++) {
    await run("podman", ["network", "rm", "-f", network]); // fails harmlessly when it is already gone
    if ((await run("podman", ["network", "exists", network])).code !== 0) break;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  const left = [
    ...(await run("podman", ["ps", "-aq", "--filter", label])).stdout.split("\n").filter(Boolean).map((id) => `container ${id}`),
    ...(await run("podman", ["volume", "ls", "-q"])).stdout.split("\n").filter((v) => v.startsWith(`${project}_`)).map((v) => `volume ${v}`),
    ...((await run("podman", ["network", "exists", network])).code === 0 ? [`network ${network}`] : []),
  ];
  if (left.length > 0) throw new Error(`teardown left ${left.join(", ")} behind; remove them with podman rm/volume rm/network rm`);
}
