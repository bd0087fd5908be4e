import { open, type Body, type NewView, type SyncRequest, type Verifier, type ViewChange } from "../../src/index.js";
import type { Signed } from "../../src/messages.js";
import type { Assertion, Decision } from "./assertions.js";

/** At most this many violations are kept per run: a broken replica repeats its mistake at every message. */
const KEPT = 20;

/**
 * What a correct replica does on the wire (PBFT's non-faulty replica), watched over every message an
 * honest replica signs and every VIEW-CHANGE and NEW-VIEW it is given. A bug often breaks one of these rules long
 * before some run turns it into two decided values, so the simulations catch it in few seeds:
 *
 * 1. one vote per kind, view and seq: never PREPAREs or COMMITs for two values, also across restarts;
 * 2. views only go up: nothing of a view below one it already spoke in (a VIEW-CHANGE included);
 * 3. a vote for a value its node checked, its own proposal, or a value a NEW-VIEW it was given carries;
 * 4. a VIEW-CHANGE carries a prepared certificate (of that view or a later one) for every seq above its
 *    stable checkpoint at which the replica sent a COMMIT, the proof that it was prepared;
 * 5. a NEW-VIEW it sends, or one that makes it enter a view, is valid: from the view's primary, a
 *    quorum of valid VIEW-CHANGEs for that view from distinct replicas, and at each seq the value prepared
 *    in the highest view among them (a null request where none is);
 * 6. every decided value a replica hands out or takes by state transfer has a proof of `quorum` COMMITs of
 *    one view from distinct replicas;
 * 7. f+1 honest replicas asking for views above its own make a replica follow at once (no timer), and
 *    no further than the (f+1)-th highest view asked for (one replica alone cannot pick the view);
 * 8. a sync request's evidence is true: the ledger at its target seq has the state digest it names;
 * 9. the stable checkpoint a VIEW-CHANGE claims is one the replica has the state of (its ledger reaches it).
 *
 * Rules 5 and 6 are written here again, on purpose apart from src/: an oracle that called the code under
 * test would share its bugs (docs/consensus.md, "Tests").
 */
export class Conduct implements Assertion {
  readonly name = "conduct";
  readonly violations: string[] = [];
  private readonly n: number;
  private readonly f: number;
  private readonly quorum: number;
  /** `node/kind/view/seq` → the digest it voted for. */
  private readonly votes = new Map<string, string>();
  private readonly highestView = new Map<number, number>();
  /** `node/view/seq/digest` the node may vote for: checked by its node, proposed by it, or carried by a NEW-VIEW it got. */
  private readonly vouched = new Set<string>();
  /** node → seq → the highest view in which it sent a COMMIT (so it was prepared there). */
  private readonly preparedIn = new Map<number, Map<number, number>>();
  /** receiver → sender → the highest view of a VIEW-CHANGE the receiver was given by it (all senders; honest ones). */
  private readonly heard = new Map<number, Map<number, number>>();
  private readonly askedOf = new Map<number, Map<number, number>>();

  constructor(
    private readonly verifier: Verifier,
    private readonly windowSize: number,
    private readonly honest: (node: number) => boolean,
    /** How many ledgers the node holds now. */
    private readonly height: (node: number) => number,
  ) {
    this.n = verifier.validators.length;
    this.f = Math.floor((this.n - 1) / 3);
    this.quorum = Math.ceil((this.n + this.f + 1) / 2);
  }

  /** Its node found the value fine. */
  onChecked(node: number, view: number, seq: number, digest: string): void {
    this.vouch(node, { view, seq, digest });
  }

  /** A message in a replica's Output, before any tampering (only those it signed itself are its conduct). */
  onSend(node: number, message: Signed): void {
    const body = message.body;
    if (!this.honest(node) || body.replica !== node) return;
    if (body.kind === "checkpoint") return;
    this.viewsOnlyGoUp(node, body);
    switch (body.kind) {
      case "pre-prepare":
        return this.vouch(node, body);
      case "prepare":
      case "commit": {
        const key = `${node}/${body.kind}/${body.view}/${body.seq}`;
        const earlier = this.votes.get(key);
        if (earlier !== undefined && earlier !== body.digest) this.fail(`node ${node} sent ${body.kind.toUpperCase()}s for two values at view ${body.view} seq ${body.seq}`);
        this.votes.set(key, body.digest);
        if (!this.vouched.has(vouchKey(node, body))) {
          this.fail(`node ${node} sent a ${body.kind.toUpperCase()} at view ${body.view} seq ${body.seq} for ${short(body.digest)}, which its node never checked`);
        }
        if (body.kind === "commit") record(this.preparedIn, node, body.seq, body.view);
        return;
      }
      case "view-change":
        this.claimsOnlyItsState(node, body);
        return this.carriesWhatWasPrepared(node, body);
      case "new-view": {
        for (const pp of body.prePrepares) this.vouch(node, pp.body);
        const flaw = this.flawOfNewView(body);
        if (flaw) this.fail(`node ${node} sent a NEW-VIEW for view ${body.view} that ${flaw}`);
        return;
      }
    }
  }

