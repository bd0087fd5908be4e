import { existsSync } from "node:fs";
import { mkdir, readdir, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { NodeConfig } from "@chainsim/node";
import { CliError } from "./errors.js";
import type { Manifest } from "./manifest.js";
import { checkPortBase, networkConfigs, nodePorts, validatorPaths, HOST } from "./network-config.js";
import {
  readNetworkRecord,
  removeNetworkRecord,
  runningNodes,
  writeNetworkRecord,
  type NetworkRecord,
  type NodeEndpoint,
} from "./network-record.js";
import { assertPortsFree } from "./port-check.js";
import { freezeValidator, type StopOptions, type StopOutcome } from "./processes.js";
import { startValidator, stopValidator, waitForNodes, type ValidatorProcess } from "./validator.js";

export interface LaunchOptions {
  dataDir: string;
  /** Overrides the manifest's port_base. */
  portBase?: number;
  /** Leave the validators running after this process exits. */
  detach?: boolean;
  /** Wipe dataDir first (only when it holds a chainsim network or nothing). */
  fresh?: boolean;
  /** How long validators get to answer /hello (default 30 s). */
  readyTimeoutMs?: number;
  onProgress?: (message: string) => void;
  /** The validator program before `--config FILE` (tests use a stand-in); default `chainsim node`. */
  command?: string[];
  /** Extra environment per validator name, e.g. a test-only switch for one node: `{ v1: { CHAINSIM_UNSAFE_QUORUM: "1" } }`. */
  nodeEnv?: Record<string, Record<string, string>>;
  /**
   * Aborting it (e.g. on Ctrl-C) makes the launch fail with the signal's reason, after stopping the
   * validators already started.
   */
  signal?: AbortSignal;
}

/** A running validator; `process` changes when the node restarts, and `pid` follows it. */
export interface LaunchedNode extends NodeEndpoint {
  readonly config: NodeConfig;
  process: ValidatorProcess;
}

export interface NetworkHandle {
  readonly manifest: Manifest;
  readonly dataDir: string;
  readonly portBase: number;
  readonly nodes: LaunchedNode[];
  /** Running twins (see startTwin), named `<validator>-twin`. */
  readonly twins: LaunchedNode[];
  /** Endpoints as plain data, as `up --json` prints them. */
  endpoints(): NodeEndpoint[];
  /** Stops one validator: SIGTERM, or SIGKILL to simulate a crash. It stays down until startNode. */
  stopNode(name: string, options?: StopOptions): Promise<LaunchedNode>;
  /**
   * Starts a stopped validator again, optionally with its data wiped first (it must state-sync back);
   * waits for /hello and updates network.json.
   */
  startNode(name: string, options?: { wipe?: boolean }): Promise<LaunchedNode>;
  /** stopNode, then startNode. */
  restart(name: string, options?: StopOptions & { wipe?: boolean }): Promise<LaunchedNode>;
  /** SIGSTOP (paused) or SIGCONT (resumed); fails when the validator is not running. */
  pauseNode(name: string, paused: boolean): void;
  /**
   * Starts a second process with validator `name`'s key: its own data dir (`<dataDir>/<name>-twin`) and
   * ports (the slot of replica n + i, so the port range needs room for 2n nodes). Peers dial the original,
   * so the twin only dials out: its messages reach the others as the validator's, but nothing is sent to it
   * except answers to its own requests (state sync). See docs/faults.md, "Twins".
   */
  startTwin(name: string): Promise<LaunchedNode>;
  /** Stops (SIGTERM) and forgets the twin of `name`. */
  stopTwin(name: string): Promise<void>;
  /** Stops every validator and twin (SIGTERM, bounded wait, SIGKILL fallback) and removes network.json. */
  stop(): Promise<void>;
}

/**
 * Starts every validator of `manifest` as its own OS process and resolves once all answer /hello. On any
 * failure the validators already started are stopped again.
 */
export async function launchNetwork(manifest: Manifest, options: LaunchOptions): Promise<NetworkHandle> {
  const dataDir = resolve(options.dataDir);
  const portBase = options.portBase ?? manifest.port_base;
  checkPortBase(portBase, manifest.nodes.length, options.portBase === undefined ? `${manifest.file}: port_base` : "--port-base");
  await refuseIfRunning(dataDir);
  if (options.fresh) await wipeDataDir(dataDir, manifest);
  const ports = manifest.nodes.map((_, i) => nodePorts(portBase, i));
  await assertPortsFree(
    manifest.nodes.flatMap((node, i) => [
      { port: ports[i].p2p, use: `p2p of ${node.name}` },
      { port: ports[i].http, use: `http of ${node.name}` },
      { port: ports[i].ws, use: `ws of ${node.name}` },
    ]),
  );
  await mkdir(dataDir, { recursive: true });
  const progress = options.onProgress ?? (() => {});
  const start = (name: string) => ({ detach: options.detach, command: options.command, env: options.nodeEnv?.[name] });
  const nodes: LaunchedNode[] = [];
  const startedAt = new Date().toISOString();
  const nodeNamed = (name: string): LaunchedNode => {
    const node = nodes.find((n) => n.name === name);
    if (!node) throw new CliError(`network ${manifest.name} has no validator ${name}`, `Use one of ${nodes.map((n) => n.name).join(", ")}`);
    return node;
  };
  const twins: LaunchedNode[] = [];
  const record = () => writeNetworkRecord(networkRecord(handle, options.detach ?? false, startedAt));
  const handle: NetworkHandle = {
    manifest,
    dataDir,
    portBase,
    nodes,
    twins,
    endpoints: () => [...nodes, ...twins].map(({ name, address, http, ws, p2p, pid }) => ({ name, address, http, ws, p2p, pid })),
    stopNode: async (name, stopOptions = {}) => {
      const node = nodeNamed(name);
      await stopValidator(node.process, stopOptions);
      return node;
    },
    startNode: async (name, startOptions = {}) => {
      const node = nodeNamed(name);
      if (startOptions.wipe) await wipeNodeData(node.process.paths.dir);
      node.process = await startValidator(node.config, node.process.paths, start(name));
      await record();
      await waitForNodes([node], { timeoutMs: options.readyTimeoutMs, onProgress: progress });
      return node;
    },
    restart: async (name, restartOptions = {}) => {
      await handle.stopNode(name, restartOptions);
      return handle.startNode(name, restartOptions);
    },
    pauseNode: (name, paused) => {
      const node = nodeNamed(name);
      if (!freezeValidator(node.pid, node.process.paths.configFile, paused)) {
        throw new CliError(`validator ${name} is not running, so it cannot be ${paused ? "paused" : "resumed"}`, "Start it first");
      }
    },
    startTwin: async (name) => {
      const original = nodeNamed(name);
      if (twins.some((twin) => twin.name === `${name}-twin`)) throw new CliError(`${name} already has a twin`, "Stop it first");
      const index = nodes.indexOf(original);
      const slot = nodePorts(portBase, nodes.length + index);
      checkPortBase(portBase, nodes.length + index + 1, "the port range of a twin");
      const twinName = `${name}-twin`;
      const paths = validatorPaths(dataDir, twinName);
      const config: NodeConfig = {
        ...original.config,
        node_name: twinName,
        data_dir: paths.dir,
        webserver: { listen_addresses: `${HOST}:${slot.http}` },
        wsserver: { listen_address: `${HOST}:${slot.ws}` },
        p2p: { ...original.config.p2p, listen_address: `${HOST}:${slot.p2p}` },
      };
      const twin: LaunchedNode = {
        name: twinName,
        address: original.address,
        http: `http://${HOST}:${slot.http}`,
        ws: `ws://${HOST}:${slot.ws}`,
        p2p: `${HOST}:${slot.p2p}`,
        config,
        process: await startValidator(config, paths, start(twinName)),
        get pid() {
          return this.process.pid;
        },
      };
      twins.push(twin);
      await record();
      await waitForNodes([twin], { timeoutMs: options.readyTimeoutMs, onProgress: progress });
      return twin;
    },
    stopTwin: async (name) => {
      const twin = twins.find((t) => t.name === `${name}-twin`);
      if (!twin) return;
      await stopValidator(twin.process);
      twins.splice(twins.indexOf(twin), 1);
      await record();
    },
    stop: async () => {
      await Promise.all([...nodes, ...twins].map((node) => stopValidator(node.process)));
      await removeNetworkRecord(dataDir);
    },
  };

  progress(`starting ${manifest.nodes.length} validator(s) of ${manifest.name} in ${dataDir}`);
  try {
    for (const [i, config] of networkConfigs(manifest, { dataDir, portBase }).entries()) {
      options.signal?.throwIfAborted();
      const validator = await startValidator(config, validatorPaths(dataDir, config.node_name), start(config.node_name));
      nodes.push({
        name: config.node_name,
        address: manifest.nodes[i].account.address,
        http: `http://${HOST}:${ports[i].http}`,
        ws: `ws://${HOST}:${ports[i].ws}`,
        p2p: `${HOST}:${ports[i].p2p}`,
        config,
        process: validator,
        get pid() {
          return this.process.pid;
        },
      });
      progress(`started ${config.node_name} (pid ${validator.pid}), log ${validator.paths.logFile}`);
    }
    options.signal?.throwIfAborted();
    // Recorded before waiting, so `chainsim down` can clean up even if this process dies meanwhile.
    await record();
    await waitForNodes(nodes, { timeoutMs: options.readyTimeoutMs, onProgress: progress, signal: options.signal });
  } catch (error) {
    await handle.stop();
    throw error;
  }
  return handle;
}

export interface StoppedNode {
  name: string;
  pid: number;
  outcome: StopOutcome;
}

/** `chainsim down`: stops the network recorded in dataDir; undefined when none is recorded there. */
export async function stopRecordedNetwork(
  dataDir: string,
  options: StopOptions = {},
): Promise<{ record: NetworkRecord; stopped: StoppedNode[] } | undefined> {
  const record = await readNetworkRecord(dataDir);
  if (!record) return undefined;
  const stopped = await Promise.all(
    record.nodes.map(async (node) => ({
      name: node.name,
      pid: node.pid,
      outcome: await stopValidator({ pid: node.pid, paths: { configFile: node.config_file } }, options),
    })),
  );
  await removeNetworkRecord(dataDir);
  return { record, stopped };
}

function networkRecord(handle: NetworkHandle, detached: boolean, startedAt: string): NetworkRecord {
  return {
    network: handle.manifest.name,
    manifest: handle.manifest.file,
    data_dir: handle.dataDir,
    port_base: handle.portBase,
    detached,
    launcher_pid: process.pid,
    started_at: startedAt,
    nodes: [...handle.nodes, ...handle.twins].map((node, i) => ({
      ...handle.endpoints()[i],
      config_file: node.process.paths.configFile,
      log_file: node.process.paths.logFile,
    })),
  };
}

async function refuseIfRunning(dataDir: string): Promise<void> {
  const record = await readNetworkRecord(dataDir);
  const running = record ? runningNodes(record) : [];
  if (running.length > 0) {
    throw new CliError(
      `network ${record!.network} is already running from ${dataDir} (${running.map((n) => `${n.name} pid ${n.pid}`).join(", ")})`,
      `Stop it with \`chainsim down --data-dir ${dataDir}\`, or use another --data-dir`,
    );
  }
}

/** --fresh: refuses to wipe a directory that holds files but no sign of a chainsim network. */
async function wipeDataDir(dataDir: string, manifest: Manifest): Promise<void> {
  const entries = await readdir(dataDir).catch((): string[] => []);
  if (entries.length === 0) return;
  const ours = entries.includes("network.json") || manifest.nodes.some((node) => existsSync(validatorPaths(dataDir, node.name).configFile));
  if (!ours) {
    throw new CliError(`--fresh would wipe ${dataDir}, which holds files but no chainsim network`, "Point --data-dir at a network's data directory or at a new one");
  }
  await rm(dataDir, { recursive: true, force: true });
}

/** Deletes a validator's databases, keeping its config.json and node.log. */
export async function wipeNodeData(dir: string): Promise<void> {
  for (const entry of await readdir(dir)) {
    if (entry !== "config.json" && entry !== "node.log") await rm(join(dir, entry), { recursive: true, force: true });
  }
}
