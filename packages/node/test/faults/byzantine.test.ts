import { expect } from "chai";
import { open, sign, type Body, type Vote } from "@chainsim/consensus";
import { codecs } from "@chainsim/protocol";
import { faultyNet, type FaultyNet } from "./setup.js";

/** A message as a peer opened it; undefined when its signature (or anything else) is wrong. */
type Opened = ReturnType<typeof open>;

// Validator 0 (replica 0, the primary of view 0) runs behind the fault plane; its peers check what they
// get with packages/consensus `open`, which verifies the signature the way every replica does.
describe("faults: Byzantine modes on consensus messages", () => {
  let net: FaultyNet;
  beforeEach(async () => {
    net = await faultyNet();
  });
  afterEach(async () => net.stop());

  const verifier = () => ({ validators: net.addresses, crypto: net.crypto[1], quorum: 3 });
  const value = codecs.ConsensusValue.encode({ ledger_seq: 5n, close_time: 1_700_000_000_000_000n, previous_ledger_hash: new Uint8Array(32), txs: [] });
  const prePrepare = (): Body => ({ kind: "pre-prepare", view: 0, seq: 5, replica: 0, value, digest: net.crypto[0].digest(value) });
  const prepare = (): Body => ({ kind: "prepare", view: 0, seq: 5, replica: 0, digest: net.crypto[0].digest(value) });

  /** Broadcasts `body` signed by replica 0 and returns what each peer 1..3 received, opened (undefined: invalid). */
  async function broadcast(body: Body): Promise<Opened[][]> {
    net.faulty.broadcast(codecs.PbftSignedMessage.encode(sign(net.crypto[0], body).wire), "consensus");
    await net.hub.idle();
    return [1, 2, 3].map((i) =>
      net.received[i].splice(0).filter((r) => r.channel === "consensus").map((r) => open(verifier(), codecs.PbftSignedMessage.decode(r.payload))),
    );
  }

  it("equivocate: the latter half of the peers get a different, validly signed pre-prepare for the same seq", async () => {
    net.plane.add({ kind: "byzantine", mode: "equivocate" });
    const [one, two, three] = await broadcast(prePrepare());
    expect(one[0]!.body).to.deep.equal(prePrepare());
    expect(two[0]!.body).to.deep.equal(prePrepare());
    const other = three[0]!.body as Extract<Body, { kind: "pre-prepare" }>;
    expect(other).to.include({ kind: "pre-prepare", view: 0, seq: 5, replica: 0 });
    expect(other.digest).to.not.equal(net.crypto[0].digest(value));
    expect(codecs.ConsensusValue.decode(other.value!).close_time).to.equal(1_700_000_000_000_001n);
    expect(net.plane.stats.byzantine).to.equal(1);
  });

  it("equivocate with peers: exactly those peers get the other value; votes are left alone", async () => {
    net.plane.add({ kind: "byzantine", mode: "equivocate", peers: [net.addresses[1]] });
    const [one, two] = await broadcast(prePrepare());
    expect(one[0]!.body).to.not.deep.equal(prePrepare());
    expect(two[0]!.body).to.deep.equal(prePrepare());
    const votes = await broadcast(prepare());
    expect(votes.map((got) => got[0]!.body)).to.deep.equal([prepare(), prepare(), prepare()]);
  });

  it("silent: pre-prepares and new-views never leave; votes still do", async () => {
    net.plane.add({ kind: "byzantine", mode: "silent" });
    expect(await broadcast(prePrepare())).to.deep.equal([[], [], []]);
    expect(await broadcast({ kind: "new-view", view: 1, viewChanges: [], prePrepares: [], replica: 0 })).to.deep.equal([[], [], []]);
    const votes = await broadcast(prepare());
    expect(votes.map((got) => got[0]!.body)).to.deep.equal([prepare(), prepare(), prepare()]);
  });

  it("wrong-digest: prepares and commits are validly signed votes for another digest", async () => {
    net.plane.add({ kind: "byzantine", mode: "wrong-digest" });
    for (const vote of [prepare(), { ...prepare(), kind: "commit" } as Body]) {
      const got = (await broadcast(vote)).map((g) => g[0]!.body as Vote);
      for (const body of got) {
        expect(body).to.include({ kind: vote.kind, view: 0, seq: 5, replica: 0 });
        expect(body.digest).to.match(/^[0-9a-f]{64}$/).and.not.equal(net.crypto[0].digest(value));
      }
    }
  });

  it("bad-signature: every consensus message arrives with a signature that does not verify", async () => {
    net.plane.add({ kind: "byzantine", mode: "bad-signature", peers: [net.addresses[2]] });
    const [one, two] = await broadcast(prepare());
    expect(one[0]!.body).to.deep.equal(prepare());
    expect(two).to.deep.equal([undefined]);
  });

  it("replay: an older consensus message is sent again with each new one", async () => {
    await broadcast(prePrepare());
    net.plane.add({ kind: "byzantine", mode: "replay" });
    const got = await broadcast(prepare());
    for (const messages of got) expect(messages.map((m) => m!.body)).to.deep.equal([prepare(), prePrepare()]);
  });

  it("mutate: view or seq is off by one and the message is validly re-signed", async () => {
    net.plane.add({ kind: "byzantine", mode: "mutate" });
    for (let round = 0; round < 4; round++) {
      for (const got of await broadcast(prepare())) {
        const body = got[0]!.body as Vote;
        expect(body.kind).to.equal("prepare");
        expect(body.view + body.seq).to.equal(6);
      }
    }
  });

  it("censor: messages leave untouched; the plane tells the proposer to leave transactions out while the rule lasts", async () => {
    expect(net.plane.byzantine("censor")).to.equal(false);
    const id = net.plane.add({ kind: "byzantine", mode: "censor" });
    expect(net.plane.byzantine("censor")).to.equal(true);
    expect(net.plane.byzantine("silent")).to.equal(false);
    const [one] = await broadcast(prePrepare());
    expect(one[0]!.body).to.deep.equal(prePrepare());
    net.plane.remove(id);
    expect(net.plane.byzantine("censor")).to.equal(false);
  });

  it("non-consensus channels are never touched by Byzantine modes", async () => {
    net.plane.add({ kind: "byzantine", mode: "bad-signature" });
    net.faulty.broadcast(new TextEncoder().encode("tx"), "txs");
    await net.hub.idle();
    expect(net.received[1].map((r) => new TextDecoder().decode(r.payload))).to.deep.equal(["tx"]);
  });
});
