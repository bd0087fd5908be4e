// Regression tests for what one Byzantine validator could do to the honest ones (docs/consensus.md,
// "What a Byzantine validator cannot do"). Each fails on the code before its fix.
import { expect } from "chai";
import { codecs } from "@chainsim/protocol";
import { Replica, sign, type PersistedState, type SignedMessage, type ViewChange, type Vote } from "../src/index.js";
import { Cluster, kindOf } from "./cluster.js";

describe("Byzantine validators: stalls and forced view changes", () => {
  it("an idle network keeps its view when one replica sends votes for a seq nobody proposed", () => {
    const c = new Cluster(4, { idle: true, viewTimeoutMs: 1000 });
    const forged = (kind: Vote["kind"]) => sign<Vote>(c.configs[3].crypto, { kind, view: 0, seq: 2, replica: 3, digest: "ab".repeat(32) }).wire;
    for (const i of [0, 1, 2]) {
      c.take(i, c.replicas[i].receive(forged("prepare"), 0));
      c.take(i, c.replicas[i].receive(forged("commit"), 0));
    }
    for (const i of [0, 1, 2]) expect(c.tick(i, 60_000).events).to.deep.equal([]);
    for (const i of [0, 1, 2]) expect(c.replicas[i].status()).to.include({ view: 0, viewActive: true });
    // f+1 replicas voting show an honest one saw a pre-prepare this replica missed: the work is owed.
    const second = sign<Vote>(c.configs[2].crypto, { kind: "prepare", view: 0, seq: 2, replica: 2, digest: "ab".repeat(32) }).wire;
    c.take(1, c.replicas[1].receive(second, 60_000));
    expect(c.tick(1, 60_999).events).to.deep.equal([]);
    expect(c.tick(1, 61_000).events[0]).to.match(/view change to 1: no progress in view 0/);
  });
});

