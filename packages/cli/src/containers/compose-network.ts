import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { CliError } from "../errors.js";
import type { FaultTargetNode } from "../faults/apply-fault.js";
import type { NodeState } from "../faults/node-state.js";
import type { Manifest } from "../manifest.js";
import { HOST, nodePorts } from "../network-config.js";
import { getJson } from "../node-http.js";
import { detectEngine, runProgram, type Engine } from "./engine.js";

export interface ComposeOptions {
  /** The compose file (default docker-compose.yml). */
  file: string;
  /** The compose project: containers, volumes and the network are named after it. */
  project: string;
  /** Where the services publish their ports: the manifest's port_base, or CHAINSIM_PORT_PREFIX × 100. */
  portBase: number;
  /** Run `compose up -d` when the project is not running (a scenario); `chainsim fault` needs it running. */
  bringUp: boolean;
  onProgress?: (message: string) => void;
}

/** A network of validators run by a compose project, one service per validator of the manifest. */
export interface ComposeNetwork {
  readonly engine: Engine;
  readonly project: string;
  /** The project's network: `<project>_default` under both engines. */
  readonly network: string;
  readonly nodes: FaultTargetNode[];
  /** The container of a service (found by its compose labels, which both engines set). */
  container(service: string): string;
  /** The container's state: running, paused or down (stopped, exited, created), and whether it left the project network. */
  state(service: string): Promise<NodeState>;
  /** Waits (bounded) until validator `name` answers /hello on its published port. */
  waitUntilServing(name: string, timeoutMs?: number): Promise<void>;
  /** `compose down -v` and the project network, only when this process started the project. */
  stop(): Promise<void>;
}

export async function openComposeNetwork(manifest: Manifest, options: ComposeOptions): Promise<ComposeNetwork> {
  const progress = options.onProgress ?? (() => {});
  const file = resolve(options.file);
  if (!existsSync(file)) throw new CliError(`no compose file at ${file}`, "Pass --compose FILE, or run from the repository root (docker-compose.yml)");
  if (options.portBase % 100 !== 0) throw new CliError(`port base ${options.portBase} is not a multiple of 100`, "The compose file builds ports from CHAINSIM_PORT_PREFIX (the port base / 100)");
  const engine = await detectEngine();
  const project = options.project;
  const env = { CHAINSIM_PORT_PREFIX: String(options.portBase / 100) };
  const compose = (args: string[]) => runProgram(engine.compose[0], [...engine.compose.slice(1), "-f", file, "-p", project, ...args], { env, cwd: dirname(file), timeoutMs: 300_000 });
  const containers = async (all: boolean) =>
    (await engine.run(["ps", ...(all ? ["-a"] : []), "--filter", `label=com.docker.compose.project=${project}`, "--format", "{{.Names}}"])).split("\n").filter(Boolean);

  let startedHere = false;
  // `chainsim fault` needs the project's containers, even all stopped; a scenario needs them running.
  if ((await containers(!options.bringUp)).length === 0) {
    if (!options.bringUp) throw new CliError(`compose project ${project} is not running`, `Start it with \`${engine.compose.join(" ")} -p ${project} up -d\`, or name it with --project`);
    await requireImage(engine, file);
    progress(`starting compose project ${project} (${engine.compose.join(" ")} up -d, port base ${options.portBase})`);
    startedHere = true;
    await compose(["up", "-d"]).catch(async (error) => {
      await tearDown();
      throw error;
    });
  }
  const names = await projectContainers(engine, project, manifest).catch(async (error: unknown) => {
    await tearDown();
    throw error;
  });
  const nodes = manifest.nodes.map((node, i) => ({ name: node.name, address: node.account.address, http: `http://${HOST}:${nodePorts(options.portBase, i).http}` }));

  async function tearDown(): Promise<void> {
    if (!startedHere) return;
    progress(`removing compose project ${project} (down -v, network ${project}_default)`);
    await compose(["down", "-v"]).catch((error) => progress(`compose down failed: ${(error as Error).message}`));
    // podman-compose 1.0.3 leaves the project network behind (docs/containers.md); gone already under docker.
    await engine.run(["network", "rm", `${project}_default`]).catch(() => {});
  }

  const network: ComposeNetwork = {
    engine,
    project,
    network: `${project}_default`,
    nodes,
    container: (service) => {
      const name = names.get(service);
      if (!name) throw new CliError(`compose project ${project} has no validator ${JSON.stringify(service)}`, `Use one of ${[...names.keys()].join(", ")}`);
      return name;
    },
    state: async (service) => {
      const [status, networks] = (await engine.run(["inspect", "--format", "{{.State.Status}}\t{{json .NetworkSettings.Networks}}", network.container(service)])).trim().split("\t");
      const process = status === "running" ? "running" : status === "paused" ? "paused" : "down";
      return { process, disconnected: !(network.network in (JSON.parse(networks || "{}") ?? {})) };
    },
    waitUntilServing: async (name, timeoutMs = 60_000) => {
      const node = nodes.find((n) => n.name === name)!;
      const deadline = Date.now() + timeoutMs;
      while (!(await getJson(node.http, "/hello").then(() => true, () => false))) {
        if (Date.now() > deadline) throw new CliError(`${name} (${network.container(name)}) does not answer ${node.http}/hello after ${timeoutMs / 1000} s`, `See \`${engine.name} logs ${network.container(name)}\``);
        await sleep(250);
      }
    },
    stop: tearDown,
  };
  try {
    // A validator stopped, paused or disconnected by `chainsim fault` stays so: the others must serve, and be the manifest's.
    const serving: FaultTargetNode[] = [];
    for (const node of nodes) {
      const state = await network.state(node.name);
      if (state.process !== "running" || state.disconnected) continue;
      await network.waitUntilServing(node.name);
      serving.push(node);
    }
    await checkIdentity(serving, manifest);
  } catch (error) {
    await tearDown();
    throw error;
  }
  return network;
}

