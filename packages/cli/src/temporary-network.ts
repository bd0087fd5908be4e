import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitForAgreement } from "./agreement.js";
import { launchNetwork, type LaunchOptions, type NetworkHandle } from "./launcher.js";
import type { Manifest } from "./manifest.js";
import { nodePorts } from "./network-config.js";
import { isPortFree } from "./port-check.js";

/** A network in a fresh temporary directory on free ports, for tests and benchmarks; ready once its validators agree on ledger 2. */
export interface TemporaryNetwork {
  handle: NetworkHandle;
  dataDir: string;
  /** Stops every validator and removes the directory; safe to call twice. */
  cleanup(): Promise<void>;
}

/**
 * A port base whose ports are all free: random in 20000..32000, checked, retried. The range stays below
 * Linux's ephemeral ports (32768–60999), which outgoing connections may take at any moment.
 */
export async function freePortBase(nodes: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20000 + 10 * Math.floor(Math.random() * 1201);
    const ports = Array.from({ length: nodes }, (_, i) => nodePorts(base, i)).flatMap((p) => [p.p2p, p.http, p.ws]);
    if ((await Promise.all(ports.map((p) => isPortFree(p)))).every(Boolean)) return base;
  }
  throw new Error("no free port range found after 50 attempts");
}

export interface TemporaryNetworkOptions {
  /** Port slots to keep free (default: one per validator; twins need a second set). */
  portSlots?: number;
  /** Extra environment per validator, as LaunchOptions.nodeEnv. */
  nodeEnv?: LaunchOptions["nodeEnv"];
  onProgress?: (message: string) => void;
  /** As LaunchOptions.readyTimeoutMs (default 30 s). */
  readyTimeoutMs?: number;
}

/** Launches `manifest` (parsed by the caller, e.g. with parseManifest) in a temporary directory. */
export async function launchTemporaryNetwork(manifest: (dataDir: string) => Manifest, options: TemporaryNetworkOptions = {}): Promise<TemporaryNetwork> {
  const dataDir = await mkdtemp(join(tmpdir(), "chainsim-"));
  let handle: NetworkHandle | undefined;
  let cleaned = false;
  const cleanup = async () => {
    if (cleaned) return;
    cleaned = true;
    await handle?.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const parsed = manifest(dataDir);
    const portBase = await freePortBase(options.portSlots ?? parsed.nodes.length);
    handle = await launchNetwork(parsed, { dataDir, portBase, nodeEnv: options.nodeEnv, onProgress: options.onProgress, readyTimeoutMs: options.readyTimeoutMs });
    await waitForAgreement(handle, { onProgress: options.onProgress });
  } catch (error) {
    await cleanup();
    throw error;
  }
  return { handle, dataDir, cleanup };
}
