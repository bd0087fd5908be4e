import { commitProofOf } from "./certificates.js";
import { CheckpointStore, type StableCheckpoint } from "./checkpoints.js";
import { checkConfig, faultTolerance, primaryOf, verifierOf, type ReplicaConfig, type Verifier } from "./config.js";
import { Instance } from "./instance.js";
import { describe, open, sign, withoutValue, type Body, type Checkpoint, type NewView, type PrePrepare, type Signed, type SignedMessage, type ViewChange, type Vote } from "./messages.js";
import { emptyOutput, type Output, type SyncRequest } from "./output.js";
import { restoreCheckpoints, restoreState, snapshotState, type PersistedState } from "./persist.js";
import type { ReplicaState } from "./state.js";
import { statusOf, type ConsensusStatus } from "./status.js";
import { checkNewView, isValidViewChange, planNewView, type NewViewPlan, type ViewChangeRules } from "./view-change.js";

/** The view-change timeout doubles per consecutive failed view, up to this many times. */
const MAX_BACKOFF_DOUBLINGS = 6;

/**
 * One validator's PBFT state machine. Pure and deterministic: the node feeds it messages and the time
 * and carries out each returned Output; nothing here reads a clock, does I/O or draws random numbers.
 * docs/consensus.md describes the protocol.
 */
export class Replica {
  private readonly n: number;
  private readonly f: number;
  private readonly self: number;
  private readonly verifier: Verifier;
  private readonly rules: ViewChangeRules;
  private readonly state: ReplicaState;
  private readonly checkpoints: CheckpointStore;
  /**
   * Pre-prepares that overtook their NEW-VIEW, by "view/seq", for the next n views only (each primary
   * leads one): a Byzantine primary of a view far ahead can neither crowd out the next view's nor fill memory.
   */
  private readonly early = new Map<string, Signed<PrePrepare>>();
  /**
   * When the current view is declared failed unless it makes progress. In an active view it runs only while
   * there is work the primary owes: an instance of this view not yet decided, or a proposal the node
   * expects (expectProgress). An idle network keeps its view. While changing view it runs only once a
   * quorum asks for this view or a later one: a replica never races ahead alone, view after view, and one
   * that fell behind in the view change catches up with those ahead.
   */
  private deadline = Infinity;
  /** While changing view: when to send our VIEW-CHANGE again (messages get lost). */
  private resendAt = Infinity;
  /** When to send our latest CHECKPOINT again while it is not stable (a lost one would stall the window). */
  private checkpointResendAt = Infinity;
  /** When we last answered each replica with our stable checkpoint's proof, and with our NEW-VIEW. */
  private readonly proofSentAt = new Map<number, number>();
  private readonly newViewSentAt = new Map<number, number>();
  /**
   * The view whose primary the node suspects (censorship): this replica withholds its PREPAREs there, so
   * that f+1 suspecting replicas stop the view's progress and its timers replace the primary, while one
   * suspecting alone stays in the view and keeps up through the others' commits.
   */
  private suspected?: number;
  /** Since when we know others are ahead (undefined: we are not behind). */
  private behindSince?: number;
  /** Work produced outside a call (validate requests after a restart), returned by the next call. */
  private carried: Output = emptyOutput();
  private out: Output = emptyOutput();
  private now: number;