/**
 * The container of each validator of the manifest in a compose project, found by the compose labels both
 * engines set, stopped ones included; a CliError unless there is exactly one per validator.
 */
export async function projectContainers(engine: Engine, project: string, manifest: Manifest): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const node of manifest.nodes) {
    const found = (await engine.run(["ps", "-a", "--filter", `label=com.docker.compose.project=${project}`, "--filter", `label=com.docker.compose.service=${node.name}`, "--format", "{{.Names}}"])).split("\n").filter(Boolean);
    if (found.length !== 1) {
      throw new CliError(`compose project ${project} has ${found.length} containers for validator ${node.name}`, `The compose file must run one service per validator of ${manifest.name}, named as in the manifest`);
    }
    names.set(node.name, found[0]);
  }
  return names;
}

/** The image the compose file names must exist: an offline machine cannot pull or build it during `up`. */
async function requireImage(engine: Engine, file: string): Promise<void> {
  const image = /^\s*image:\s*["']?([^"'\s#]+)/m.exec(await readFile(file, "utf8"))?.[1];
  if (!image || (await engine.run(["image", "inspect", image]).then(() => true, () => false))) return;
  const how = engine.name === "podman" ? "Build it with `npm run image:offline` (docs/containers.md)" : "Build it with `docker compose build`";
  throw new CliError(`image ${image} (named in ${file}) is missing`, how);
}

/** The validators answering on the published ports must be the manifest's (the same dev keys), or every check would mislead. */
async function checkIdentity(nodes: FaultTargetNode[], manifest: Manifest): Promise<void> {
  for (const node of nodes) {
    const info = await getJson(node.http, "/getConsensusInfo", 5000);
    if (info.validator_address !== node.address) {
      throw new CliError(
        `${node.http} is validator ${info.validator_address}, not ${node.name} of ${manifest.name} (${node.address})`,
        "The manifest must describe the network the compose file runs (docker-compose.yml runs networks/local-4.toml), on its port base",
      );
    }
  }
}
