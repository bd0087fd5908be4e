import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { NODE_LOG_FILE, type NodeConfig } from "@chainsim/node";
import { stringifyJson } from "@chainsim/protocol";
import { CliError } from "./errors.js";
import type { Manifest } from "./manifest.js";

/** Validators listen on loopback only: a dev network with public dev keys must not be reachable from outside. */
export const HOST = "127.0.0.1";

export interface NodePorts {
  p2p: number;
  http: number;
  ws: number;
}

/** Node i (0-based) owns ports base+10*i+1 .. base+10*i+3 (product.md §3). */
export function nodePorts(portBase: number, index: number): NodePorts {
  const first = portBase + 10 * index;
  return { p2p: first + 1, http: first + 2, ws: first + 3 };
}

/** The highest port a network of `nodeCount` validators uses. */
export function highestPort(portBase: number, nodeCount: number): number {
  return nodePorts(portBase, nodeCount - 1).ws;
}

/** Fails unless every port of the network is a valid unprivileged port; `source` names where the base came from. */
export function checkPortBase(portBase: number, nodeCount: number, source: string): void {
  if (!Number.isInteger(portBase) || portBase < 1024 || highestPort(portBase, nodeCount) > 65535) {
    throw new CliError(
      `${source} ${portBase} does not fit ${nodeCount} validator(s): they need ports ${portBase + 1}..${highestPort(portBase, nodeCount)}`,
      `Choose a port base between 1024 and ${65535 - highestPort(0, nodeCount)}`,
    );
  }
}

/** Where a validator keeps its files: its data directory, its config.json and its node.log. */
export interface ValidatorPaths {
  dir: string;
  configFile: string;
  logFile: string;
}

export function validatorPaths(dataDir: string, nodeName: string): ValidatorPaths {
  const dir = join(resolve(dataDir), nodeName);
  return { dir, configFile: join(dir, "config.json"), logFile: join(dir, NODE_LOG_FILE) };
}

export interface NetworkLayout {
  dataDir: string;
  portBase: number;
}

/** One config per validator, in manifest order; every validator lists all of them, and peers with the others. */
export function networkConfigs(manifest: Manifest, layout: NetworkLayout): NodeConfig[] {
  const ports = manifest.nodes.map((_, i) => nodePorts(layout.portBase, i));
  const validators = manifest.nodes.map((node) => node.account.address);
  const { account, ...genesis } = manifest.genesis;
  return manifest.nodes.map((node, i) => ({
    network: manifest.name,
    node_name: node.name,
    data_dir: validatorPaths(layout.dataDir, node.name).dir,
    webserver: { listen_addresses: `${HOST}:${ports[i].http}` },
    wsserver: { listen_address: `${HOST}:${ports[i].ws}` },
    p2p: {
      listen_address: `${HOST}:${ports[i].p2p}`,
      peers: manifest.nodes.flatMap((peer, j) =>
        j === i ? [] : [{ address: peer.account.address, public_key: peer.account.public_key, host: HOST, port: ports[j].p2p }],
      ),
    },
    validator: { private_key: node.account.private_key },
    validators,
    genesis: { account: account.address, ...genesis },
    consensus: { ...manifest.consensus },
    contracts: { ...manifest.contracts },
    limits: { ...manifest.limits },
    dev: { ...manifest.dev },
    debug: { ...manifest.debug },
    log_level: manifest.log_level,
  }));
}

/** Writes `config` as JSON (int64 values as plain numbers, never rounded) for `chainsim node --config`. */
export async function writeNodeConfig(config: NodeConfig, file: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, stringifyJson(config, 2) + "\n");
}