  constructor(
    private readonly config: ReplicaConfig,
    restored?: PersistedState,
    nowMs = 0,
  ) {
    checkConfig(config);
    this.n = config.validators.length;
    this.f = faultTolerance(this.n);
    this.self = config.self;
    this.verifier = verifierOf(config);
    const genesis = config.genesis ?? { seq: 0, stateDigest: "" };
    this.rules = { verifier: this.verifier, genesis, windowSize: 2 * config.ckpInterval };
    this.checkpoints = new CheckpointStore(this.verifier.quorum);
    this.now = nowMs;
    this.state = restored
      ? restoreState(this.verifier, restored)
      : {
          view: 0,
          viewActive: true,
          failedViews: 0,
          newViewMaxSeq: genesis.seq,
          lastExecuted: genesis.seq,
          lastDelivered: genesis.seq,
          stable: { seq: genesis.seq, digest: genesis.stateDigest, proof: [] },
          log: new Map(),
          viewChanges: new Map(),
        };
    if (restored) {
      for (const checkpoint of restoreCheckpoints(this.verifier, restored)) this.checkpoints.add(checkpoint);
      if (this.checkpoints.latestOf(this.self)) this.checkpointResendAt = nowMs + config.viewTimeoutMs;
    }
    for (const instance of this.state.log.values()) {
      const pp = instance.prePrepare?.body;
      if (pp?.value && !instance.validated && instance.view === this.state.view) {
        this.carried.validate.push({ view: pp.view, seq: pp.seq, digest: pp.digest, value: pp.value });
      }
    }
    if (this.state.viewActive) this.armIfOwed();
    else {
      this.resendAt = nowMs + config.viewTimeoutMs;
      this.armViewChangeTimer();
    }
  }

  /** The seq propose() would use now, or undefined when this replica may not propose. */
  nextProposalSeq(): number | undefined {
    const s = this.state;
    if (!s.viewActive || this.primary() !== this.self) return undefined;
    let last = Math.max(s.lastDelivered, s.newViewMaxSeq);
    for (const instance of s.log.values()) if (instance.view === s.view) last = Math.max(last, instance.seq);
    return this.inWindow(last + 1) ? last + 1 : undefined;
  }

  /** Primary only: starts an instance for the value at nextProposalSeq(); refused (an event) otherwise. */
  propose(value: Uint8Array, nowMs: number): Output {
    return this.step(nowMs, () => {
      const seq = this.nextProposalSeq();
      if (seq === undefined) {
        this.event("propose refused: not the active primary, or the window is full");
        return;
      }
      const s = this.state;
      const pp = this.broadcast<PrePrepare>({ kind: "pre-prepare", view: s.view, seq, replica: this.self, value, digest: this.config.crypto.digest(value) });
      const instance = this.instance(seq)!;
      instance.accept(pp, true, this.now);
      this.tryPrepared(instance);
    });
  }

  /** A message from a peer. Bad signatures, malformed, stale and duplicate messages are ignored. */
  receive(message: SignedMessage, nowMs: number): Output {
    return this.step(nowMs, () => {
      const signed = open(this.verifier, message);
      if (!signed) {
        this.event("ignored a message with a bad signature or shape");
        return;
      }
      if (signed.body.replica === this.self) return;
      switch (signed.body.kind) {
        case "pre-prepare":
          return this.onPrePrepare(signed as Signed<PrePrepare>);
        case "prepare":
        case "commit":
          return this.onVote(signed as Signed<Vote>);
        case "checkpoint":
          return this.onCheckpoint(signed as Signed<Checkpoint>);
        case "view-change":
          return this.onViewChange(signed as Signed<ViewChange>);
        case "new-view":
          return this.onNewView(signed as Signed<NewView>);
      }
    });
  }

  /** The node's verdict on a `validate` request. ok=false means the primary proposed garbage: change view. */
  valueChecked(view: number, seq: number, digest: string, ok: boolean, nowMs: number): Output {
    return this.step(nowMs, () => {
      const s = this.state;
      const instance = s.log.get(seq);
      if (!instance || instance.view !== view || instance.prePrepare?.body.digest !== digest || instance.validated) return;
      if (!s.viewActive || view !== s.view) return;
      if (!ok) {
        this.startViewChange(s.view + 1, `the value proposed at seq ${seq} is invalid`);
        return;
      }
      instance.validated = true;
      if (this.self !== this.primary() && this.suspected !== s.view) this.vote("prepare", instance);
      this.tryPrepared(instance);
    });
  }