  /** A message delivered to `node` (before its replica handles it). */
  onDeliver(node: number, message: Signed): void {
    const body = message.body;
    if (!this.honest(node)) return;
    if (body.kind === "new-view") for (const pp of body.prePrepares) this.vouch(node, pp.body);
    if (body.kind === "view-change" && body.replica !== node) {
      record(this.heard, node, body.replica, body.view);
      if (this.honest(body.replica)) record(this.askedOf, node, body.replica, body.view);
    }
  }

  /** After `node` handled a delivered VIEW-CHANGE or NEW-VIEW: rules 5 and 7, from its view before and after. */
  afterDelivery(node: number, message: Signed, before: ViewState, after: ViewState): void {
    if (!this.honest(node)) return;
    const body = message.body;
    if (body.kind === "new-view" && after.active && after.view === body.view && !(before.active && before.view === body.view)) {
      const flaw = this.flawOfNewView(body);
      if (flaw) this.fail(`node ${node} entered view ${body.view} on a NEW-VIEW that ${flaw}`);
    }
    if (body.kind !== "view-change") return;
    const above = [...(this.askedOf.get(node)?.values() ?? [])].filter((v) => v > after.view).length;
    if (above > this.f) this.fail(`node ${node} stays in view ${after.view} while ${above} honest replicas ask for later views`);
    if (after.view > before.view) {
      const asked = [...(this.heard.get(node)?.values() ?? [])].filter((v) => v > before.view).sort((a, b) => b - a);
      const bound = asked[this.f] ?? before.view;
      if (after.view > bound) this.fail(`node ${node} joined view ${after.view}, above the ${this.f + 1}-th highest view asked (${bound})`);
    }
  }

  /**
   * A restarted replica knows only its snapshot: the first half of rule 7 forgets the VIEW-CHANGEs it was
   * given (it may have lost them), the second half keeps them (it may still hold them).
   */
  onRestart(node: number): void {
    this.askedOf.delete(node);
  }

  /** After a state transfer the node ran for `request`; `stateAt` reads its ledger's state digest at a seq. */
  onSyncDone(node: number, request: SyncRequest, stateAt: (seq: number) => string | undefined): void {
    if (!this.honest(node) || request.stateDigest === undefined) return;
    const actual = stateAt(request.targetSeq);
    if (actual !== undefined && actual !== request.stateDigest) {
      this.fail(`node ${node} asked to sync to seq ${request.targetSeq} with state ${short(request.stateDigest)}, but the ledger there has ${short(actual)}`);
    }
  }

  onCommit(d: Decision): void {
    this.provenInOneView(d, "decided");
  }

  onSynced(d: Decision): void {
    this.provenInOneView(d, "took by state transfer");
  }

  private vouch(node: number, value: { view: number; seq: number; digest: string }): void {
    this.vouched.add(vouchKey(node, value));
  }

  private viewsOnlyGoUp(node: number, body: Exclude<Body, { kind: "checkpoint" }>): void {
    const highest = this.highestView.get(node) ?? 0;
    if (body.view < highest) this.fail(`node ${node} sent a ${body.kind} of view ${body.view} after speaking in view ${highest}`);
    this.highestView.set(node, Math.max(highest, body.view));
  }

  private claimsOnlyItsState(node: number, vc: ViewChange): void {
    if (vc.stableSeq > this.height(node)) this.fail(`node ${node}'s VIEW-CHANGE for view ${vc.view} claims a stable checkpoint at seq ${vc.stableSeq} with ${this.height(node)} ledgers`);
  }

  private carriesWhatWasPrepared(node: number, vc: ViewChange): void {
    const prepared = this.preparedIn.get(node);
    if (!prepared) return;
    for (const [seq, view] of prepared) {
      if (seq <= vc.stableSeq) {
        prepared.delete(seq);
        continue;
      }
      if (view >= vc.view) continue;
      const cert = vc.prepared.find((c) => c.prePrepare.body.seq === seq);
      if (!cert || cert.prePrepare.body.view < view) {
        this.fail(`node ${node}'s VIEW-CHANGE for view ${vc.view} leaves out seq ${seq}, which it prepared in view ${view}`);
      }
    }
  }