describe("Lost messages: checkpoints", () => {
  it("re-sends a checkpoint until it is stable, so that lost CHECKPOINTs do not close the window for good", () => {
    const c = new Cluster(4, { idle: true, ckpInterval: 2, viewTimeoutMs: 1000 });
    for (let k = 1; k <= 4; k++) {
      c.propose(0, `ledger ${k}`);
      c.deliver((e) => e.kind !== "checkpoint");
    }
    // Executed 4, stable 0: the window (2 × 2 seqs) is full and the primary may not propose.
    expect(c.replicas[0].status()).to.include({ lastExecutedSeq: 4 });
    expect(c.replicas[0].nextProposalSeq()).to.equal(undefined);
    for (const i of [0, 1, 2, 3]) c.tick(i, 1000);
    c.deliver();
    for (const replica of c.replicas) expect(replica.status().stableCheckpoint.seq).to.equal(4);
    expect(c.replicas[0].nextProposalSeq()).to.equal(5);
  });

  it("keeps the checkpoints it collected across a restart", () => {
    const c = new Cluster(4, { idle: true, ckpInterval: 2, viewTimeoutMs: 1000 });
    c.propose(0, "ledger 1");
    c.deliver();
    c.propose(0, "ledger 2");
    const fromThree: SignedMessage[] = [];
    let fromZero = 0;
    // Replica 1 holds its own CHECKPOINT of seq 2 and replica 0's (two of the three needed), then restarts.
    c.deliver((e) => {
      if (e.kind !== "checkpoint" || e.to !== 1) return true;
      if (e.from === 3 && fromThree.length === 0) fromThree.push(e.message);
      return e.from === 0 && fromZero++ === 0;
    });
    expect(c.replicas[1].status().stableCheckpoint.seq).to.equal(0);
    const restarted = new Replica(c.configs[1], JSON.parse(JSON.stringify(c.replicas[1].snapshot())) as PersistedState, 0);
    restarted.receive(fromThree[0]!, 0);
    expect(restarted.status().stableCheckpoint.seq).to.equal(2);
  });

  it("answers a replica that re-sends a checkpoint already stable with the proof it missed", () => {
    const c = new Cluster(4, { idle: true, ckpInterval: 2, viewTimeoutMs: 1000 });
    c.propose(0, "ledger 1");
    c.deliver();
    c.propose(0, "ledger 2");
    c.deliver((e) => !(e.kind === "checkpoint" && e.to === 3));
    expect(c.replicas[0].status().stableCheckpoint.seq).to.equal(2);
    expect(c.replicas[3].status().stableCheckpoint.seq).to.equal(0);
    c.tick(3, 1000);
    c.deliver();
    expect(c.replicas[3].status().stableCheckpoint.seq).to.equal(2);
  });

  it("answers a replica that re-sends a checkpoint below its stable one with its proof: the replica learns it is behind", () => {
    const c = new Cluster(4, { idle: true, ckpInterval: 2, viewTimeoutMs: 1000 });
    for (let k = 1; k <= 2; k++) {
      c.propose(0, `ledger ${k}`);
      c.deliver((e) => !(e.kind === "checkpoint" && e.to === 3));
    }
    // Replica 3 misses ledgers 3 and 4 altogether: the others hold seq 4 stable, it holds seq 0.
    for (let k = 3; k <= 4; k++) {
      c.propose(0, `ledger ${k}`);
      c.deliver((e) => e.to !== 3);
    }
    expect(c.replicas[0].status().stableCheckpoint.seq).to.equal(4);
    expect(c.replicas[3].status()).to.include({ lastExecutedSeq: 2 });
    expect(c.replicas[3].status().stableCheckpoint.seq).to.equal(0);
    c.tick(3, 1000);
    c.deliver();
    const sync = c.outputs[3].map((o) => o.sync).find((request) => request !== undefined);
    expect(sync?.targetSeq).to.equal(4);
  });

  it("asks for a save before it sends a CHECKPOINT: restarted right after, it still re-sends the one that was lost", () => {
    const c = new Cluster(4, { idle: true, ckpInterval: 2, viewTimeoutMs: 1000 });
    for (let k = 1; k <= 2; k++) {
      c.propose(0, `ledger ${k}`);
      c.deliver((e) => e.kind !== "checkpoint");
    }
    const withCheckpoint = c.outputs[1].filter((o) => o.send.some((s) => kindOf(s.message) === "checkpoint"));
    expect(withCheckpoint).to.have.length(1);
    expect(withCheckpoint[0].persist).to.equal(true);
  });
});

describe("Restarts: the NEW-VIEW survives", () => {
  it("passes on the NEW-VIEW after a restart to a replica that missed it", () => {
    const c = new Cluster(4, { viewTimeoutMs: 1000 });
    for (const i of [0, 1, 2, 3]) c.tick(i, 1000);
    c.deliver((e) => !(e.kind === "new_view" && e.to === 3));
    for (const i of [0, 1, 2]) expect(c.replicas[i].status()).to.include({ view: 1, viewActive: true });
    expect(c.replicas[3].status()).to.include({ view: 1, viewActive: false });
    // The three that entered view 1 restart before replica 3 asks again.
    for (const i of [0, 1, 2]) c.replicas[i] = new Replica(c.configs[i], JSON.parse(JSON.stringify(c.replicas[i].snapshot())) as PersistedState, 1500);
    c.tick(3, 2000);
    c.deliver();
    expect(c.replicas[3].status()).to.include({ view: 1, viewActive: true });
  });
});