  /** The node executed the commit for seq (in order); stateDigest is its ledger hash. Drives checkpoints. */
  executed(seq: number, stateDigest: string, nowMs: number): Output {
    return this.step(nowMs, () => {
      const s = this.state;
      if (seq !== s.lastExecuted + 1 || seq > s.lastDelivered) {
        this.event(`executed(${seq}) out of order: last executed ${s.lastExecuted}, delivered ${s.lastDelivered}`);
        return;
      }
      s.lastExecuted = seq;
      this.checkpointAt(seq, stateDigest);
    });
  }

  /** The node caught up to seq by state transfer (it verified the commit proofs itself). */
  synced(seq: number, stateDigest: string, nowMs: number): Output {
    return this.step(nowMs, () => {
      const s = this.state;
      if (seq <= s.lastExecuted) return;
      this.event(`synced to seq ${seq}`);
      s.lastExecuted = seq;
      s.lastDelivered = Math.max(s.lastDelivered, seq);
      this.behindSince = undefined;
      // Being behind was not the primary's fault: give the view a full timeout from here, if it owes work.
      if (s.viewActive) {
        this.deadline = Infinity;
        this.armIfOwed();
      }
      this.checkpointAt(seq, stateDigest);
    });
  }

  /**
   * The node expects the primary to propose (transactions wait, or an empty ledger is due): the view
   * timer runs from now if it is not running already, and the view fails unless a value is decided in time.
   */
  expectProgress(nowMs: number): Output {
    return this.step(nowMs, () => this.expectWork());
  }

  /**
   * The node has grounds to replace the primary that the protocol cannot see (it keeps proposing but leaves
   * out a transaction this validator knows): withhold PREPAREs from its new proposals (see `suspected`).
   */
  suspectPrimary(reason: string, nowMs: number): Output {
    return this.step(nowMs, () => {
      const s = this.state;
      if (!s.viewActive || this.primary() === this.self || this.suspected === s.view) return;
      this.suspected = s.view;
      this.event(`suspecting the primary of view ${s.view} (${reason}): no PREPARE for its new proposals`);
    });
  }

  /** The node's grounds are gone (nothing overdue any more): PREPARE the current primary's proposals again. */
  trustPrimary(nowMs: number): Output {
    return this.step(nowMs, () => {
      const s = this.state;
      if (this.suspected !== s.view) return;
      this.suspected = undefined;
      this.event(`trusting the primary of view ${s.view} again`);
      for (const instance of s.log.values()) {
        if (instance.view === s.view && instance.validated && !instance.prepares.has(this.self) && !instance.committed) {
          this.vote("prepare", instance);
          this.tryPrepared(instance);
        }
      }
    });
  }

  /** Time passes: the view-change timer, resending VIEW-CHANGEs, repeated sync requests while behind. */
  tick(nowMs: number): Output {
    return this.step(nowMs, () => {
      const s = this.state;
      if (this.now >= this.deadline) {
        const reason = s.viewActive ? `no progress in view ${s.view}` : `view ${s.view} did not start`;
        this.startViewChange(s.view + 1, `${reason} within ${this.timeout()} ms`);
      } else if (this.now >= this.resendAt) {
        const own = s.viewChanges.get(this.self);
        if (own) this.out.send.push({ to: "all", message: own.wire });
        this.resendAt = this.now + this.config.viewTimeoutMs;
      }
      if (this.now >= this.checkpointResendAt) {
        const own = this.checkpoints.latestOf(this.self);
        if (own) this.out.send.push({ to: "all", message: own.wire });
        this.checkpointResendAt = own ? this.now + this.config.viewTimeoutMs : Infinity;
      }
    });
  }

  /** Everything needed to never cast a conflicting vote after a crash; JSON-safe (messages as hex). */
  snapshot(): PersistedState {
    return snapshotState(this.state, this.checkpoints.all());
  }

  status(): ConsensusStatus {
    return statusOf(this.state, {
      validators: this.config.validators,
      self: this.self,
      f: this.f,
      quorum: this.verifier.quorum,
      ckpInterval: this.config.ckpInterval,
      primary: this.primary(),
    });
  }

  // --- one call --------------------------------------------------------------------------------------

