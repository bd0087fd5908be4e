import { codecs } from "@chainsim/protocol";
import { expect } from "chai";
import { Replica, faultTolerance, quorumSize, sign, verifierOf, verifyCommitProof, type PersistedState, type PrePrepare, type SignedMessage } from "../src/index.js";
import { Cluster, kindOf, utf8 } from "./cluster.js";
import { sha256Hex } from "./sim/crypto.js";

describe("quorum arithmetic", () => {
  it("is 2f+1 for n = 3f+1, and keeps two quorums overlapping in f+1 for other n", () => {
    expect([1, 2, 3, 4, 5, 6, 7].map(faultTolerance)).to.deep.equal([0, 0, 0, 1, 1, 1, 2]);
    expect([1, 2, 3, 4, 5, 6, 7].map(quorumSize)).to.deep.equal([1, 2, 2, 3, 4, 4, 5]);
  });
});

describe("Replica: normal case", () => {
  it("commits a proposed value on every replica with a checkable commit proof", () => {
    const c = new Cluster(4);
    expect(c.replicas[0].nextProposalSeq()).to.equal(1);
    const out = c.propose(0, "ledger 1");
    expect(out.persist).to.equal(true);
    expect(out.send.map((s) => kindOf(s.message))).to.deep.equal(["pre_prepare"]);
    c.deliver();
    for (let i = 0; i < 4; i++) {
      expect(c.commits[i].map((x) => x.seq)).to.deep.equal([1]);
      expect(c.commits[i][0].value).to.deep.equal(utf8("ledger 1"));
    }
    const { digest, proof } = c.commits[2][0];
    const verifier = verifierOf(c.configs[2]);
    expect(verifyCommitProof(verifier, 1, digest, proof)).to.equal(true);
    expect(verifyCommitProof(verifier, 2, digest, proof)).to.equal(false);
    expect(verifyCommitProof(verifier, 1, digest, { commits: proof.commits!.slice(0, 2) })).to.equal(false);
    expect(verifyCommitProof(verifier, 1, digest, { commits: [proof.commits![0], proof.commits![0], proof.commits![1]] })).to.equal(false);

    const status = c.replicas[1].status();
    expect(status).to.include({ view: 0, primary: 0, viewActive: true, quorum: 3, f: 1, lastExecutedSeq: 1 });
    expect(status.instances[0]).to.include({ seq: 1, phase: "PHASE_COMMITED", digest, prePrepare: "validator-0" });
    expect(status.instances[0].prepares).to.deep.equal(["validator-1", "validator-2", "validator-3"]);
    expect(status.instances[0].commits).to.have.length(3);
  });

  it("does not PREPARE before the node's value check passes, and changes view when it fails", () => {
    const c = new Cluster(4);
    c.rejectValues.add(3);
    const out = c.replicas[1].receive(c.propose(0, "v").send[0].message, 0);
    expect(out.validate).to.have.length(1);
    expect(out.send).to.deep.equal([]);
    c.deliver();
    expect(c.sent(3, "prepare")).to.equal(0);
    expect(c.sent(3, "view_change")).to.equal(1);
    expect(c.replicas[3].status()).to.include({ view: 1, viewActive: false });
    // Replica 2 alone cannot make the 2f PREPAREs; once replica 1's check passes, 2f+1 commit.
    expect(c.commits.map((x) => x.length)).to.deep.equal([0, 0, 0, 0]);
    c.take(1, c.replicas[1].valueChecked(0, 1, out.validate[0].digest, true, 0));
    c.deliver();
    // Replica 3 executes it too: a commit certificate decides, whatever its own check said.
    expect(c.commits.map((x) => x.length)).to.deep.equal([1, 1, 1, 1]);
    expect(c.replicas[1].status().instances[0].prepares).to.deep.equal(["validator-1", "validator-2"]);
  });

  it("commits alone with a single validator", () => {
    const c = new Cluster(1);
    const out = c.propose(0, "solo");
    expect(out.commits.map((x) => x.seq)).to.deep.equal([1]);
    expect(c.replicas[0].nextProposalSeq()).to.equal(2);
  });

  it("refuses to propose when not the primary", () => {
    const c = new Cluster(4);
    const out = c.propose(1, "usurper");
    expect(out.send).to.deep.equal([]);
    expect(out.events[0]).to.match(/propose refused/);
  });
});