describe("Censorship: the node's suspicion", () => {
  it("withholds PREPAREs from a suspected primary: f+1 suspecting replicas change the view, one alone keeps up", () => {
    const c = new Cluster(4, { idle: true, viewTimeoutMs: 1000 });
    c.propose(0, "ledger 1");
    c.deliver();
    // Replica 1 alone suspects: the others still decide, and it delivers through their commits.
    c.take(1, c.replicas[1].suspectPrimary("left out a transaction", 100));
    c.propose(0, "ledger 2");
    c.deliver();
    expect(c.commits.map((x) => x.length)).to.deep.equal([2, 2, 2, 2]);
    expect(c.replicas[1].status()).to.include({ view: 0, viewActive: true });
    // Replica 2 suspects too: no quorum of PREPAREs, the view times out everywhere and changes.
    c.take(2, c.replicas[2].suspectPrimary("left out a transaction", 200));
    c.now = 300;
    c.propose(0, "ledger 3");
    c.deliver();
    expect(c.commits.map((x) => x.length)).to.deep.equal([2, 2, 2, 2]);
    for (const i of [0, 1, 2, 3]) c.tick(i, 1300);
    c.deliver();
    for (const i of [0, 1, 2, 3]) expect(c.replicas[i].status(), `replica ${i}`).to.include({ view: 1, viewActive: true, primary: 1 });
  });

  it("PREPAREs again once the node trusts the primary", () => {
    const c = new Cluster(4, { idle: true, viewTimeoutMs: 1000 });
    for (const i of [1, 2]) c.take(i, c.replicas[i].suspectPrimary("left out a transaction", 0));
    c.propose(0, "ledger 1");
    c.deliver();
    expect(c.commits.map((x) => x.length)).to.deep.equal([0, 0, 0, 0]);
    c.take(1, c.replicas[1].trustPrimary(10));
    c.deliver();
    expect(c.commits.map((x) => x.length)).to.deep.equal([1, 1, 1, 1]);
  });
});

describe("View changes under load: bounded messages", () => {
  it("keeps VIEW-CHANGE and NEW-VIEW small however large the prepared values, and still delivers them", () => {
    const c = new Cluster(4, { viewTimeoutMs: 1000 });
    const big = (k: number) => "x".repeat(1 << 20) + k;
    for (let k = 1; k <= 5; k++) {
      c.propose(0, big(k));
      // Prepared everywhere, never committed: the values must cross the view change.
      c.deliver((e) => e.kind !== "commit");
    }
    for (const i of [1, 2, 3]) c.tick(i, 1000);
    const sizes = (kind: string) => c.queue.filter((e) => e.kind === kind).map((e) => codecs.PbftSignedMessage.encode(e.message).length);
    const viewChanges = sizes("view_change");
    expect(viewChanges).to.have.length.above(0);
    for (const size of viewChanges) expect(size).to.be.below(16 * 1024);
    c.deliver((e) => {
      if (e.kind === "new_view") expect(codecs.PbftSignedMessage.encode(e.message).length).to.be.below(64 * 1024);
      return e.to !== 0 && e.from !== 0;
    });
    for (const i of [1, 2, 3]) {
      expect(c.replicas[i].status()).to.include({ view: 1, viewActive: true });
      expect(c.commits[i].map((x) => new TextDecoder().decode(x.value!).slice(-1))).to.deep.equal(["1", "2", "3", "4", "5"]);
    }
  });

  it("asks for state transfer when a value is decided that it never saw", () => {
    const c = new Cluster(4, { viewTimeoutMs: 1000 });
    c.propose(0, "ledger 1");
    // Replica 3 never gets the pre-prepare, only the votes: the value is decided, but it cannot deliver it.
    c.deliver((e) => !(e.to === 3 && e.kind === "pre_prepare"));
    expect(c.commits[3]).to.deep.equal([]);
    const out = c.tick(3, 600);
    expect(out.sync).to.deep.include({ targetSeq: 1 });
  });
});