  private step(nowMs: number, body: () => void): Output {
    this.now = Math.max(this.now, nowMs);
    this.out = this.carried;
    this.carried = emptyOutput();
    body();
    this.deliver();
    this.checkBehind();
    return this.out;
  }

  private event(text: string): void {
    this.out.events.push(text);
  }

  private broadcast<T extends Body>(body: T): Signed<T> {
    const signed = sign(this.config.crypto, body);
    this.out.send.push({ to: "all", message: signed.wire });
    // A vote must be remembered across a crash; our latest CHECKPOINT too, since we re-send it until it is
    // stable and the others may need it (docs/consensus.md, "Checkpoints and state transfer").
    this.out.persist = true;
    return signed;
  }

  private vote(kind: Vote["kind"], instance: Instance): void {
    const pp = instance.prePrepare!.body;
    instance.addVote(this.broadcast<Vote>({ kind, view: pp.view, seq: pp.seq, replica: this.self, digest: pp.digest }));
  }

  // --- normal case -----------------------------------------------------------------------------------

  private primary(view = this.state.view): number {
    return primaryOf(view, this.n);
  }

  private inWindow(seq: number): boolean {
    const stable = this.state.stable.seq;
    return seq > stable && seq <= stable + this.rules.windowSize;
  }

  private instance(seq: number): Instance | undefined {
    if (!this.inWindow(seq)) return undefined;
    let instance = this.state.log.get(seq);
    if (!instance) {
      instance = new Instance(seq, this.now);
      this.state.log.set(seq, instance);
    }
    return instance;
  }

  private onPrePrepare(pp: Signed<PrePrepare>): void {
    const s = this.state;
    const { view, seq, digest, value } = pp.body;
    // Null requests only come inside a NEW-VIEW, a fresh pre-prepare carries its value, and comes from its view's primary.
    if (value === null || value === undefined || pp.body.replica !== this.primary(view) || !this.inWindow(seq)) return;
    if (view > s.view || (view === s.view && !s.viewActive)) {
      const key = `${view}/${seq}`;
      if (view < s.view + this.n && !this.early.has(key)) this.early.set(key, pp);
      return;
    }
    if (view < s.view || seq <= s.newViewMaxSeq) return;
    const instance = this.instance(seq)!;
    if (instance.view === view) {
      if (instance.prePrepare!.body.digest !== digest) this.startViewChange(s.view + 1, `primary ${pp.body.replica} equivocated at seq ${seq}`);
      return;
    }
    const decided = instance.committedDigest();
    if (decided !== undefined && decided !== digest) {
      this.event(`ignored ${describe(pp.body)}: seq ${seq} is already decided otherwise`);
      return;
    }
    instance.accept(pp, false, this.now);
    this.armIfOwed();
    this.out.validate.push({ view, seq, digest, value });
  }

  private onVote(vote: Signed<Vote>): void {
    const { kind, view, seq, replica } = vote.body;
    // Old-view PREPAREs can no longer prepare anything; COMMITs of any view may complete a certificate.
    if (kind === "prepare" && (view < this.state.view || replica === this.primary(view))) return;
    const instance = this.instance(seq);
    if (!instance || !instance.addVote(vote)) return;
    // f+1 replicas voting in this view above what we delivered include an honest one that saw a pre-prepare:
    // the primary owes us that work. One replica's votes alone prove nothing (a Byzantine one could force
    // view changes on an idle network).
    if (view === this.state.view && seq > this.state.lastDelivered && instance.votersIn(view) > this.f) this.expectWork();
    if (kind === "prepare") this.tryPrepared(instance);
    else this.tryCommitted(instance);
  }

  /** Prepared: the accepted pre-prepare, our own check, quorum−1 matching PREPAREs. Then COMMIT. */
  private tryPrepared(instance: Instance): void {
    const s = this.state;
    if (!s.viewActive || instance.view !== s.view || !instance.validated) return;
    if (instance.commits.get(this.self)?.body.view === s.view) return;
    const prepares = instance.matchingPrepares();
    const needed = this.verifier.quorum - 1;
    if (prepares.length < needed) return;
    instance.prepared = { prePrepare: instance.prePrepare!, prepares: prepares.slice(0, needed) };
    this.vote("commit", instance);
    this.tryCommitted(instance);
  }

