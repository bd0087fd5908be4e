import { expect } from "chai";
import { faultyNet, rejection, sleep, text, texts, type FaultyNet } from "./setup.js";

// Validator 0 runs behind the fault plane; 1..3 are plain MemoryPeerNetworks on the same hub.
describe("faults: message rules on a FaultyPeerNetwork", () => {
  let net: FaultyNet;
  beforeEach(async () => {
    net = await faultyNet();
  });
  afterEach(async () => net.stop());

  const peer = (i: number) => net.addresses[i];
  const settle = async (ms = 0) => {
    if (ms > 0) await sleep(ms);
    await net.hub.idle();
  };

  it("drop with probability 1 loses messages both ways with the named peers only", async () => {
    net.plane.add({ kind: "drop", peers: [peer(1)], probability: 1 });
    net.faulty.broadcast(text("out"), "txs");
    net.networks[1].send(peer(0), text("in from 1"), "txs");
    net.networks[2].send(peer(0), text("in from 2"), "txs");
    await settle();
    expect(texts(net, 1)).to.deep.equal([]);
    expect(texts(net, 2)).to.deep.equal(["out"]);
    expect(texts(net, 0)).to.deep.equal(["in from 2"]);
    expect(net.plane.stats.dropped).to.equal(2);
  });

  it("drop with probability 0 loses nothing", async () => {
    net.plane.add({ kind: "drop", probability: 0 });
    for (let i = 0; i < 20; i++) net.faulty.send(peer(3), text(`m${i}`), "txs");
    await settle();
    expect(texts(net, 3)).to.have.length(20);
    expect(net.plane.stats.dropped).to.equal(0);
  });

  it("delay holds outgoing messages back for delay_ms, in their order, while undelayed ones pass", async () => {
    const id = net.plane.add({ kind: "delay", peers: [peer(1)], delay_ms: 80 });
    for (const m of ["slow1", "slow2", "slow3"]) net.faulty.send(peer(1), text(m), "txs");
    net.plane.remove(id);
    net.faulty.send(peer(1), text("fast"), "txs");
    await settle(30);
    expect(texts(net, 1)).to.deep.equal(["fast"]);
    await settle(100);
    expect(texts(net, 1)).to.deep.equal(["fast", "slow1", "slow2", "slow3"]);
    expect(net.plane.stats.delayed).to.equal(3);
  });

  it("duplicate with probability 1 sends every message twice; with 0 once", async () => {
    const id = net.plane.add({ kind: "duplicate", peers: [peer(2)], probability: 1 });
    net.faulty.send(peer(2), text("twice"), "txs");
    net.plane.remove(id);
    net.plane.add({ kind: "duplicate", probability: 0 });
    net.faulty.send(peer(2), text("once"), "txs");
    await settle();
    expect(texts(net, 2)).to.deep.equal(["twice", "twice", "once"]);
    expect(net.plane.stats.duplicated).to.equal(1);
  });

  it("reorder holds a message back for window_ms so later ones overtake it", async () => {
    const id = net.plane.add({ kind: "reorder", probability: 1, window_ms: 40 });
    net.faulty.send(peer(1), text("held"), "txs");
    net.plane.remove(id);
    net.faulty.send(peer(1), text("next"), "txs");
    await settle(80);
    expect(texts(net, 1)).to.deep.equal(["next", "held"]);
    expect(net.plane.stats.reordered).to.equal(1);
  });

  it("partition cuts messages and requests in both directions with the named peers, and DELETE heals", async () => {
    net.plane.add({ kind: "partition", peers: [peer(1)] });
    net.faulty.broadcast(text("out"), "txs");
    net.networks[1].send(peer(0), text("in"), "txs");
    await settle();
    expect(texts(net, 1)).to.deep.equal([]);
    expect(texts(net, 0)).to.deep.equal([]);
    expect(texts(net, 2)).to.deep.equal(["out"]);
    expect(await rejection(net.faulty.request(peer(1), text("q"), 1000))).to.match(/partition/);
    expect(await rejection(net.networks[1].request(peer(0), text("q"), 1000))).to.match(/partition/);
    expect(new TextDecoder().decode(await net.faulty.request(peer(2), text("q"), 1000))).to.match(/answer/);

    net.plane.clear();
    net.faulty.send(peer(1), text("healed"), "txs");
    net.networks[1].send(peer(0), text("healed"), "txs");
    await settle();
    expect(texts(net, 1)).to.deep.equal(["healed"]);
    expect(texts(net, 0)).to.deep.equal(["healed"]);
    expect(new TextDecoder().decode(await net.networks[1].request(peer(0), text("q"), 1000))).to.match(/answer/);
    expect(net.plane.stats.partitioned).to.equal(4);
  });

  it("a rule with duration_ms expires by itself and disappears from the list", async () => {
    net.plane.add({ kind: "drop", probability: 1, duration_ms: 5000 });
    expect(net.plane.report().rules[0]).to.include({ kind: "drop", probability: 1, created_at: 1_000_000, expires_at: 1_005_000 });
    net.faulty.send(peer(1), text("lost"), "txs");
    net.clock.now += 5000;
    net.faulty.send(peer(1), text("kept"), "txs");
    await settle();
    expect(texts(net, 1)).to.deep.equal(["kept"]);
    expect(net.plane.report().rules).to.deep.equal([]);
  });

  it("DELETE of one id removes only that rule", () => {
    const a = net.plane.add({ kind: "drop", probability: 1 });
    const b = net.plane.add({ kind: "partition", peers: [peer(2)] });
    expect(net.plane.remove(a)).to.equal(true);
    expect(net.plane.remove(a)).to.equal(false);
    expect(net.plane.report().rules.map((r) => r.id)).to.deep.equal([b]);
  });

  it("the same seed draws the same drops", async () => {
    const run = async (seed: number) => {
      const other = await faultyNet(seed);
      other.plane.add({ kind: "drop", probability: 0.5 });
      for (let i = 0; i < 40; i++) other.faulty.send(other.addresses[1], text(`m${i}`), "txs");
      await other.hub.idle();
      await other.stop();
      return texts(other, 1);
    };
    const first = await run(42);
    expect(first.length).to.be.within(5, 35);
    expect(await run(42)).to.deep.equal(first);
  });
});
