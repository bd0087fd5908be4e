import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { launchTemporaryNetwork, parseManifest, type TemporaryNetwork, type TemporaryNetworkOptions } from "@chainsim/cli";
import { expect } from "chai";
import { ChainsimClient, type ConsensusInfoResponse } from "@chainsim/client";

/** A network started for one test file: real validator processes on free ports in a temp directory. */
export interface TestNetwork extends TemporaryNetwork {
  clients: ChainsimClient[];
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

/** How long a test waits for each validator's /hello: starting one takes seconds, a minute on a crowded machine. */
const READY_TIMEOUT_MS = 120_000;

export async function startTestNetwork(manifestText: string, options?: TemporaryNetworkOptions): Promise<TestNetwork> {
  const network = await launchTemporaryNetwork((dataDir) => parseManifest(manifestText, join(dataDir, "manifest.toml")), { readyTimeoutMs: READY_TIMEOUT_MS, ...options });
  return { ...network, clients: network.handle.nodes.map((n) => new ChainsimClient(n.http)) };
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

/**
 * The view that a majority of `nodes` (indexes into the network) is active in, with its primary's index.
 * A majority, not one node: a replica that timed out alone has left that view and waits for f+1 others
 * (docs/consensus.md, "A replica that moved to a view alone"), which a loaded machine can cause any time.
 */
export async function majorityView(net: TestNetwork, nodes: number[]): Promise<{ view: number; primary: number; infos: ConsensusInfoResponse[] }> {
  const names = nodes.map((i) => net.handle.nodes[i].name).join(", ");
  return waitFor(`a view that a majority of ${names} is active in`, async () => {
    const infos = await Promise.all(nodes.map((i) => net.clients[i].getConsensusInfo()));
    const votes = new Map<string, number>();
    for (const info of infos) {
      const key = `${info.view_number} ${info.leader}`;
      if (info.view_active) votes.set(key, (votes.get(key) ?? 0) + 1);
    }
    const [key] = [...votes].find(([, count]) => count > nodes.length / 2) ?? [];
    if (key === undefined) return undefined;
    const [view, leader] = key.split(" ");
    return { view: Number(view), primary: net.handle.nodes.findIndex((n) => n.address === leader), infos };
  });
}

/**
 * Registers an afterEach hook that prints the end of every node's log when a test fails, so a failure
 * in CI shows what the validators did (the temp directory with the logs is removed afterwards).
 */
export function dumpLogsOnFailure(network: () => TestNetwork | undefined, lines = 40): void {
  afterEach(async function () {
    const net = network();
    if (this.currentTest?.state !== "failed" || !net) return;
    for (const node of net.handle.nodes) {
      const text = await readFile(node.process.paths.logFile, "utf8").catch((error: Error) => `(no log: ${error.message})`);
      process.stderr.write(`----- ${node.name} (${node.process.paths.logFile}), last ${lines} lines -----\n${text.split("\n").slice(-lines - 1).join("\n")}\n`);
    }
  });
}

/** Every validator has closed a ledger past `seq`, and all have the same hash at `seq` and the one after. */
export async function agreeAfter(clients: ChainsimClient[], seq: bigint): Promise<void> {
  await waitFor(`every validator past ledger ${seq}`, async () => {
    const tips = await Promise.all(clients.map(async (c) => BigInt(String((await c.getLedger()).result!.header.seq))));
    return tips.every((tip) => tip > seq) ? true : undefined;
  }, 30_000);
  for (const at of [seq, seq + 1n]) {
    const hashes = await Promise.all(clients.map(async (c) => (await c.getLedger({ seq: Number(at) })).result!.header.hash));
    expect(new Set(hashes).size, `ledger ${at}: ${hashes.join(" ")}`).to.equal(1);
  }
}