  private tryCommitted(instance: Instance): void {
    if (instance.committed) return;
    const commits = instance.commitCertificate(this.verifier.quorum);
    if (!commits) return;
    instance.committed = commits;
    instance.endMs = this.now;
    const s = this.state;
    if (s.viewActive && commits[0].body.view === s.view) {
      // The view works: reset the timer (running again only for work still owed) and the backoff.
      s.failedViews = 0;
      this.deadline = Infinity;
      this.armIfOwed();
    }
  }

  /** Hands every decided value whose turn has come to the node, in seq order. */
  private deliver(): void {
    const s = this.state;
    for (;;) {
      const instance = s.log.get(s.lastDelivered + 1);
      if (!instance?.deliverable()) return;
      const commits = instance.committed!;
      const digest = commits[0].body.digest;
      s.lastDelivered = instance.seq;
      this.out.commits.push({ seq: instance.seq, view: commits[0].body.view, value: instance.values.get(digest)!, digest, proof: commitProofOf(commits) });
    }
  }

  // --- checkpoints and state transfer ----------------------------------------------------------------

  private checkpointAt(seq: number, stateDigest: string): void {
    if (seq % this.config.ckpInterval === 0) {
      const checkpoint = this.broadcast<Checkpoint>({ kind: "checkpoint", seq, stateDigest, replica: this.self });
      this.checkpoints.add(checkpoint);
      this.checkpointResendAt = this.now + this.config.viewTimeoutMs;
    }
    this.considerCheckpoints();
  }

  private onCheckpoint(checkpoint: Signed<Checkpoint>): void {
    const { seq, replica } = checkpoint.body;
    if (seq % this.config.ckpInterval !== 0) return;
    if (seq <= this.state.stable.seq) {
      // The sender re-sends a checkpoint at or below our stable one: it missed the others'. Send it our
      // proof: it adopts it, or learns it is behind and catches up (in an idle network nothing else would tell it).
      if (this.mayAnswer(this.proofSentAt, replica)) {
        for (const c of this.state.stable.proof) if (c.body.replica !== replica) this.out.send.push({ to: replica, message: c.wire });
      }
      return;
    }
    this.checkpoints.add(checkpoint);
    this.considerCheckpoints();
  }

  /** Adopts the highest stable checkpoint we have the state for; higher ones mean we are behind. */
  private considerCheckpoints(): void {
    const s = this.state;
    const stable = this.checkpoints.stable().find((c) => c.seq <= s.lastExecuted);
    if (stable && stable.seq > s.stable.seq) this.adoptStable(stable);
  }

  private adoptStable(stable: StableCheckpoint): void {
    const s = this.state;
    const ours = this.checkpoints.digestOf(this.self, stable.seq);
    if (ours !== undefined && ours !== stable.digest) this.event(`our state at seq ${stable.seq} differs from the stable checkpoint's`);
    s.stable = stable;
    for (const seq of s.log.keys()) if (seq <= stable.seq) s.log.delete(seq);
    for (const [key, pp] of this.early) if (pp.body.seq <= stable.seq) this.early.delete(key);
    this.checkpoints.prune(stable.seq);
    this.event(`stable checkpoint at seq ${stable.seq}`);
  }

  /**
   * Whether to answer `replica` now with a message it should have had (a proof, a NEW-VIEW): at most once
   * per view timeout each, so that relayed or stale messages cannot start a ping-pong; records the answer.
   */
  private mayAnswer(sentAt: Map<number, number>, replica: number): boolean {
    const last = sentAt.get(replica);
    if (last !== undefined && this.now - last < this.config.viewTimeoutMs) return false;
    sentAt.set(replica, this.now);
    return true;
  }