describe("Replica: message hygiene", () => {
  it("ignores a message with a bad signature and a duplicate", () => {
    const c = new Cluster(4);
    const pp = c.propose(0, "v").send[0].message;
    const forged = { message: pp.message, signature: pp.signature!.map((b, i) => (i === 0 ? b ^ 1 : b)) };
    const bad = c.replicas[1].receive(forged, 0);
    expect(bad.validate).to.deep.equal([]);
    expect(bad.events[0]).to.match(/bad signature/);
    expect(c.replicas[1].receive(pp, 0).validate).to.have.length(1);
    expect(c.replicas[1].receive(pp, 0).validate).to.deep.equal([]);
  });

  it("ignores a pre-prepare from a replica that is not the primary, and one outside the window", () => {
    const c = new Cluster(4, { ckpInterval: 2 });
    const crypto0 = c.configs[0].crypto;
    const value = utf8("far");
    const at = (seq: number, replica: number, crypto = crypto0) =>
      sign<PrePrepare>(crypto, { kind: "pre-prepare", view: 0, seq, replica, value, digest: sha256Hex(value) }).wire;
    expect(c.replicas[1].receive(at(5, 0), 0).validate).to.deep.equal([]); // window is seqs 1..4
    expect(c.replicas[1].receive(at(4, 0), 0).validate).to.have.length(1);
    expect(c.replicas[1].receive(at(3, 2, c.configs[2].crypto), 0).validate).to.deep.equal([]);
  });
});

