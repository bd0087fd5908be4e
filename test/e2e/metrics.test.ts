import { expect } from "chai";
import { Keypair, payCoin, sendTransaction, waitForTransaction } from "@chainsim/client";
import { parsePrometheusText, type MetricFamily, type MetricType } from "@chainsim/cli";
import { dumpLogsOnFailure, startTestNetwork, testManifest, waitFor, type TestNetwork } from "../harness/network.js";

/** The families docs/operations.md "Metrics" lists, with their types. */
const FAMILIES: Record<string, MetricType> = {
  chainsim_ledger_height: "gauge",
  chainsim_consensus_view: "gauge",
  chainsim_consensus_view_changes_total: "counter",
  chainsim_consensus_phase_seconds: "histogram",
  chainsim_commit_latency_seconds: "histogram",
  chainsim_pool_transactions: "gauge",
  chainsim_p2p_messages_total: "counter",
  chainsim_p2p_bytes_total: "counter",
  chainsim_http_requests_total: "counter",
  chainsim_contract_runs_total: "counter",
  chainsim_contract_steps_total: "counter",
  chainsim_contract_failures_total: "counter",
  chainsim_fault_rules_active: "gauge",
  process_cpu_seconds_total: "counter",
  process_resident_memory_bytes: "gauge",
  nodejs_eventloop_lag_seconds: "gauge",
};

/**
 * GET /metrics on every validator of a real four-validator network (issue 13, point 2): Prometheus' text
 * format, read by a strict parser, with every family and figures that follow what the network did.
 */
describe("e2e: Prometheus metrics on every validator", function () {
  this.timeout(180_000);
  let net: TestNetwork;

  before(async () => {
    net = await startTestNetwork(testManifest("e2e-metrics", 4));
  });
  after(async () => net?.cleanup());
  dumpLogsOnFailure(() => net);

  async function scrape(i: number): Promise<Map<string, MetricFamily>> {
    const answer = await fetch(`${net.handle.nodes[i].http}/metrics`);
    expect(answer.status).to.equal(200);
    expect(answer.headers.get("content-type")).to.match(/^text\/plain; version=0\.0\.4/);
    return parsePrometheusText(await answer.text());
  }

  const value = (families: Map<string, MetricFamily>, sample: string, labels: Record<string, string> = {}) =>
    families.get(sample.replace(/_(count|sum|bucket)$/, ""))?.samples.find((s) => s.name === sample && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

  it("serves every family on every node, with figures that follow the network", async () => {
    const genesis = Keypair.fromPrivateKey(net.handle.manifest.genesis.account.private_key);
    let nonce = 0n;
    const pay = async () => {
      nonce += 1n;
      const { hash } = await sendTransaction(net.clients[0], { signers: [genesis], operations: [payCoin(Keypair.generate().address, 1_000n)], nonce });
      await waitForTransaction(net.clients[0], hash);
      return hash;
    };
    const hash = await pay();
    await fetch(`${net.handle.nodes[0].http}/no/such/${hash}`);

    for (const [i, node] of net.handle.nodes.entries()) {
      // The phase figures need a ledger this node decided in its rounds: one it only fetched by ledger sync (a
      // validator that started late on a loaded machine) has none. So a ledger more is closed until it has.
      const families = await waitFor(`a ledger decided and stored by ${node.name}`, async () => {
        const read = await scrape(i);
        const decidedHere = (phase: string) => (value(read, "chainsim_consensus_phase_seconds_count", { phase }) ?? 0) > 0;
        if (decidedHere("pre_prepare_to_decided") && decidedHere("decided_to_stored")) return read;
        await pay();
        return undefined;
      }, 60_000);
      for (const [name, type] of Object.entries(FAMILIES)) expect(families.get(name)?.type, `${name} on ${node.name}`).to.equal(type);
      expect(value(families, "chainsim_consensus_view")).to.be.at.least(0);
      expect(value(families, "chainsim_consensus_view_changes_total")).to.be.at.least(0);
      expect(value(families, "chainsim_pool_transactions")).to.be.at.least(0);
      expect(value(families, "chainsim_fault_rules_active")).to.equal(0);
      expect(value(families, "process_resident_memory_bytes")).to.be.above(0);
      for (const peer of net.handle.nodes.filter((other) => other !== node)) {
        for (const direction of ["sent", "received"]) {
          const labels = { direction, type: "consensus", peer: peer.address };
          expect(value(families, "chainsim_p2p_messages_total", labels), `${node.name} ${direction} ${peer.name}`).to.be.above(0);
          expect(value(families, "chainsim_p2p_bytes_total", labels)).to.be.above(value(families, "chainsim_p2p_messages_total", labels)!);
        }
      }
      const peerLabels = new Set(families.get("chainsim_p2p_messages_total")!.samples.map((s) => s.labels.peer));
      expect([...peerLabels].sort()).to.deep.equal(net.handle.nodes.filter((other) => other !== node).map((other) => other.address).sort());
    }

    const first = await scrape(0);
    expect(value(first, "chainsim_commit_latency_seconds_count")).to.be.at.least(1);
    expect(value(first, "chainsim_http_requests_total", { method: "GET", route: "/metrics", status: "200" })).to.be.at.least(1);
    expect(value(first, "chainsim_http_requests_total", { method: "POST", route: "/submitTransaction", status: "200" })).to.equal(Number(nonce));
    expect(value(first, "chainsim_http_requests_total", { route: "unmatched", status: "404" })).to.equal(1);
    expect(first.get("chainsim_http_requests_total")!.samples.map((s) => s.labels.route)).to.not.include(`/no/such/${hash}`);
  });

  it("counts the active message fault rules", async () => {
    const { http } = net.handle.nodes[1];
    const posted = await fetch(`${http}/debug/faults`, { method: "POST", body: JSON.stringify({ kind: "delay", delay_ms: 1, jitter_ms: 0, duration_ms: 60_000 }) });
    expect(((await posted.json()) as { error_code: number }).error_code).to.equal(0);
    expect(value(await scrape(1), "chainsim_fault_rules_active")).to.equal(1);
    await fetch(`${http}/debug/faults`, { method: "DELETE" });
    expect(value(await scrape(1), "chainsim_fault_rules_active")).to.equal(0);
  });
});
