import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isPortFree, launchNetwork, nodePorts, parseManifest, type NetworkHandle } from "@chainsim/cli";
import { ChainsimClient } from "@chainsim/client";

/** A network started for one test file: real validator processes on free ports in a temp directory. */
export interface TestNetwork {
  handle: NetworkHandle;
  clients: ChainsimClient[];
  dataDir: string;
  /** Stops every validator (also after a failed test) and removes the data. Safe to call twice. */
  cleanup(): Promise<void>;
}

/** A manifest with fast ledger closes, so tests wait little. */
export function testManifest(name: string, nodes: number, consensus: Record<string, number> = {}, extra: string[] = []): string {
  const settings = { close_interval_ms: 200, empty_close_interval_ms: 1000, view_timeout_ms: 2000, ckp_interval: 10, ...consensus };
  return [
    `name = "${name}"`,
    `port_base = 16000`,
    `[genesis]`,
    `balance = 100000000000000000`,
    `gas_price = 100`,
    `base_reserve = 0`,
    `[consensus]`,
    ...Object.entries(settings).map(([k, v]) => `${k} = ${v}`),
    ...Array.from({ length: nodes }, (_, i) => `[node.v${i + 1}]`),
    ...extra, // more tables, e.g. ["[dev]", "private_key_endpoints = false"]
  ].join("\n");
}

/** A port base whose ports are all free: random, checked, retried. */
export async function freePortBase(nodes: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20000 + 10 * Math.floor(Math.random() * 3000);
    const ports = Array.from({ length: nodes }, (_, i) => nodePorts(base, i)).flatMap((p) => [p.p2p, p.http, p.ws]);
    if ((await Promise.all(ports.map((p) => isPortFree(p)))).every(Boolean)) return base;
  }
  throw new Error("no free port range found after 50 attempts");
}

export async function startTestNetwork(manifestText: string): Promise<TestNetwork> {
  const dataDir = await mkdtemp(join(tmpdir(), "chainsim-e2e-"));
  const manifest = parseManifest(manifestText, join(dataDir, "manifest.toml"));
  let handle: NetworkHandle | undefined;
  let cleaned = false;
  const cleanup = async () => {
    if (cleaned) return;
    cleaned = true;
    await handle?.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    handle = await launchNetwork(manifest, { dataDir, portBase: await freePortBase(manifest.nodes.length) });
  } catch (error) {
    await cleanup();
    throw error;
  }
  return { handle, clients: handle.nodes.map((n) => new ChainsimClient(n.http)), dataDir, cleanup };
}

/** Polls `condition` every `intervalMs` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, condition: () => Promise<T | undefined>, timeoutMs = 15_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