describe("Replica: view change", () => {
  it("carries a value prepared in view 0 into view 1, and fills an unprepared seq before it with null", () => {
    const c = new Cluster(4, { viewTimeoutMs: 1000 });
    c.propose(0, "seq 1");
    // Seq 1: only the primary sees it through; nobody else gets its pre-prepare.
    c.deliver((e) => e.from === 0 && e.kind !== "pre_prepare");
    c.propose(0, "seq 2");
    // Seq 2 prepares everywhere but no COMMIT arrives, then the primary goes silent.
    c.deliver((e) => e.kind !== "commit");
    expect(c.commits.flat()).to.deep.equal([]);
    for (const i of [1, 2, 3]) c.tick(i, 1000);
    c.deliver((e) => e.to !== 0 && e.from !== 0);
    for (const i of [1, 2, 3]) {
      expect(c.replicas[i].status()).to.include({ view: 1, primary: 1, viewActive: true });
      expect(c.commits[i].map((x) => [x.seq, x.view, x.value && new TextDecoder().decode(x.value)])).to.deep.equal([
        [1, 1, null],
        [2, 1, "seq 2"],
      ]);
    }
    // The new primary continues above what the NEW-VIEW assigned.
    expect(c.replicas[1].nextProposalSeq()).to.equal(3);
  });

  it("keeps an idle view: the timer runs only while work is owed (an undecided instance, or a proposal the node expects)", () => {
    const c = new Cluster(4, { viewTimeoutMs: 1000 });
    c.propose(0, "seq 1");
    c.deliver();
    expect(c.commits.map((x) => x.length)).to.deep.equal([1, 1, 1, 1]);
    // Decided, nothing owed: no view change however long the network stays idle.
    for (const i of [1, 2, 3]) expect(c.tick(i, 60_000).events).to.deep.equal([]);
    // The node expects a proposal (transactions wait): one timeout later the view fails.
    for (const i of [1, 2, 3]) c.take(i, c.replicas[i].expectProgress(60_000));
    expect(c.tick(1, 60_999).events).to.deep.equal([]);
    expect(c.tick(1, 61_000).events[0]).to.match(/view change to 1: no progress in view 0/);
    // An accepted pre-prepare owes a decision, without any expectProgress: seq 2 pre-prepared, never decided.
    const d = new Cluster(4, { viewTimeoutMs: 1000 });
    d.propose(0, "seq 1");
    d.deliver();
    d.now = 60_000;
    d.propose(0, "seq 2");
    d.deliver((e) => e.kind === "pre_prepare");
    expect(d.replicas[2].status().instances.at(-1)!.phase).to.equal("PHASE_PREPREPARED");
    expect(d.tick(2, 60_999).events).to.deep.equal([]);
    expect(d.tick(2, 61_000).events[0]).to.match(/view change to 1: no progress in view 0/);
  });

  it("joins a view change once f+1 others ask for a higher view", () => {
    const c = new Cluster(4, { viewTimeoutMs: 1000 });
    c.tick(2, 1000);
    c.tick(3, 1000);
    const [vc2, vc3] = c.queue.filter((e) => e.to === 0).map((e) => e.message);
    expect(c.replicas[0].receive(vc2, 1000).send).to.deep.equal([]);
    const joined = c.replicas[0].receive(vc3, 1000);
    expect(joined.send.map((s) => kindOf(s.message))).to.deep.equal(["view_change"]);
    expect(joined.persist).to.equal(true);
  });

  it("backs off per failed view once a quorum asks for it, and only resends its VIEW-CHANGE while alone", () => {
    const c = new Cluster(4, { viewTimeoutMs: 1000 });
    // Alone in asking for view 1, replica 2 does not race on to view 2: it repeats its request.
    c.tick(2, 1000);
    expect(c.tick(2, 1999).send).to.deep.equal([]);
    const resent = c.tick(2, 2000);
    expect(resent.events).to.deep.equal([]);
    expect(resent.send.map((s) => kindOf(s.message))).to.deep.equal(["view_change"]);
    expect(c.replicas[2].status().view).to.equal(1);
    // Replicas 0, 2, 3 agree on view 1 but its primary (1) is silent: 2 s for view 1, then 4 s for view 2.
    c.queue = [];
    c.tick(0, 2000);
    c.tick(3, 2000);
    c.deliver((e) => e.to !== 1);
    expect(c.replicas[2].status().viewChange!.requests.map((r) => r.replica)).to.deep.equal([0, 2, 3]);
    expect(c.tick(2, 3999).events).to.deep.equal([]);
    expect(c.tick(2, 4000).events[0]).to.match(/view change to 2: view 1 did not start within 2000 ms/);
  });

  it("passes its NEW-VIEW on to a replica that asks for a view it missed", () => {
    const c = new Cluster(4);
    for (const i of [0, 2, 3]) c.tick(i, 1000);
    c.deliver((e) => e.to !== 3 || e.kind !== "new_view");
    expect(c.replicas[3].status().viewActive).to.equal(false);
    c.tick(3, 2000);
    c.deliver();
    expect(c.replicas[3].status()).to.include({ view: 1, viewActive: true });
  });

  it("ignores a NEW-VIEW whose pre-prepares its VIEW-CHANGEs do not justify", () => {
    const c = new Cluster(4);
    for (const i of [0, 2, 3]) c.tick(i, 1000);
    c.deliver((e) => e.to === 1);
    const nv = c.outputs[1].flatMap((o) => o.send).find((s) => kindOf(s.message) === "new_view")!;
    const decoded = codecs.PbftMessage.decode(nv.message.message!).new_view!;
    const value = utf8("smuggled");
    // As a NEW-VIEW carries it: the digest, no value.
    const smuggled = sign<PrePrepare>(c.configs[1].crypto, { kind: "pre-prepare", view: 1, seq: 1, replica: 1, value: undefined, digest: sha256Hex(value) });
    const forgedView = sign(c.configs[1].crypto, {
      kind: "new-view",
      view: 1,
      viewChanges: [],
      prePrepares: [smuggled],
      replica: 1,
    });
    expect(decoded.view_changes).to.have.length(3);
    const out = c.replicas[2].receive(forgedView.wire, 1000);
    expect(out.events[0]).to.match(/unjustified NEW-VIEW/);
    expect(c.replicas[2].status().viewActive).to.equal(false);
    expect(c.replicas[2].receive(nv.message, 1000).events[0]).to.match(/entered view 1/);
  });

  it("keeps a pre-prepare that overtook its NEW-VIEW while it was two views behind", () => {
    const c = new Cluster(4);
    const reachable = (down: number) => (e: { from: number; to: number }) => e.from !== down && e.to !== down;
    // Replica 3 is cut off. View 1 fails (its primary's NEW-VIEW never arrives); view 2 starts without replica 3.
    for (const i of [0, 1, 2]) c.tick(i, 1000);
    c.deliver((e) => reachable(3)(e) && e.kind !== "new_view");
    for (const i of [0, 1, 2]) c.tick(i, 3000);
    c.deliver(reachable(3));
    expect(c.replicas.map((r) => r.status().view)).to.deep.equal([2, 2, 2, 0]);
    // Replica 0 goes down and replica 3 is back: primary 2's first pre-prepare reaches it before the NEW-VIEW.
    c.queue = [];
    const prePrepare = c.propose(2, "ledger 1").send[0].message;
    c.queue = c.queue.filter((e) => e.to !== 3);
    c.take(3, c.replicas[3].receive(prePrepare, 3001));
    const newView = c.outputs[2].flatMap((o) => o.send).find((s) => kindOf(s.message) === "new_view")!.message;
    c.take(3, c.replicas[3].receive(newView, 3002));
    c.deliver(reachable(0));
    // Replicas 1, 2 and 3 are the quorum: replica 3's PREPARE is needed, so it must have kept the pre-prepare.
    expect(c.commits.map((commits) => commits.length)).to.deep.equal([0, 1, 1, 1]);
  });
});