  /** Asks the node to fetch ledgers when a quorum is provably ahead; repeated while still behind. */
  private checkBehind(): void {
    const target = this.syncTarget();
    if (!target) {
      this.behindSince = undefined;
      return;
    }
    const retryMs = this.config.viewTimeoutMs / 2;
    // A stable checkpoint ahead is conclusive; a gap in the commits may still fill by itself.
    this.behindSince ??= target.stateDigest !== undefined ? this.now - retryMs : this.now;
    if (this.now - this.behindSince < retryMs) return;
    this.behindSince = this.now;
    this.out.sync = target;
  }

  private syncTarget(): SyncRequest | undefined {
    const s = this.state;
    const ahead = this.checkpoints.stable()[0];
    if (ahead && ahead.seq > s.lastExecuted) {
      return { targetSeq: ahead.seq, stateDigest: ahead.digest, from: ahead.proof.map((c) => c.body.replica) };
    }
    if (s.log.get(s.lastDelivered + 1)?.deliverable()) return undefined;
    // Whoever signed a COMMIT above us may hold the ledgers; the node tries them in turn.
    let targetSeq = 0;
    const from = new Set<number>();
    for (const instance of s.log.values()) {
      if (!instance.committed || instance.seq <= s.lastDelivered) continue;
      targetSeq = Math.max(targetSeq, instance.seq);
      for (const c of instance.committed) if (c.body.replica !== this.self) from.add(c.body.replica);
    }
    return targetSeq > 0 ? { targetSeq, from: [...from].sort((a, b) => a - b) } : undefined;
  }

  // --- view change -----------------------------------------------------------------------------------

  private timeout(): number {
    return this.config.viewTimeoutMs * 2 ** Math.min(this.state.failedViews, MAX_BACKOFF_DOUBLINGS);
  }

  /** Leaves the current view for `view`: stop voting in it, and ask for `view` with what we prepared. */
  private startViewChange(view: number, reason: string): void {
    const s = this.state;
    s.view = view;
    s.viewActive = false;
    s.failedViews++;
    this.event(`view change to ${view}: ${reason}`);
    const prepared = [...s.log.values()].flatMap((instance) => (instance.prepared ? [instance.prepared] : []));
    const vc = this.broadcast<ViewChange>({
      kind: "view-change",
      view,
      stableSeq: s.stable.seq,
      stableDigest: s.stable.digest,
      checkpointProof: s.stable.proof,
      // Digests only: the values stay with whoever has them (a VIEW-CHANGE stays small however large the ledgers).
      prepared: prepared.sort((a, b) => a.prePrepare.body.seq - b.prePrepare.body.seq).map((p) => ({ prePrepare: withoutValue(p.prePrepare), prepares: p.prepares })),
      replica: this.self,
    });
    s.viewChanges.set(this.self, vc);
    for (const [replica, held] of s.viewChanges) if (held.body.view < view) s.viewChanges.delete(replica);
    this.deadline = Infinity;
    this.resendAt = this.now + this.config.viewTimeoutMs;
    this.armViewChangeTimer();
    this.tryNewView();
  }

  /** In an active view: start the timer unless it runs. */
  private expectWork(): void {
    if (this.state.viewActive && this.deadline === Infinity) this.deadline = this.now + this.timeout();
  }

  /** In an active view: start the timer if an instance of this view is pre-prepared but not decided. */
  private armIfOwed(): void {
    const s = this.state;
    for (const instance of s.log.values()) {
      if (instance.seq > s.lastDelivered && instance.view === s.view && instance.prePrepare && !instance.committed) return this.expectWork();
    }
  }

  private armViewChangeTimer(): void {
    const s = this.state;
    if (s.viewActive || this.deadline !== Infinity) return;
    const asking = [...s.viewChanges.values()].filter((v) => v.body.view >= s.view).length;
    if (asking >= this.verifier.quorum) this.deadline = this.now + this.timeout();
  }