  /** What makes a NEW-VIEW invalid, if anything (PBFT's rules, independent of src/view-change.ts). */
  private flawOfNewView(nv: NewView): string | undefined {
    if (nv.replica !== nv.view % this.n) return `comes from replica ${nv.replica}, not view ${nv.view}'s primary`;
    const senders = new Set(nv.viewChanges.map((v) => v.body.replica));
    if (senders.size < this.quorum || senders.size !== nv.viewChanges.length) return `holds ${senders.size} distinct VIEW-CHANGEs in ${nv.viewChanges.length}, not a quorum of ${this.quorum}`;
    for (const { body: vc } of nv.viewChanges) {
      if (vc.view !== nv.view) return `holds a VIEW-CHANGE of replica ${vc.replica} for view ${vc.view}`;
      const flaw = this.flawOf(vc);
      if (flaw) return `holds the VIEW-CHANGE of replica ${vc.replica}, whose ${flaw}`;
    }
    const stable = Math.max(...nv.viewChanges.map((v) => v.body.stableSeq));
    const highest = new Map<number, { view: number; digest: string }>();
    for (const { body: vc } of nv.viewChanges) {
      for (const { prePrepare: { body: pp } } of vc.prepared) {
        if (pp.seq > stable && pp.view > (highest.get(pp.seq)?.view ?? -1)) highest.set(pp.seq, pp);
      }
    }
    for (const { body: pp } of nv.prePrepares) {
      const expected = highest.get(pp.seq)?.digest ?? "";
      if (pp.digest !== expected) return `re-proposes ${short(pp.digest)} at seq ${pp.seq}, where the highest prepared value is ${short(expected)}`;
    }
    return undefined;
  }

  /** What makes a VIEW-CHANGE invalid, if anything (PBFT's rules, independent of src/view-change.ts). */
  private flawOf(vc: ViewChange): string | undefined {
    const proof = vc.checkpointProof;
    const genesis = vc.stableSeq === 0 && vc.stableDigest === "";
    if (!genesis && (distinct(proof.map((c) => c.body.replica)) < this.quorum || proof.some((c) => c.body.seq !== vc.stableSeq || c.body.stateDigest !== vc.stableDigest))) {
      return `stable checkpoint at seq ${vc.stableSeq} is not proven`;
    }
    const seqs = new Set<number>();
    for (const { prePrepare, prepares } of vc.prepared) {
      const pp = prePrepare.body;
      const primary = pp.view % this.n;
      if (seqs.has(pp.seq)) return `certificates repeat seq ${pp.seq}`;
      seqs.add(pp.seq);
      if (pp.view >= vc.view || pp.seq <= vc.stableSeq || pp.seq > vc.stableSeq + this.windowSize) return `certificate for seq ${pp.seq} of view ${pp.view} is out of place`;
      if (pp.replica !== primary) return `certificate for seq ${pp.seq} is pre-prepared by replica ${pp.replica}, not view ${pp.view}'s primary ${primary}`;
      const matching = prepares.filter((p) => p.body.replica !== primary && p.body.view === pp.view && p.body.seq === pp.seq && p.body.digest === pp.digest);
      if (matching.length !== prepares.length || distinct(prepares.map((p) => p.body.replica)) < this.quorum - 1) {
        return `certificate for seq ${pp.seq} lacks ${this.quorum - 1} matching PREPAREs from distinct backups`;
      }
    }
    return undefined;
  }

  private provenInOneView(d: Decision, what: string): void {
    if (!this.honest(d.node) || !d.proof) return;
    const commits = (d.proof.commits ?? []).map((wire) => open(this.verifier, wire)?.body);
    const views = new Set(commits.map((c) => (c?.kind === "commit" ? c.view : -1)));
    const fits = commits.every((c) => c?.kind === "commit" && c.seq === d.seq && c.digest === d.digest);
    if (!fits || views.size !== 1 || distinct(commits.map((c) => c!.replica)) < this.quorum) {
      this.fail(`node ${d.node} ${what} seq ${d.seq} with a proof that is not ${this.quorum} COMMITs of one view (views ${[...views].join(", ")})`);
    }
  }

  private fail(message: string): void {
    if (this.violations.length < KEPT) this.violations.push(message);
  }
}

/** A replica's view and whether it is active in it. */
export interface ViewState {
  view: number;
  active: boolean;
}

/** Keeps, per node and key (a sender, a seq), the highest view seen. */
function record(tally: Map<number, Map<number, number>>, node: number, key: number, view: number): void {
  const views = tally.get(node) ?? new Map<number, number>();
  tally.set(node, views.set(key, Math.max(view, views.get(key) ?? -1)));
}

function vouchKey(node: number, { view, seq, digest }: { view: number; seq: number; digest: string }): string {
  return `${node}/${view}/${seq}/${digest}`;
}

function distinct(replicas: number[]): number {
  return new Set(replicas).size;
}

function short(digest: string): string {
  return digest.slice(0, 8) || "null";
}