describe("Replica: checkpoints and state transfer", () => {
  it("makes a checkpoint stable on 2f+1 matching ones and drops the instances below it", () => {
    const c = new Cluster(4, { ckpInterval: 2 });
    for (let k = 1; k <= 5; k++) {
      c.propose(0, `ledger ${k}`);
      c.deliver();
    }
    for (const replica of c.replicas) {
      const status = replica.status();
      expect(status.stableCheckpoint.seq).to.equal(4);
      expect(status.instances.map((x) => x.seq)).to.deep.equal([5]);
      expect(replica.snapshot().instances).to.have.length(1);
    }
  });

  it("asks the node to sync when a stable checkpoint far ahead is seen, and adopts it once synced", () => {
    const c = new Cluster(4, { ckpInterval: 10 });
    const digest = sha256Hex("state at 40");
    const checkpoints = [0, 2, 3].map((i) => sign(c.configs[i].crypto, { kind: "checkpoint", seq: 40, stateDigest: digest, replica: i }).wire);
    expect(c.replicas[1].receive(checkpoints[0], 0).sync).to.equal(undefined);
    expect(c.replicas[1].receive(checkpoints[1], 0).sync).to.equal(undefined);
    const out = c.replicas[1].receive(checkpoints[2], 0);
    expect(out.sync).to.deep.equal({ targetSeq: 40, stateDigest: digest, from: [0, 2, 3] });
    const done = c.replicas[1].synced(40, digest, 10);
    expect(done.sync).to.equal(undefined);
    expect(c.replicas[1].status()).to.deep.include({ lastExecutedSeq: 40, stableCheckpoint: { seq: 40, digest } });
  });
});

describe("Replica: restart from snapshot", () => {
  it("never votes for a conflicting value after a restart", () => {
    const c = new Cluster(4);
    c.propose(0, "the value");
    c.deliver((e) => e.to === 1 && e.kind === "pre_prepare");
    expect(c.sent(1, "prepare")).to.equal(1);
    const saved = JSON.parse(JSON.stringify(c.replicas[1].snapshot())) as PersistedState;

    const restarted = new Replica(c.configs[1], saved, 50);
    const other = utf8("another value");
    const conflicting = sign<PrePrepare>(c.configs[0].crypto, { kind: "pre-prepare", view: 0, seq: 1, replica: 0, value: other, digest: sha256Hex(other) });
    const out = restarted.receive(conflicting.wire, 60);
    expect(out.validate).to.deep.equal([]);
    expect(out.send.map((s) => kindOf(s.message))).to.deep.equal(["view_change"]);
    expect(out.events[0]).to.match(/equivocated/);
    expect(restarted.status().instances[0]).to.include({ seq: 1, phase: "PHASE_PREPREPARED", digest: sha256Hex(utf8("the value")) });
  });

  it("still reports a value it prepared before the crash in its VIEW-CHANGE", () => {
    const c = new Cluster(4);
    c.propose(0, "prepared");
    c.deliver((e) => e.kind !== "commit");
    expect(c.replicas[2].status().instances[0].phase).to.equal("PHASE_PREPARED");
    const restarted = new Replica(c.configs[2], JSON.parse(JSON.stringify(c.replicas[2].snapshot())) as PersistedState, 0);
    const vc = restarted.tick(1000).send.map((s) => codecs.PbftMessage.decode(s.message.message!).view_change!)[0];
    expect(vc.view).to.equal(1n);
    expect(vc.prepared).to.have.length(1);
    expect(vc.prepared![0].prepares).to.have.length(2);
  });

  it("hands out again the commits the node had not executed, and asks again for pending value checks", () => {
    const c = new Cluster(4);
    c.propose(0, "v1");
    const toOne: SignedMessage[] = [];
    c.deliver((e) => (e.to === 1 ? (toOne.push(e.message), false) : true));
    // Replica 1 leaves the value check unanswered, yet the others' COMMITs decide the value.
    const outs = toOne.map((m) => c.replicas[1].receive(m, 0));
    expect(outs.flatMap((o) => o.commits).map((x) => x.seq)).to.deep.equal([1]);
    const restarted = new Replica(c.configs[1], c.replicas[1].snapshot(), 0);
    const first = restarted.tick(10);
    expect(first.commits.map((x) => [x.seq, x.value && new TextDecoder().decode(x.value)])).to.deep.equal([[1, "v1"]]);
    expect(first.validate.map((v) => v.seq)).to.deep.equal([1]);
    expect(restarted.tick(20).commits).to.deep.equal([]);
  });
});