  private onViewChange(vc: Signed<ViewChange>): void {
    const s = this.state;
    const { view, replica } = vc.body;
    if (view < s.view || (view === s.view && s.viewActive)) {
      // The sender missed the NEW-VIEW that started our view (or a later one than it asks for): pass it on.
      if (s.viewActive && s.newView && this.mayAnswer(this.newViewSentAt, replica)) {
        this.out.send.push({ to: replica, message: s.newView.wire });
      }
      return;
    }
    const held = s.viewChanges.get(replica);
    if (held && held.body.view >= view) return;
    if (!isValidViewChange(this.rules, vc.body)) {
      this.event(`ignored an unjustified ${describe(vc.body)}`);
      return;
    }
    s.viewChanges.set(replica, vc);
    this.armViewChangeTimer();
    // f+1 replicas above our view include an honest one: follow to the highest view f+1 of them want.
    const higher = [...s.viewChanges.values()].map((v) => v.body.view).filter((v) => v > s.view).sort((a, b) => b - a);
    if (higher.length >= this.f + 1) this.startViewChange(higher[this.f], `${this.f + 1} replicas asked for views above ${s.view}`);
    else this.tryNewView();
  }

  /** As the primary of the view being changed to: a quorum of VIEW-CHANGEs makes the NEW-VIEW. */
  private tryNewView(): void {
    const s = this.state;
    if (s.viewActive || this.primary() !== this.self) return;
    const viewChanges = [...s.viewChanges.values()].filter((v) => v.body.view === s.view).sort((a, b) => a.body.replica - b.body.replica);
    if (viewChanges.length < this.verifier.quorum) return;
    const chosen = viewChanges.slice(0, this.verifier.quorum);
    const plan = planNewView(chosen);
    const prePrepares = plan.entries.map((e) =>
      sign<PrePrepare>(this.config.crypto, { kind: "pre-prepare", view: s.view, seq: e.seq, replica: this.self, value: e.value, digest: e.digest }),
    );
    const nv = this.broadcast<NewView>({ kind: "new-view", view: s.view, viewChanges: chosen, prePrepares, replica: this.self });
    this.enterView(nv, plan);
  }

  private onNewView(nv: Signed<NewView>): void {
    const s = this.state;
    if (nv.body.view < s.view || (nv.body.view === s.view && s.viewActive)) return;
    const plan = checkNewView(this.rules, nv.body);
    if (!plan) {
      this.event(`ignored an unjustified ${describe(nv.body)}`);
      return;
    }
    this.enterView(nv, plan);
  }

  /** Starts the view of a valid NEW-VIEW: its pre-prepares need no value check (they were prepared). */
  private enterView(nv: Signed<NewView>, plan: NewViewPlan): void {
    const s = this.state;
    s.view = nv.body.view;
    s.viewActive = true;
    s.newView = nv;
    s.newViewMaxSeq = plan.maxSeq;
    this.deadline = Infinity;
    this.resendAt = Infinity;
    this.out.persist = true;
    for (const [replica, held] of s.viewChanges) if (held.body.view <= s.view) s.viewChanges.delete(replica);
    this.event(`entered view ${s.view}, primary ${this.primary()}`);
    // Its stable checkpoint may be ahead of ours: adopt it, or learn that we must catch up.
    for (const checkpoint of plan.stable.proof) this.checkpoints.add(checkpoint);
    this.considerCheckpoints();
    for (const pp of nv.body.prePrepares) {
      const instance = this.instance(pp.body.seq);
      if (!instance) continue;
      const decided = instance.committedDigest();
      if (decided !== undefined && decided !== pp.body.digest) {
        this.event(`SAFETY: the new view re-proposes another value at decided seq ${pp.body.seq}`);
        continue;
      }
      instance.accept(pp, true, this.now);
      if (this.self !== this.primary()) this.vote("prepare", instance);
      this.tryPrepared(instance);
    }
    for (const [key, pp] of this.early) {
      if (pp.body.view > s.view) continue;
      this.early.delete(key);
      if (pp.body.view === s.view) this.onPrePrepare(pp);
    }
    this.armIfOwed();
  }
}
