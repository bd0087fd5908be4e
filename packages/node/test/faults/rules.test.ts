import { expect } from "chai";
import type { AddressInfo } from "node:net";
import { ChainError, parseJson, stringifyJson } from "@chainsim/protocol";
import { createApp } from "../../src/http/app.js";
import { DEFAULT_LIMITS } from "../../src/config.js";
import { JsonBodyParser } from "../../src/http/json-body.js";
import { mountFaultRoutes } from "../../src/http/routes/faults.js";
import { unsafeQuorumFromEnv } from "../../src/faults/index.js";
import { faultyNet, type FaultyNet } from "./setup.js";

describe("faults: rule validation and the /debug/faults routes", () => {
  let net: FaultyNet;
  before(async () => {
    net = await faultyNet();
  });
  after(async () => net.stop());

  const refusals: [string, Record<string, unknown>, RegExp][] = [
    ["an unknown kind", { kind: "explode" }, /kind should be one of/],
    ["an unknown mode", { kind: "byzantine", mode: "lie" }, /mode should be one of/],
    ["a probability above 1", { kind: "drop", probability: 1.5 }, /probability/],
    ["a negative probability", { kind: "duplicate", probability: -0.1 }, /probability/],
    ["a missing probability", { kind: "reorder" }, /probability/],
    ["a negative delay", { kind: "delay", delay_ms: -5 }, /delay_ms/],
    ["a negative jitter", { kind: "delay", delay_ms: 5, jitter_ms: -1 }, /jitter_ms/],
    ["a negative duration", { kind: "drop", probability: 1, duration_ms: -1 }, /duration_ms/],
    ["a delay longer than a timer holds", { kind: "delay", delay_ms: 1e20 }, /delay_ms .* to 2147483647/],
    ["a duration longer than a timer holds", { kind: "drop", probability: 1, duration_ms: 2 ** 31 }, /duration_ms/],
    ["an unknown peer", { kind: "drop", probability: 1, peers: ["did:bid:nobody"] }, /not a peer/],
    ["a partition without peers", { kind: "partition" }, /partition needs peers/],
    ["an unknown key", { kind: "drop", probability: 1, probabilty: 1 }, /unknown key/],
    ["a crash at an unknown point", { kind: "crash", point: "somewhere" }, /point should be one of before-ledger-write, ledger-write, state-apply/],
  ];
  for (const [what, body, message] of refusals) {
    it(`refuses ${what} with error 2`, () => {
      let error: unknown;
      try {
        net.plane.add(body);
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(ChainError);
      expect((error as ChainError).code).to.equal(2);
      expect((error as ChainError).message).to.match(message);
    });
  }

  it("a crash rule names its store point, takes no peers, and only that point crashes", () => {
    expect(() => net.plane.add({ kind: "crash", point: "ledger-write", peers: [net.plane.peers[0]] })).to.throw(/crash takes no peers/);
    const id = net.plane.add({ kind: "crash", point: "state-apply", duration_ms: 60_000 });
    try {
      expect(net.plane.crashes("state-apply")).to.equal(true);
      expect(net.plane.crashes("ledger-write")).to.equal(false);
    } finally {
      net.plane.remove(id);
    }
    expect(net.plane.crashes("state-apply")).to.equal(false);
  });

  async function serve(withPlane: boolean): Promise<{ call: (method: string, path: string, body?: unknown) => Promise<any>; close: () => void }> {
    const app = createApp((a) => mountFaultRoutes(a, withPlane ? net.plane : undefined), { start_request_count: 0, end_request_count: 0, expire_request_count: 0 }, new JsonBodyParser(), DEFAULT_LIMITS, () => {});
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return {
      call: async (method, path, body) => {
        const res = await fetch(base + path, { method, body: body === undefined ? undefined : stringifyJson(body) });
        expect(res.status).to.equal(200);
        return parseJson(await res.text());
      },
      close: () => server.close(),
    };
  }

  it("POST, GET and DELETE follow the documented contract", async () => {
    const http = await serve(true);
    try {
      const posted = await http.call("POST", "/debug/faults", { kind: "delay", peers: [net.addresses[1]], delay_ms: 10, duration_ms: 60_000 });
      expect(posted.error_code).to.equal(0);
      const id = posted.result.id;
      await http.call("POST", "/debug/faults", { kind: "byzantine", mode: "silent" });
      const listed = await http.call("GET", "/debug/faults");
      expect(listed.result).to.include({ enabled: true, seed: 7, unsafe_quorum: null });
      expect(listed.result.rules[0]).to.deep.equal({ id, kind: "delay", peers: [net.addresses[1]], delay_ms: 10, jitter_ms: 0, created_at: 1_000_000, expires_at: 1_060_000 });
      expect(listed.result.rules[1]).to.include({ kind: "byzantine", mode: "silent", peers: null, expires_at: null });
      expect(Object.keys(listed.result.stats)).to.deep.equal(["dropped", "delayed", "duplicated", "reordered", "partitioned", "byzantine"]);
      expect((await http.call("POST", "/debug/faults", { kind: "drop", probability: 2 })).error_code).to.equal(2);
      expect((await http.call("DELETE", `/debug/faults?id=${id}`)).result).to.deep.equal({ removed: 1 });
      expect((await http.call("DELETE", `/debug/faults?id=${id}`)).error_code).to.equal(4);
      expect((await http.call("DELETE", "/debug/faults")).result).to.deep.equal({ removed: 1 });
      expect((await http.call("GET", "/debug/faults")).result.rules).to.deep.equal([]);
    } finally {
      http.close();
    }
  });

  it("without fault injection every method answers error 6", async () => {
    const http = await serve(false);
    try {
      for (const method of ["GET", "POST", "DELETE"]) {
        const answer = await http.call(method, "/debug/faults", method === "POST" ? { kind: "partition", peers: [] } : undefined);
        expect(answer).to.deep.include({ error_code: 6, result: null });
        expect(answer.error_desc).to.match(/fault injection is off/);
      }
    } finally {
      http.close();
    }
  });

  it("CHAINSIM_UNSAFE_QUORUM is read only as a positive integer", () => {
    expect(unsafeQuorumFromEnv({})).to.equal(null);
    expect(unsafeQuorumFromEnv({ CHAINSIM_UNSAFE_QUORUM: "1" })).to.equal(1);
    expect(() => unsafeQuorumFromEnv({ CHAINSIM_UNSAFE_QUORUM: "yes" })).to.throw(/positive integer/);
  });
});
