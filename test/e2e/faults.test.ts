import { expect } from "chai";
import { Keypair, payCoin, sendTransaction, type ChainsimClient } from "@chainsim/client";
import { parseJson, stringifyJson } from "@chainsim/protocol";
import { dumpLogsOnFailure, majorityView, startTestNetwork, testManifest, waitFor, type TestNetwork } from "../harness/network.js";

/**
 * The message fault plane on four real validator processes (issue 5, point 1): an equivocating primary,
 * a partitioned backup and a censoring primary (issue 11, point 8), driven over /debug/faults. Agreement must hold at every seq on every node,
 * and ledgers must advance again once the rules are deleted.
 */
describe("e2e: message faults over /debug/faults on four validators", function () {
  this.timeout(180_000);
  let net: TestNetwork;
  let genesis: Keypair;
  let nonce = 0n;

  before(async () => {
    net = await startTestNetwork(testManifest("e2e-faults", 4, { close_interval_ms: 200, empty_close_interval_ms: 500, view_timeout_ms: 1000 }));
    genesis = Keypair.fromPrivateKey(net.handle.manifest.genesis.account.private_key);
  });
  after(async () => net?.cleanup());
  dumpLogsOnFailure(() => net);

  const clients = (): ChainsimClient[] => net.clients;
  const all = [0, 1, 2, 3];
  const address = (i: number) => net.handle.nodes[i].address;

  /** Calls /debug/faults on node i and returns its result; fails on any error code. */
  async function faults(i: number, method: string, body?: unknown): Promise<any> {
    const res = await fetch(`${net.handle.nodes[i].http}/debug/faults`, { method, body: body === undefined ? undefined : stringifyJson(body) });
    const answer = parseJson(await res.text()) as { error_code: number; error_desc: string; result: any };
    expect(answer.error_code, `${method} /debug/faults on ${net.handle.nodes[i].name}: ${answer.error_desc}`).to.equal(0);
    return answer.result;
  }

  async function tip(i: number): Promise<bigint> {
    return BigInt((await clients()[i].getLedger()).result!.header.seq as unknown as string | number);
  }

  async function advance(nodes: number[], count: bigint, timeoutMs = 40_000): Promise<void> {
    const from = await Promise.all(nodes.map(tip));
    await waitFor(`${count} more ledgers on nodes ${nodes.join(", ")}`, async () => ((await Promise.all(nodes.map(tip))).every((t, k) => t >= from[k] + count) ? true : undefined), timeoutMs);
  }

  async function primary(): Promise<number> {
    return (await majorityView(net, all)).primary;
  }

  async function pay(i: number): Promise<string> {
    return (await sendTransaction(clients()[i], { signers: [genesis], operations: [payCoin(Keypair.generate().address, 1_000n)], nonce: ++nonce })).hash;
  }

  it("fault injection is on in test manifests and starts with no rules", async () => {
    for (const i of all) expect(await faults(i, "GET")).to.deep.include({ enabled: true, rules: [], unsafe_quorum: null });
  });

  it("an equivocating primary does not break agreement", async () => {
    const leader = await primary();
    await faults(leader, "POST", { kind: "byzantine", mode: "equivocate", duration_ms: 20_000 });
    for (let k = 0; k < 5; k++) await pay(all[k % 4]);
    await advance(all, 4n);
    expect((await faults(leader, "GET")).stats.byzantine, "pre-prepares changed by the primary").to.be.greaterThan(0);
    await faults(leader, "DELETE");
  });

  it("a partitioned backup stops, the other three go on, and after DELETE it catches up", async () => {
    const leader = await primary();
    const cut = all.find((i) => i !== leader)!;
    const rest = all.filter((i) => i !== cut);
    await faults(cut, "POST", { kind: "partition", peers: rest.map(address) });
    for (const i of rest) await faults(i, "POST", { kind: "partition", peers: [address(cut)] });
    const cutTip = await tip(cut);
    await advance(rest, 3n);
    // a decision in flight when the rule came may still land: at most one ledger more
    expect(Number(await tip(cut))).to.be.at.most(Number(cutTip) + 1);
    expect((await faults(cut, "GET")).stats.partitioned).to.be.greaterThan(0);

    for (const i of all) await faults(i, "DELETE");
    const target = (await Promise.all(rest.map(tip))).reduce((a, b) => (a > b ? a : b)) + 2n;
    await waitFor(`every node at ledger ${target}`, async () => ((await Promise.all(all.map(tip))).every((t) => t >= target) ? true : undefined), 40_000);
  });

  it("a censoring primary (empty ledgers while a transaction waits) is replaced, and the transaction commits", async () => {
    const { view, primary: censor } = await majorityView(net, all);
    await faults(censor, "POST", { kind: "byzantine", mode: "censor" });
    const backup = (censor + 1) % 4;
    const started = Date.now();
    const hash = await pay(backup);
    // Overdue after max(4 × view_timeout_ms, 6 s), then three empty ledgers (strikes) at every backup.
    await waitFor("the censored transaction in a ledger", async () => ((await clients()[backup].getTransactionHistory({ hash })).error_code === 0 ? true : undefined), 60_000);
    const waitedMs = Date.now() - started;
    const after = await majorityView(net, all);
    expect(after.view).to.be.greaterThan(view);
    expect(after.primary).to.not.equal(censor);
    console.log(`      censoring primary ${net.handle.nodes[censor].name} replaced; the transaction waited ${waitedMs} ms`);
    await faults(censor, "DELETE");
  });

  it("every node has the same ledger hash at every seq", async () => {
    const common = (await Promise.all(all.map(tip))).reduce((a, b) => (a < b ? a : b));
    for (let seq = 1n; seq <= common; seq++) {
      const hashes = await Promise.all(all.map(async (i) => (await clients()[i].getLedger({ seq: Number(seq) })).result!.header.hash as string));
      expect(new Set(hashes).size, `ledger ${seq}: ${hashes.join(" ")}`).to.equal(1);
    }
  });
});