describe("Byzantine review of the value-less pre-prepares (2026-11-25)", () => {
  it("keeps a value it checked in an earlier view across a restart: a later view may decide it, and nobody else may have it", () => {
    const c = new Cluster(4, { idle: true, viewTimeoutMs: 1000 });
    const byzantine = 0; // primary of view 0
    // View 0: X reaches replicas 1 and 2 only; their PREPAREs reach the primary and 3, not each other.
    c.propose(byzantine, "X");
    c.deliver((e) => {
      if (e.from === byzantine) return e.kind === "pre_prepare" && (e.to === 1 || e.to === 2);
      if (e.kind === "prepare") return !((e.from === 1 && e.to === 2) || (e.from === 2 && e.to === 1));
      return true;
    });
    for (const i of [1, 2, 3]) c.tick(i, 1000);
    c.deliver((e) => e.from !== byzantine && e.to !== byzantine);
    // View 1: the honest primary's Y replaces X in the pre-prepares 2 and 3 hold; then 1, 2, 3 restart.
    c.now = 1100;
    c.propose(1, "Y");
    c.deliver((e) => e.kind === "pre_prepare" && e.to !== byzantine);
    c.queue = [];
    for (const i of [1, 2, 3]) c.replicas[i] = new Replica(c.configs[i], JSON.parse(JSON.stringify(c.replicas[i].snapshot())) as PersistedState, 1200);
    // View 2: the Byzantine replica's VIEW-CHANGE (X's certificate from view 0) reaches the new primary first.
    for (const i of [1, 2, 3]) c.tick(i, 5000);
    const viewChanges = c.queue.filter((e) => e.kind === "view_change");
    c.queue = [];
    for (const e of viewChanges.filter((e) => e.to === byzantine)) c.take(byzantine, c.replicas[byzantine].receive(e.message, c.now));
    const its = c.queue.filter((e) => e.from === byzantine && e.kind === "view_change");
    c.queue = [];
    for (const e of its.filter((e) => e.to === 2)) c.take(2, c.replicas[2].receive(e.message, c.now));
    c.queue.push(...viewChanges.filter((e) => e.to !== byzantine), ...its.filter((e) => e.to !== 2));
    // The Byzantine replica withholds X from now on.
    c.deliver((e) => e.from !== byzantine);
    const delivered = (i: number) => c.commits[i].map((x) => new TextDecoder().decode(x.value!));
    expect(delivered(1)).to.deep.equal(["X"]);
    expect(delivered(2)).to.deep.equal(["X"]);
  });

  it("refuses a vote, checkpoint or nested message padded with a value beside its signature", () => {
    const c = new Cluster(4, { idle: true, viewTimeoutMs: 1000 });
    const pad = new Uint8Array(1 << 20).fill(7);
    c.propose(0, "ledger 1");
    c.deliver((e) => {
      if (e.from === 3 && e.to === 1 && e.kind !== "pre_prepare") {
        c.take(1, c.replicas[1].receive({ ...e.message, value: pad }, c.now));
        return false;
      }
      return true;
    });
    // Replica 3's padded votes were refused: replica 1 holds the primary's, 2's and its own only, and
    // the commit certificate it delivered (from 0, 1, 2) carries no padding.
    expect(c.replicas[1].status().instances[0]!.commits).to.not.include("validator-3");
    const proof = c.commits[1][0]!.proof;
    expect(proof.commits!.every((w) => w.value === undefined)).to.equal(true);
    expect(JSON.stringify(c.replicas[1].snapshot()).length).to.be.below(64 * 1024);
  });
});

describe("Replies a Byzantine replica could make us repeat", () => {
  it("passes its NEW-VIEW on to a replica once per view timeout, however many stale VIEW-CHANGEs it sends", () => {
    const c = new Cluster(4, { viewTimeoutMs: 1000 });
    for (const i of [0, 1, 2, 3]) c.tick(i, 1000);
    c.deliver();
    expect(c.replicas[2].status()).to.include({ view: 1, viewActive: true });
    const stale = sign<ViewChange>(c.configs[3].crypto, { kind: "view-change", view: 1, stableSeq: 0, stableDigest: "", checkpointProof: [], prepared: [], replica: 3 }).wire;
    const sent = [0, 1, 2, 3, 4].map((k) => c.replicas[2].receive(stale, 1000 + k).send.length);
    expect(sent).to.deep.equal([1, 0, 0, 0, 0]);
    expect(c.replicas[2].receive(stale, 2001).send).to.have.length(1);
  });
});
