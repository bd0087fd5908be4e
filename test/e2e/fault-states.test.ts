import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isValidatorRunning, launchTemporaryNetwork, parseManifest, readNetworkRecord, stopRecordedNetwork } from "@chainsim/cli";
import { ChainsimClient } from "@chainsim/client";
import { parseJson } from "@chainsim/protocol";
import { faultStateTable, type FaultBackend, type Observed } from "../harness/fault-states.js";
import { dumpLogsOnFailure, testManifest, waitFor, type TestNetwork } from "../harness/network.js";

/**
 * `chainsim fault --data-dir D` on a validator that is down, paused or disconnected (issue 13, point 2), on
 * four local validator processes. A validator `fault start` brings back runs detached and is recorded in
 * network.json, so the teardown stops the recorded network as `chainsim down` would.
 */
describe("e2e: chainsim fault on a down, paused or disconnected validator (processes)", function () {
  this.timeout(240_000);
  let net: TestNetwork;

  before(async () => {
    const manifest = testManifest("e2e-fault-states", 4, { close_interval_ms: 200, empty_close_interval_ms: 500, view_timeout_ms: 1000 });
    // A loaded machine can take more than the default 30 s to start four validators.
    const launched = await launchTemporaryNetwork((dataDir) => parseManifest(manifest, join(dataDir, "manifest.toml")), { readyTimeoutMs: 120_000 });
    net = { ...launched, clients: launched.handle.nodes.map((n) => new ChainsimClient(n.http)) };
  });
  after(async () => {
    if (net) await stopRecordedNetwork(net.dataDir, { signal: "SIGKILL" });
    await net?.cleanup();
  });
  dumpLogsOnFailure(() => net);

  async function observe(): Promise<Observed> {
    const record = (await readNetworkRecord(net.dataDir))!;
    const [v1, ...others] = record.nodes;
    const stat = isValidatorRunning(v1.pid, v1.config_file) ? readFileSync(`/proc/${v1.pid}/stat`, "utf8") : undefined;
    const process = stat === undefined ? "down" : stat.slice(stat.lastIndexOf(")") + 2).startsWith("T") ? "paused" : "running";
    const rules = await Promise.all(
      others.map(async (n) => ((parseJson(await (await fetch(`${n.http}/debug/faults`)).text()) as any).result.rules as { kind: string; peers: string[] | null }[])),
    );
    const disconnected = rules.flat().some((r) => r.kind === "partition" && (r.peers ?? []).includes(v1.address));
    return { process, disconnected };
  }

  faultStateTable(
    (): FaultBackend => ({
      kind: "processes",
      networkArgs: ["--data-dir", net.dataDir],
      observe,
      waitServing: async () => void (await waitFor("v1 to answer /hello", () => net.clients[0].hello().then(() => true, () => undefined), 30_000, 100)),
    }),
  );
});
