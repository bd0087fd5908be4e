// The node's Prometheus metrics (docs/operations.md, "Metrics"): the numbers move with what they count.
import { expect } from "chai";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { createApp, sendJson } from "../src/http/app.js";
import { DEFAULT_LIMITS } from "../src/config.js";
import { JsonBodyParser } from "../src/http/json-body.js";
import { mountMetricsRoutes } from "../src/http/routes/metrics.js";
import { NodeMetrics, UNMATCHED_ROUTE } from "../src/metrics/node-metrics.js";
import { ContractFailure, type ContractRuntime, type ExecutionOutcome, type ExecutionRequest } from "@chainsim/contracts";
import type { MessageHandler, PeerNetwork } from "../src/p2p/index.js";
import { TestChain, makeKey, op } from "./helpers/chain.js";

const A = makeKey("a");
const DEST = makeKey("dest").address;

/** The samples of one metric family, as prom-client reports them. */
async function samples(metrics: NodeMetrics, name: string): Promise<{ labels: Record<string, string | number>; value: number; metricName?: string }[]> {
  const family = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  if (!family) throw new Error(`no metric family ${name}`);
  return family.values as { labels: Record<string, string | number>; value: number; metricName?: string }[];
}

describe("NodeMetrics", () => {
  describe("ledgers and the pool", () => {
    let chain: TestChain;
    beforeEach(async () => {
      chain = await TestChain.create();
      await chain.fund(A);
    });
    afterEach(() => chain.teardown());

    it("follows the height and the pool, and times a transaction from admission to its ledger's commit", async () => {
      const metrics = new NodeMetrics();
      metrics.watchLedgers(chain.ledgers, chain.txs);
      const count = async () => (await samples(metrics, "chainsim_commit_latency_seconds")).find((s) => s.metricName === "chainsim_commit_latency_seconds_count")!.value;
      const heightBefore = (await samples(metrics, "chainsim_ledger_height"))[0]!.value;
      expect(heightBefore).to.equal(Number(chain.ledgers.lastHeader.seq));
      expect(await count()).to.equal(0);

      expect(await chain.txs.submit(await chain.tx(A, [op.pay(DEST, 1n)]))).to.equal("added");
      expect((await samples(metrics, "chainsim_pool_transactions"))[0]!.value).to.equal(1);
      await chain.close();

      expect((await samples(metrics, "chainsim_ledger_height"))[0]!.value).to.equal(heightBefore + 1);
      expect((await samples(metrics, "chainsim_pool_transactions"))[0]!.value).to.equal(0);
      expect(await count()).to.equal(1);
    });
  });

  describe("HTTP requests", () => {
    let server: Server;
    let base: string;
    const metrics = new NodeMetrics();
    const bodies = new JsonBodyParser();
    before(async () => {
      const stats = { start_request_count: 0, end_request_count: 0, expire_request_count: 0 };
      const app = createApp(
        (a) => {
          a.get("/items/:id", (req, res) => sendJson(res, { error_code: 0, result: req.params.id }));
          mountMetricsRoutes(a, metrics);
        },
        stats,
        bodies,
        DEFAULT_LIMITS,
        () => {},
        (req, res) => metrics.trackRequest(req, res),
      );
      server = app.listen(0, "127.0.0.1");
      await new Promise((resolve) => server.once("listening", resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await bodies.close();
    });

    const requests = async (): Promise<Record<string, string | number>[]> => (await samples(metrics, "chainsim_http_requests_total")).map((s) => ({ ...s.labels, value: s.value }));

    it("counts a route under its pattern and status, never its raw URL", async () => {
      await fetch(`${base}/items/1`);
      await fetch(`${base}/items/2?x=y`);
      expect(await requests()).to.deep.include({ method: "GET", route: "/items/:id", status: "200", value: 2 });
    });

    it("counts every path without a route under one label", async () => {
      for (const path of ["/no/such/path", "/another-one", "/items"]) expect((await fetch(base + path)).status).to.equal(404);
      const unmatched = (await requests()).filter((r) => r.route === UNMATCHED_ROUTE);
      expect(unmatched).to.deep.equal([{ method: "GET", route: UNMATCHED_ROUTE, status: "404", value: 3 }]);
      expect((await requests()).map((r) => r.route)).to.not.include.members(["/no/such/path", "/another-one"]);
    });

    it("answers GET /metrics in Prometheus' text format, with the process metrics", async () => {
      const answer = await fetch(`${base}/metrics`);
      expect(answer.headers.get("content-type")).to.equal(metrics.registry.contentType);
      const text = await answer.text();
      expect(text).to.match(/^# HELP chainsim_http_requests_total /m);
      expect(text).to.match(/^process_resident_memory_bytes \d+/m);
      expect(text).to.match(/^nodejs_eventloop_lag_seconds /m);
    });
  });

  describe("contract runs", () => {
    /** A runtime whose runs use `steps` and then fail with `code`, if given. */
    const runtime = (steps: number, code?: number): ContractRuntime => ({
      validate: async () => {},
      execute: async (request) => {
        request.meter.used += steps;
        if (code !== undefined) throw new ContractFailure(code, "failed");
        return {} as ExecutionOutcome;
      },
      dispose: () => {},
    });
    const request = (depth: number, used = 0) => ({ depth, meter: { used, limit: 1000, exhausted: false } }) as unknown as ExecutionRequest;

    it("counts runs, the steps of outermost runs, and failures by error code, per purpose", async () => {
      const metrics = new NodeMetrics();
      const ledger = metrics.contractRuntime(runtime(7), "ledger");
      await ledger.execute(request(0, 100));
      await ledger.execute(request(1)); // nested: its steps are the outermost run's
      const failing = metrics.contractRuntime(runtime(5, 151), "query");
      await failing.execute(request(0)).catch(() => {});
      const figures = async (name: string) => (await samples(metrics, name)).map((s) => ({ ...s.labels, value: s.value }));
      expect(await figures("chainsim_contract_runs_total")).to.deep.equal([{ purpose: "ledger", value: 2 }, { purpose: "query", value: 1 }]);
      expect(await figures("chainsim_contract_steps_total")).to.deep.equal([{ purpose: "ledger", value: 7 }, { purpose: "query", value: 5 }]);
      expect(await figures("chainsim_contract_failures_total")).to.deep.equal([{ purpose: "query", error_code: "151", value: 1 }]);
    });
  });

  describe("peer messages", () => {
    it("counts messages and payload bytes by direction, type and peer; a broadcast once per configured peer", async () => {
      let deliver: MessageHandler = () => {};
      const inner = { send: () => {}, broadcast: () => {}, onMessage: (handler: MessageHandler) => (deliver = handler) } as unknown as PeerNetwork;
      const metrics = new NodeMetrics();
      const network = metrics.peerNetwork(inner, ["p1", "p2"]);
      const received: string[] = [];
      network.onMessage((from) => received.push(from));
      network.broadcast(new Uint8Array(10), "consensus");
      network.send("p2", new Uint8Array(3), "txs");
      deliver("p1", new Uint8Array(4), "status");
      expect(received).to.deep.equal(["p1"]);
      const figures = async (name: string) => (await samples(metrics, name)).map((s) => ({ ...s.labels, value: s.value }));
      expect(await figures("chainsim_p2p_messages_total")).to.have.deep.members([
        { direction: "sent", type: "consensus", peer: "p1", value: 1 },
        { direction: "sent", type: "consensus", peer: "p2", value: 1 },
        { direction: "sent", type: "txs", peer: "p2", value: 1 },
        { direction: "received", type: "status", peer: "p1", value: 1 },
      ]);
      expect(await figures("chainsim_p2p_bytes_total")).to.have.deep.members([
        { direction: "sent", type: "consensus", peer: "p1", value: 10 },
        { direction: "sent", type: "consensus", peer: "p2", value: 10 },
        { direction: "sent", type: "txs", peer: "p2", value: 3 },
        { direction: "received", type: "status", peer: "p1", value: 4 },
      ]);
    });
  });
});
