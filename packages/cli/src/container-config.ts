import { parseHostPort, type NodeConfig } from "@chainsim/node";
import { CliError } from "./errors.js";
import type { Manifest } from "./manifest.js";
import { checkPortBase, networkConfigs } from "./network-config.js";

/** Inside a container a validator listens on every interface; the engine publishes its ports. */
export const CONTAINER_LISTEN_HOST = "0.0.0.0";

/** Where a validator keeps its chain inside a container: the mount point of its named volume. */
export const CONTAINER_DATA_DIR = "/data";

export interface ContainerLayout {
  /** Port base inside the containers; the compose file publishes the same ports on the host. */
  portBase: number;
  /** Data directory of the validator (default /data). */
  dataDir?: string;
  /** The host name other containers reach validator `name` by; default: the name (= compose service name). */
  hostOf?: (name: string) => string;
}

/**
 * The config of validator `name` of `manifest` when every validator runs in its own container
 * (docker-compose.yml): the config `chainsim up` would generate, then listening on 0.0.0.0 on the same
 * ports, peers addressed by their service names, and its data in /data.
 */
export function containerNodeConfig(manifest: Manifest, name: string, layout: ContainerLayout): NodeConfig {
  const index = manifest.nodes.findIndex((node) => node.name === name);
  if (index < 0) {
    throw new CliError(`network ${manifest.name} has no validator ${JSON.stringify(name)}`, `Use one of ${manifest.nodes.map((n) => n.name).join(", ")}`);
  }
  checkPortBase(layout.portBase, manifest.nodes.length, "--port-base");
  const configs = networkConfigs(manifest, { dataDir: layout.dataDir ?? CONTAINER_DATA_DIR, portBase: layout.portBase });
  return toContainerConfig(configs[index], manifest, layout);
}

/** Rewrites one generated config (from networkConfigs with the same port base) for a container. */
export function toContainerConfig(config: NodeConfig, manifest: Manifest, layout: ContainerLayout): NodeConfig {
  const hostOf = layout.hostOf ?? ((name: string) => name);
  const nameByAddress = new Map(manifest.nodes.map((node) => [node.account.address, node.name]));
  const peerHost = (address: string): string => {
    const peer = nameByAddress.get(address);
    if (peer === undefined) throw new CliError(`config of ${config.node_name} names a peer ${address}, which is no validator of ${manifest.name}`, "Report this as a bug");
    return hostOf(peer);
  };
  return {
    ...config,
    data_dir: layout.dataDir ?? CONTAINER_DATA_DIR,
    webserver: { ...config.webserver, listen_addresses: withHost(config.webserver.listen_addresses, CONTAINER_LISTEN_HOST) },
    wsserver: { ...config.wsserver, listen_address: withHost(config.wsserver.listen_address, CONTAINER_LISTEN_HOST) },
    p2p: {
      ...config.p2p,
      listen_address: withHost(config.p2p.listen_address, CONTAINER_LISTEN_HOST),
      // Same port inside every container as on the host; only the host becomes the peer's service name.
      peers: config.p2p.peers.map((peer) => ({ ...peer, host: peerHost(peer.address) })),
    },
  };
}

/** `host:port` with the host replaced. */
function withHost(hostPort: string, host: string): string {
  return `${host}:${parseHostPort(hostPort).port}`;
}
