import { expect } from "chai";
import { DEFAULT_PENALTY_POLICY, OFFENCE_POINTS, type Channel, type PeerNetwork, type PeerStatus, type QueueLimits } from "../../src/index.js";
import { waitUntil } from "./wait.js";

/** A set of validators that all list each other, and how to make their networks. */
export interface PeerNetworkCluster {
  /** Validator addresses of the members, in order. */
  readonly addresses: string[];
  /** A new, unstarted network for member `index`; called again after stop() to restart it. */
  create(index: number, options?: { queueLimits?: QueueLimits }): Promise<PeerNetwork>;
  /** A network whose identity no member lists, but which lists every member as its peer. */
  createOutsider(): Promise<PeerNetwork>;
}

export type PeerNetworkClusterFactory = (size: number) => Promise<PeerNetworkCluster>;

interface Received {
  from: string;
  text: string;
  channel: Channel;
}

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (payload: Uint8Array) => new TextDecoder().decode(payload);

/** The contract every PeerNetwork implementation must keep (js-libp2p style: one suite, many implementations). */
export function describePeerNetworkConformance(name: string, makeCluster: PeerNetworkClusterFactory): void {
  describe(`PeerNetwork conformance: ${name}`, function () {
    this.timeout(30_000);
    let running: PeerNetwork[] = [];

    afterEach(async () => {
      await Promise.all(running.map((network) => network.stop()));
      running = [];
    });

    /** Creates member `index` (or takes a made network), records what it receives, starts it. */
    async function start(network: PeerNetwork): Promise<{ network: PeerNetwork; inbox: Received[] }> {
      const inbox: Received[] = [];
      network.onMessage((from, payload, channel) => inbox.push({ from, text: text(payload), channel }));
      running.push(network);
      await network.start();
      return { network, inbox };
    }

    /** Starts every member; with `connected`, also waits until every member has a path to every other. */
    async function startCluster(size: number, connected = false) {
      const cluster = await makeCluster(size);
      const members: { network: PeerNetwork; inbox: Received[] }[] = [];
      for (let i = 0; i < size; i++) members.push(await start(await cluster.create(i)));
      if (connected) await waitUntil(() => members.every((m) => m.network.peers().every((p) => p.connected)), "every member is connected");
      return { cluster, members };
    }

    const statusOf = (network: PeerNetwork, peer: string): PeerStatus => network.peers().find((p) => p.address === peer)!;

    it("delivers a message to one peer, and a broadcast to every other peer but not back to the sender", async () => {
      const { cluster, members } = await startCluster(3);
      const [a, b, c] = members;
      const [addrA, addrB] = cluster.addresses;
      a.network.send(addrB, bytes("to b"), "consensus");
      a.network.broadcast(bytes("to all"), "txs");
      await waitUntil(() => b.inbox.length === 2 && c.inbox.length === 1, "b and c have their messages");
      expect(b.inbox).to.deep.equal([{ from: addrA, text: "to b", channel: "consensus" }, { from: addrA, text: "to all", channel: "txs" }]);
      // per-peer order: had c been sent "to b", it would have arrived before the broadcast
      expect(c.inbox).to.deep.equal([{ from: addrA, text: "to all", channel: "txs" }]);
      await waitUntil(() => statusOf(a.network, addrB).messagesOut === 2, "a counts its messages out");
      expect(a.inbox).to.deep.equal([]);
      const status = statusOf(b.network, addrA);
      expect(status).to.include({ address: addrA, connected: true, messagesIn: 2 });
      expect(status.bytesIn).to.be.greaterThan(0);
    });

    it("keeps each sender's order over 1,000 messages on both channels", async () => {
      const { cluster, members } = await startCluster(3);
      const [a, b, c] = members;
      const addrB = cluster.addresses[1];
      const channelOf = (i: number): Channel => (i % 3 === 0 ? "txs" : "consensus");
      for (let i = 0; i < 1000; i++) {
        a.network.send(addrB, bytes(`a${i}`), channelOf(i));
        c.network.send(addrB, bytes(`c${i}`), channelOf(i));
      }
      await waitUntil(() => b.inbox.length === 2000, "b has all 2,000 messages");
      for (const [sender, prefix] of [[cluster.addresses[0], "a"], [cluster.addresses[2], "c"]]) {
        const got = b.inbox.filter((m) => m.from === sender);
        expect(got.map((m) => m.text)).to.deep.equal(Array.from({ length: 1000 }, (_, i) => `${prefix}${i}`));
        expect(got.map((m) => m.channel)).to.deep.equal(Array.from({ length: 1000 }, (_, i) => channelOf(i)));
      }
    });

    it("delivers a burst bigger than the transport's buffers (200 × 64 KiB), in order", async () => {
      const { cluster, members } = await startCluster(2);
      const [a, b] = members;
      const sizes: number[] = [];
      b.network.onMessage((_, payload) => sizes.push(payload.length));
      for (let i = 0; i < 200; i++) a.network.send(cluster.addresses[1], new Uint8Array(64 * 1024 - i).fill(i), "txs");
      await waitUntil(() => sizes.length === 200, "b has the whole burst");
      expect(sizes).to.deep.equal(Array.from({ length: 200 }, (_, i) => 64 * 1024 - i));
      expect(statusOf(a.network, cluster.addresses[1])).to.include({ dropped: 0, queued: 0 });
    });

    it("answers requests, and passes a handler's failure back to the requester", async () => {
      const { cluster, members } = await startCluster(2, true);
      const [a, b] = members;
      b.network.onRequest(async (from, payload) => {
        if (text(payload) === "fail") throw new Error("no such ledger");
        return bytes(`${text(payload)} for ${from}`);
      });
      expect(text(await a.network.request(cluster.addresses[1], bytes("ledger 7"), 5000))).to.equal(`ledger 7 for ${cluster.addresses[0]}`);
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => a.network.request(cluster.addresses[1], bytes(`q${i}`), 5000)));
      expect(answers.map(text)).to.deep.equal(Array.from({ length: 20 }, (_, i) => `q${i} for ${cluster.addresses[0]}`));
      await expectRejection(a.network.request(cluster.addresses[1], bytes("fail"), 5000), /no such ledger/);
      await expectRejection(b.network.request(cluster.addresses[0], bytes("x"), 5000), /serves no requests/);
    });

    it("rejects a request that gets no answer in time, and one to a stopped peer", async () => {
      const { cluster, members } = await startCluster(2, true);
      const [a, b] = members;
      b.network.onRequest(() => new Promise<Uint8Array>(() => {}));
      const started = Date.now();
      await expectRejection(a.network.request(cluster.addresses[1], bytes("hang"), 300), /timed out after 300 ms/);
      expect(Date.now() - started).to.be.within(250, 3000);
      await b.network.stop();
      await expectRejection(a.network.request(cluster.addresses[1], bytes("anyone?"), 5000), new RegExp(`request to ${cluster.addresses[1]}`));
    });

    it("refuses unknown peers: send throws, request rejects", async () => {
      const { members } = await startCluster(2);
      const stranger = (await makeCluster(3)).addresses[2];
      expect(() => members[0].network.send("did:bid:efnobody", bytes("x"), "txs")).to.throw(/unknown peer did:bid:efnobody/);
      await expectRejection(members[0].network.request(stranger, bytes("x"), 1000), /unknown peer/);
    });

    it("reaches a peer that starts late, with the messages sent before it started", async () => {
      const cluster = await makeCluster(2);
      const a = await start(await cluster.create(0));
      for (let i = 0; i < 10; i++) a.network.send(cluster.addresses[1], bytes(`early${i}`), "consensus");
      expect(statusOf(a.network, cluster.addresses[1])).to.include({ connected: false, queued: 10 });
      const b = await start(await cluster.create(1));
      await waitUntil(() => b.inbox.length === 10, "b has the early messages");
      expect(b.inbox.map((m) => m.text)).to.deep.equal(Array.from({ length: 10 }, (_, i) => `early${i}`));
      await waitUntil(() => statusOf(a.network, cluster.addresses[1]).connected, "a sees b connected");
    });

    it("reconnects to a peer that stopped and restarted: queued and later messages arrive in order", async () => {
      const cluster = await makeCluster(2);
      const [addrA, addrB] = cluster.addresses;
      const a = await start(await cluster.create(0));
      const b1 = await start(await cluster.create(1));
      a.network.send(addrB, bytes("before"), "consensus");
      await waitUntil(() => b1.inbox.length === 1, "b has the first message");
      await b1.network.stop();
      await waitUntil(() => !statusOf(a.network, addrB).connected, "a sees b gone");
      a.network.send(addrB, bytes("while down"), "consensus");
      const b2 = await start(await cluster.create(1));
      await waitUntil(() => statusOf(a.network, addrB).connected, "a reconnects to b", 15_000);
      for (let i = 0; i < 100; i++) a.network.send(addrB, bytes(`after${i}`), "txs");
      b2.network.send(addrA, bytes("back"), "consensus");
      await waitUntil(() => b2.inbox.length === 101 && a.inbox.length === 1, "the restarted b and a exchange messages");
      expect(b2.inbox.map((m) => m.text)).to.deep.equal(["while down", ...Array.from({ length: 100 }, (_, i) => `after${i}`)]);
      expect(a.inbox[0]).to.deep.equal({ from: addrB, text: "back", channel: "consensus" });
      expect(statusOf(a.network, addrB).reconnects).to.be.at.least(1);
    });

    it("bounds a down peer's queue, dropping the oldest messages", async () => {
      const cluster = await makeCluster(2);
      const addrB = cluster.addresses[1];
      const a = await start(await cluster.create(0, { queueLimits: { messages: 5, bytes: 1 << 20 } }));
      for (let i = 0; i < 20; i++) a.network.send(addrB, bytes(`m${i}`), "consensus");
      expect(statusOf(a.network, addrB)).to.include({ queued: 5, dropped: 15 });
      const b = await start(await cluster.create(1));
      await waitUntil(() => b.inbox.length === 5, "b has the newest 5 messages");
      expect(b.inbox.map((m) => m.text)).to.deep.equal(["m15", "m16", "m17", "m18", "m19"]);
    });

    it("keeps one working path each way when both peers start, and dial, at once", async () => {
      const { cluster, members } = await startCluster(2);
      const [a, b] = members;
      for (let round = 0; round < 3; round++) {
        a.network.send(cluster.addresses[1], bytes(`a${round}`), "consensus");
        b.network.send(cluster.addresses[0], bytes(`b${round}`), "consensus");
      }
      await waitUntil(() => a.inbox.length === 3 && b.inbox.length === 3, "both have each other's messages");
      for (const [network, peer] of [[a.network, cluster.addresses[1]], [b.network, cluster.addresses[0]]] as const) {
        expect(statusOf(network, peer)).to.include({ connected: true, reconnects: 0, dropped: 0 });
      }
    });

    it("does not deliver from a network whose identity is not configured", async () => {
      const { cluster, members } = await startCluster(2);
      const outsider = await start(await cluster.createOutsider());
      outsider.network.send(cluster.addresses[0], bytes("let me in"), "consensus");
      outsider.network.broadcast(bytes("let me in too"), "txs");
      await waitUntil(() => statusOf(outsider.network, cluster.addresses[0]).lastError !== null, "the outsider is refused");
      await expectRejection(outsider.network.request(cluster.addresses[0], bytes("ledger?"), 2000), /./);
      members[1].network.send(cluster.addresses[0], bytes("member"), "consensus");
      await waitUntil(() => members[0].inbox.length > 0, "a member's message arrives");
      expect(members[0].inbox.map((m) => m.text)).to.deep.equal(["member"]);
      expect(members[0].network.peers().map((p) => p.address)).to.deep.equal([cluster.addresses[1]]);
    });

    it("bans a peer penalized past the threshold: its messages and requests are refused, the others' are not", async () => {
      const { cluster, members } = await startCluster(3, true);
      const [a, b, c] = members;
      const [, addrB, addrC] = cluster.addresses;
      a.network.onRequest(async () => bytes("answer"));
      // The score drains continuously (one point a second): when the clock ticks a millisecond between two
      // offences, the last of threshold/points leaves it a hair below the threshold, and one more bans.
      const oversizedOffences = Math.ceil(DEFAULT_PENALTY_POLICY.threshold / OFFENCE_POINTS.oversized);
      for (let i = 0; i <= oversizedOffences && statusOf(a.network, addrB).bannedUntil === null; i++) a.network.penalize(addrB, "oversized");
      expect(statusOf(a.network, addrB).misbehaviour).to.be.within(oversizedOffences, oversizedOffences + 1);
      expect(statusOf(a.network, addrB).bannedUntil).to.be.a("number");
      expect(statusOf(a.network, addrC)).to.include({ misbehaviour: 0, bannedUntil: null });
      b.network.send(cluster.addresses[0], bytes("from b"), "consensus");
      await expectRejection(b.network.request(cluster.addresses[0], bytes("ledger?"), 2000), /./);
      c.network.send(cluster.addresses[0], bytes("from c"), "consensus");
      await waitUntil(() => a.inbox.length > 0, "c's message arrives");
      expect(a.inbox.map((m) => m.text)).to.deep.equal(["from c"]);
    });

    it("stop() closes every socket it opened, and a stopped network refuses requests", async () => {
      const sockets = () => process.getActiveResourcesInfo().filter((r) => r.startsWith("TCP")).length;
      const before = sockets();
      const { cluster, members } = await startCluster(3);
      members[0].network.broadcast(bytes("x"), "consensus");
      await waitUntil(() => members[1].inbox.length === 1 && members[2].inbox.length === 1, "the broadcast arrives");
      await Promise.all(members.map((m) => m.network.stop()));
      await waitUntil(() => sockets() <= before, "every socket is closed", 5000);
      expect(members[0].network.peers().every((p) => !p.connected)).to.equal(true);
      await expectRejection(members[0].network.request(cluster.addresses[1], bytes("x"), 1000), /not started/);
    });
  });
}

async function expectRejection(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  try {
    await promise;
  } catch (error) {
    expect((error as Error).message).to.match(pattern);
    return;
  }
  expect.fail(`expected a rejection matching ${pattern}`);
}
