import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { readNetworkStatus, statusRows } from "../src/network-status.js";

/** A stand-in node answering the three routes status reads, with the given view of the chain. */
function fakeNode(lastSeq: number, hashes: Record<number, string>, leader: boolean): Promise<{ http: string; server: Server }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url!, "http://x");
    const answer = (result: unknown) => res.end(JSON.stringify({ error_code: 0, result }));
    if (url.pathname === "/getConsensusInfo") {
      return answer({ validator_address: "did:bid:efx", is_leader: leader, leader: "did:bid:efl", view_number: 3, view_active: true, last_exe_seq: lastSeq, instances: [{ seq: lastSeq + 1, phase: "PHASE_PREPARED" }] });
    }
    if (url.pathname === "/getModulesStatus") return answer({ peer_manager: { consensus_network: { peer_active_size: 3 } }, glue_manager: { transaction_pool: { queue_size: 7 } } });
    if (url.pathname === "/getLedger") return answer({ header: { seq: Number(url.searchParams.get("seq")), hash: hashes[Number(url.searchParams.get("seq"))] } });
    res.statusCode = 404;
    res.end();
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ http: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server })));
}

describe("network status", () => {
  const servers: Server[] = [];
  afterEach(() => servers.splice(0).forEach((s) => s.close()));

  async function nodes(specs: [number, Record<number, string>, boolean][]) {
    const started = await Promise.all(specs.map(([seq, hashes, leader]) => fakeNode(seq, hashes, leader)));
    servers.push(...started.map((s) => s.server));
    return started.map((s, i) => ({ name: `v${i + 1}`, http: s.http }));
  }

  it("compares ledger hashes at the highest sequence every node has, and shows each node's role and phase", async () => {
    const list = await nodes([
      [12, { 10: "aa".repeat(32) }, true],
      [10, { 10: "aa".repeat(32) }, false],
    ]);
    const status = await readNetworkStatus(list);
    expect(status.common_seq).to.equal(10);
    expect(status.mismatch).to.equal(false);
    expect(status.nodes[0]).to.deep.include({ name: "v1", is_leader: true, view: 3, last_exe_seq: 12, phase: "PHASE_PREPARED", peers: 3, pool: 7, hash: "aa".repeat(32) });
    const rows = statusRows(status);
    expect(rows[0]).to.deep.equal(["name", "leader", "view", "last_exe_seq", "phase", "peers", "pool", "hash@10"]);
    expect(rows[1]).to.deep.equal(["v1", "*", "3", "12", "PREPARED", "3", "7", "aa".repeat(8)]);
  });

  it("flags different hashes at one sequence as a fork, and a node that does not answer as DOWN", async () => {
    const list = await nodes([
      [5, { 5: "aa".repeat(32) }, false],
      [5, { 5: "bb".repeat(32) }, false],
    ]);
    const down = await nodes([[1, {}, false]]);
    servers.pop()!.close();
    const status = await readNetworkStatus([...list, { name: "v3", http: down[0].http }]);
    expect(status.mismatch).to.equal(true);
    expect(status.nodes[2].error).to.match(/not answering/);
    const rows = statusRows(status);
    expect(rows[1][7]).to.contain("MISMATCH");
    expect(rows[3][7]).to.match(/^DOWN: /);
  });
});
