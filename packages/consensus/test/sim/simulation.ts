import { codecs } from "@chainsim/protocol";
import {
  open,
  Replica,
  sign,
  verifierOf,
  verifyCommitProof,
  type CommitProof,
  type Output,
  type PersistedState,
  type ReplicaConfig,
  type SignedMessage,
  type SyncRequest,
  type Verifier,
} from "../../src/index.js";
import { ByzantineReplica, type ByzantineBehavior } from "./adversary.js";
import { Agreement, InOrder, Liveness, NoSafetyEvents, Validity, type Assertion } from "./assertions.js";
import { Conduct, type ViewState } from "./conduct.js";
import { VirtualClock } from "./clock.js";
import { sha256Hex, simulatedKeys } from "./crypto.js";
import { CHAOTIC, HEALED, Network, type LinkConditions } from "./network.js";
import { Prng } from "./prng.js";

export interface SimulationOptions {
  seed: number;
  n: number;
  ckpInterval?: number;
  viewTimeoutMs?: number;
  /** Virtual time under chaotic links (and crashes) before the network heals. */
  chaosMs?: number;
  chaos?: LinkConditions;
  /** The links after healing (short delays by default; slower than the view timeout, only backoff lets a view finish). */
  healed?: LinkConditions;
  /** Every NEW-VIEW arrives this much later than the links would bring it: the new view's pre-prepares overtake it. */
  newViewDelayMs?: number;
  /**
   * After liveness (and the checkpoint tail): the network idles (no proposals, nobody expects progress)
   * for 10 view timeouts to settle, then this long, during which no honest replica may change view; at
   * its end every live honest replica holds stable the latest checkpoint a quorum of them executed.
   */
  idleMs?: number;
  /**
   * After liveness, proposals go on for `ms` while one live honest replica loses CHECKPOINTs: every one
   * sent to it ("to"), or the first copy of each it sends, right after which it crashes, restarting from
   * its snapshot 50-200 ms later ("from-then-crash"). Then the network idles (idleMs), and no later
   * checkpoint makes up for what was lost.
   */
  checkpointTail?: { ms: number; lose: "to" | "from-then-crash" };
  /** The schedule needs no view above this one: an honest replica that goes further gave up on an honest primary. */
  maxView?: number;
  /** After healing, every live replica must commit this many more values within boundMs. */
  livenessCommits?: number;
  boundMs?: number;
  /** Replicas that crash at a random time during chaos (at most f make sense). */
  crashes?: number;
  /** Which replicas crash, instead of `crashes` picked at random. */
  crashing?: number[];
  /** Crashed replicas restart from their last snapshot() when the network heals. */
  restart?: boolean;
  /** Of the `crashes`, this many stay down for good (never restarted). */
  permanentCrashes?: number;
  /** Replica 0 sends one value to even replicas and another to odd ones for every fresh seq. */
  equivocatingPrimary?: boolean;
  /**
   * With equivocatingPrimary: replica 0 also sends each replica a COMMIT for the version it gave it, and
   * a replica that restarts gets the other version of recent seqs (with COMMITs): forgetting a vote in a
   * restart can then complete a second certificate.
   */
  fullyByzantinePrimary?: boolean;
  /** Broken replicas: they prepare and commit with `quorum` votes. */
  unsafe?: { replicas: number[]; quorum: number };
  /** A Byzantine replica: what it sends is replaced by hostile messages signed with its key (adversary.ts). */
  byzantine?: { replica: number; behaviors: ByzantineBehavior[]; accomplice?: number };
  /** During chaos the network splits in two for a while, now and then, and heals. */
  partitions?: boolean;
  /**
   * Crashed replicas restart from their snapshot during chaos, at any instant, not only once it heals,
   * after a delay in [min, max] ms, and crash again a while later, until the network heals.
   */
  restartAnytime?: boolean;
  restartDelayMs?: [number, number];
  /** Share of proposals whose value fails the node's check. */
  invalidValues?: number;
  /** During chaos, this share of CHECKPOINT messages is lost on top of the links' own losses. */
  checkpointLoss?: number;
  /** How often the primary proposes (the node's close interval). */
  proposeIntervalMs?: number;
  /** Seqs the primary may have in flight beyond its ledger; the node uses 1 (each value names its parent). */
  pipeline?: number;
  tickMs?: number;
}

export interface SimulationResult {
  violations: { assertion: string; message: string }[];
  heights: number[];
  views: number[];
  endMs: number;
  messages: number;
  /** What the run exercised, so tests can tell a quiet run from a rough one. */
  stats: { viewChanges: number; stableCheckpoints: number; stateTransfers: number; nullCommits: number };
}

/** A PbftMessage is one field of its oneof (proto/consensus.proto): its first byte, the tag, names the kind. */
const VIEW_CHANGE_TAG = (5 << 3) | 2;
const NEW_VIEW_TAG = (6 << 3) | 2;

interface Ledger { digest: string; value: Uint8Array | null; proof: CommitProof; stateDigest: string }

/** One simulated validator: the replica plus what its node would do (ledger, proposals, state transfer). */
class SimNode {
  replica: Replica;
  crashed = false;
  saved?: PersistedState;
  readonly ledgers: Ledger[] = [];
  lastProposeMs = -Infinity;

  constructor(readonly config: ReplicaConfig) {
    this.replica = new Replica(config);
  }

  get height(): number {
    return this.ledgers.length;
  }

  get stateDigest(): string {
    return this.ledgers.at(-1)?.stateDigest ?? "";
  }
}

/** A seeded run: chaos (lossy, duplicating, reordering links, crashes, a faulty primary), then healing. */
export class Simulation {
  readonly clock = new VirtualClock();
  readonly random: Prng;
  readonly nodes: SimNode[];
  readonly network: Network<SignedMessage>;
  readonly agreement = new Agreement();
  readonly validity = new Validity();
  readonly inOrder = new InOrder();
  readonly liveness: Liveness;
  readonly conduct: Conduct;
  /** Opens messages for the conduct rules, and names the quorum. */
  private readonly verifier: Verifier;
  private readonly assertions: Assertion[];
  private readonly options: Required<Omit<SimulationOptions, "unsafe" | "byzantine" | "checkpointTail" | "maxView" | "crashing">> &
    Pick<SimulationOptions, "unsafe" | "byzantine" | "checkpointTail" | "maxView" | "crashing">;
  private readonly byzantine?: ByzantineReplica;
  private readonly safetyEvents = new NoSafetyEvents();
  private proposals = 0;
  /** The equivocating primary's two versions of each seq it proposed (the latest view). */
  private readonly versions = new Map<number, { view: number; even: SignedMessage; odd: SignedMessage }>();
  private chaotic = true;
  private idling = false;
  private honestViewChanges = 0;
  /** The idle phase's verdicts (see idleMs), and the view bound's (maxView). */
  private readonly idleViews: Assertion = { name: "idleKeepsView", violations: [] };
  private readonly idleCheckpoints: Assertion = { name: "idleCheckpointsStable", violations: [] };
  private readonly viewBound: Assertion = { name: "viewBound", violations: [] };
  /** The checkpoint tail's replica, and the seqs whose CHECKPOINT of its own it already lost once. */
  private tailReplica?: number;
  private readonly tailLost = new Set<number>();
  /** Whether replicas restart from their snapshots in this run (only then are snapshots kept: they cost time). */
  private readonly restarts: boolean;
  private readonly stats = { viewChanges: 0, stableCheckpoints: 0, stateTransfers: 0, nullCommits: 0 };

  constructor(options: SimulationOptions) {
    this.options = {
      ckpInterval: 4,
      viewTimeoutMs: 400,
      chaosMs: 3000,
      chaos: CHAOTIC,
      healed: HEALED,
      newViewDelayMs: 0,
      idleMs: 0,
      livenessCommits: 5,
      boundMs: 60_000,
      crashes: 0,
      restart: false,
      permanentCrashes: 0,
      equivocatingPrimary: false,
      fullyByzantinePrimary: false,
      proposeIntervalMs: 100,
      pipeline: 1,
      tickMs: 50,
      partitions: false,
      restartAnytime: false,
      restartDelayMs: [50, 1000],
      invalidValues: 0,
      checkpointLoss: 0,
      ...options,
    };
    const { seed, n } = this.options;
    this.restarts = this.options.restart || this.options.restartAnytime || this.options.checkpointTail?.lose === "from-then-crash";
    this.random = new Prng(seed);
    this.liveness = new Liveness(this.options.livenessCommits);
    const keys = simulatedKeys(seed);
    const validators = Array.from({ length: n }, (_, i) => `validator-${i}`);
    this.nodes = validators.map(
      (_, i) =>
        new SimNode({
          validators,
          self: i,
          ckpInterval: this.options.ckpInterval,
          viewTimeoutMs: this.options.viewTimeoutMs,
          crypto: keys.crypto(i),
          unsafeQuorum: this.options.unsafe?.replicas.includes(i) ? this.options.unsafe.quorum : undefined,
        }),
    );
    const verifier = verifierOf(this.nodes[0].config);
    this.verifier = verifier;
    this.conduct = new Conduct(verifier, 2 * this.options.ckpInterval, (i) => this.honest(i), (i) => this.nodes[i].height);
    this.assertions = [this.agreement, this.validity, this.inOrder, this.liveness, this.safetyEvents, this.conduct, this.idleViews, this.idleCheckpoints, this.viewBound];
    this.network = new Network(this.clock, this.random, (to, _from, message) => {
      if (!this.alive(to)) return;
      if (to === this.byzantine?.replica) this.byzantine.observe(message);
      // The conduct rules watch deliveries of VIEW-CHANGEs and NEW-VIEWs only (opening every vote and calling
      // status() around it would slow the runs down).
      const kind = message.message?.[0];
      const signed = this.honest(to) && (kind === VIEW_CHANGE_TAG || kind === NEW_VIEW_TAG) ? open(verifier, message) : undefined;
      if (signed) this.conduct.onDeliver(to, signed);
      const before = signed ? this.viewState(to) : undefined;
      this.handle(to, this.nodes[to].replica.receive(message, this.clock.now));
      if (before) this.conduct.afterDelivery(to, signed!, before, this.viewState(to));
    });
    const byzantine = this.options.byzantine;
    if (byzantine) {
      const config = this.nodes[byzantine.replica].config;
      const accomplice = byzantine.accomplice === undefined ? undefined : { replica: byzantine.accomplice, crypto: this.nodes[byzantine.accomplice].config.crypto };
      this.byzantine = new ByzantineReplica(byzantine.replica, byzantine.behaviors, config.crypto, verifierOf(config), this.random, accomplice, (digest) =>
        this.validity.onPropose(digest),
      );
    }
  }

  run(): SimulationResult {
    const o = this.options;
    this.nodes.forEach((_, i) => this.clock.schedule(this.random.int(0, o.tickMs), () => this.tick(i)));
    const candidates = this.nodes.map((_, i) => i).filter((i) => !(o.equivocatingPrimary && i === 0) && i !== o.byzantine?.replica && i !== o.byzantine?.accomplice);
    const crashing = o.crashing ?? this.random.pick(candidates, o.crashes);
    const permanent = new Set(crashing.slice(0, o.permanentCrashes));
    const crash = (i: number) => {
      if (!this.chaotic) return;
      this.nodes[i].crashed = true;
      if (!o.restartAnytime || permanent.has(i)) return;
      this.clock.schedule(this.random.int(o.restartDelayMs[0], o.restartDelayMs[1]), () => {
        this.restart(i);
        this.clock.schedule(this.random.int(100, 800), () => crash(i));
      });
    };
    for (const i of crashing) this.clock.schedule(this.random.int(0, o.chaosMs), () => crash(i));
    if (o.partitions) {
      for (let k = 0; k < 2; k++) {
        this.clock.schedule(this.random.int(0, o.chaosMs - 500), () => {
          const side = new Set(this.random.pick(this.nodes.map((_, i) => i), this.random.int(1, o.n - 1)));
          this.network.blocked = (from, to) => side.has(from) !== side.has(to);
          this.clock.schedule(this.random.int(200, 1500), () => (this.network.blocked = undefined));
        });
      }
    }
    this.network.conditions = o.chaos;
    this.clock.runUntil(o.chaosMs);
    this.network.conditions = o.healed;
    this.network.blocked = undefined;
    this.chaotic = false;
    if (o.restart || o.restartAnytime) this.nodes.forEach((node, i) => node.crashed && !permanent.has(i) && this.restart(i));
    this.liveness.mark(this.heights());
    const live = () => this.nodes.map((node) => !node.crashed);
    this.clock.runUntil(o.chaosMs + o.boundMs, () => this.liveness.satisfied(this.heights(), live()));
    this.liveness.finish(this.heights(), live(), o.boundMs);
    if (o.checkpointTail) this.checkpointTail(o.checkpointTail);
    if (o.idleMs > 0) this.idle();
    this.checkViewBound();
    return {
      violations: this.assertions.flatMap((a) => a.violations.map((message) => ({ assertion: a.name, message }))),
      heights: this.heights(),
      views: this.nodes.map((node) => node.replica.status().view),
      endMs: this.clock.now,
      messages: this.network.delivered,
      stats: this.stats,
    };
  }

  /** The idle phase of `idleMs`: a Byzantine replica with "phantom-votes" keeps voting for a seq nobody proposed. */
  private idle(): void {
    const o = this.options;
    this.idling = true;
    this.tailReplica = undefined;
    this.clock.runUntil(this.clock.now + 10 * o.viewTimeoutMs);
    const before = this.honestViewChanges;
    this.clock.runUntil(this.clock.now + o.idleMs);
    const changes = this.honestViewChanges - before;
    if (changes > 0) this.idleViews.violations.push(`honest replicas changed view ${changes} times while the network idled ${o.idleMs} ms`);
    this.checkIdleCheckpoints();
  }

  /**
   * An idle, healed network settles its checkpoints: every live honest replica holds stable the latest
   * checkpoint seq that both it and a quorum of live honest replicas executed. (A replica further behind
   * without a checkpoint of its own to re-send learns of the others' ledgers from the node's tip
   * announcements, which the simulation leaves out.)
   */
  private checkIdleCheckpoints(): void {
    const { ckpInterval } = this.options;
    const quorum = this.verifier.quorum;
    const replicas = this.liveHonestReplicas();
    if (replicas.length < quorum) return;
    const atCheckpoint = (height: number) => height - (height % ckpInterval);
    const byQuorum = atCheckpoint(replicas.map((i) => this.nodes[i].height).sort((a, b) => b - a)[quorum - 1]);
    for (const i of replicas) {
      const expected = Math.min(byQuorum, atCheckpoint(this.nodes[i].height));
      const stable = this.nodes[i].replica.status().stableCheckpoint.seq;
      if (stable < expected) this.idleCheckpoints.violations.push(`node ${i} holds seq ${stable} stable after idling; it and ${quorum} replicas executed seq ${expected}`);
    }
  }

  /** Proposals go on while one live honest replica loses CHECKPOINTs (see checkpointTail). */
  private checkpointTail(tail: { ms: number; lose: "to" | "from-then-crash" }): void {
    this.tailReplica = this.random.pick(this.liveHonestReplicas(), 1)[0];
    this.clock.runUntil(this.clock.now + tail.ms);
  }

  /** Whether the checkpoint tail loses this first copy of a CHECKPOINT its replica sends; it crashes right after. */
  private lostFromTailReplica(from: number, seq: number): boolean {
    if (from !== this.tailReplica || this.options.checkpointTail?.lose !== "from-then-crash" || this.tailLost.has(seq)) return false;
    this.tailLost.add(seq);
    this.clock.schedule(this.random.int(1, this.options.viewTimeoutMs / 4), () => {
      this.nodes[from].crashed = true;
      this.clock.schedule(this.random.int(50, 200), () => this.restart(from));
    });
    return true;
  }

  private checkViewBound(): void {
    const bound = this.options.maxView;
    if (bound === undefined) return;
    this.nodes.forEach((node, i) => {
      const view = node.replica.status().view;
      if (this.honest(i) && view > bound) this.viewBound.violations.push(`node ${i} went on to view ${view}; the schedule needs no view above ${bound}`);
    });
  }

  private liveHonestReplicas(): number[] {
    return this.nodes.map((_, i) => i).filter((i) => this.alive(i) && this.honest(i));
  }

  private heights(): number[] {
    return this.nodes.map((node) => node.height);
  }

  private alive(i: number): boolean {
    return !this.nodes[i].crashed;
  }

  private viewState(i: number): ViewState {
    const status = this.nodes[i].replica.status();
    return { view: status.view, active: status.viewActive };
  }

  /** Runs the replica code unchanged and sends what it says: the replicas the conduct rules judge. */
  private honest(i: number): boolean {
    const o = this.options;
    return i !== o.byzantine?.replica && i !== o.byzantine?.accomplice && !o.unsafe?.replicas.includes(i) && !(o.equivocatingPrimary && i === 0);
  }

  private tick(i: number): void {
    if (this.alive(i)) {
      // Clients always wait for the next value here (unless idling), so every replica expects the primary to make progress.
      if (!this.idling) this.handle(i, this.nodes[i].replica.expectProgress(this.clock.now));
      this.handle(i, this.nodes[i].replica.tick(this.clock.now));
      if (!this.idling) this.maybePropose(i);
      else if (i === this.byzantine?.replica && this.byzantine.acts("phantom-votes")) {
        const status = this.nodes[i].replica.status();
        const vote = this.byzantine.phantomVote(status.view, status.lastExecutedSeq + 1);
        this.nodes.forEach((_, j) => j !== i && this.network.send(i, j, vote));
      }
    }
    this.clock.schedule(this.options.tickMs, () => this.tick(i));
  }

  /** The primary proposes a fresh value, at most once per proposeIntervalMs (like a ledger close). */
  private maybePropose(i: number): void {
    const node = this.nodes[i];
    const seq = node.replica.nextProposalSeq();
    if (seq === undefined || seq > node.height + this.options.pipeline || this.clock.now - node.lastProposeMs < this.options.proposeIntervalMs) return;
    node.lastProposeMs = this.clock.now;
    const kind = this.random.chance(this.options.invalidValues) ? "bad" : "value";
    const value = new TextEncoder().encode(`${kind}/${this.options.seed}/${i}/${this.proposals++}`);
    this.validity.onPropose(sha256Hex(value));
    this.handle(i, node.replica.propose(value, this.clock.now));
  }

  /** What the node does with an Output: persist, send, validate, execute, sync. */
  private handle(i: number, out: Output): void {
    const node = this.nodes[i];
    const viewChanges = out.events.filter((e) => e.startsWith("view change")).length;
    this.stats.viewChanges += viewChanges;
    if (this.honest(i)) this.honestViewChanges += viewChanges;
    this.stats.stableCheckpoints += out.events.filter((e) => e.startsWith("stable checkpoint")).length;
    this.stats.nullCommits += out.commits.filter((c) => c.value === null).length;
    for (const event of out.events) this.safetyEvents.onEvent(i, event);
    if (out.persist && this.restarts) node.saved = JSON.parse(JSON.stringify(node.replica.snapshot())) as PersistedState;
    for (const { to, message } of out.send) {
      const signed = this.honest(i) ? open(this.verifier, message) : undefined;
      if (signed) this.conduct.onSend(i, signed);
      const targets = to === "all" ? this.nodes.map((_, j) => j).filter((j) => j !== i) : [to];
      const atRisk = (this.chaotic && this.options.checkpointLoss > 0) || this.tailReplica !== undefined;
      const checkpoint = atRisk ? codecs.PbftMessage.decode(message.message!).checkpoint : undefined;
      if (checkpoint && this.chaotic && this.options.checkpointLoss > 0 && this.random.chance(this.options.checkpointLoss)) continue;
      if (checkpoint && this.lostFromTailReplica(i, Number(checkpoint.seq ?? 0n))) continue;
      const extraDelayMs = message.message?.[0] === NEW_VIEW_TAG ? this.options.newViewDelayMs : 0;
      for (const j of targets) {
        if (checkpoint && j === this.tailReplica && this.options.checkpointTail?.lose === "to") continue;
        for (const sent of this.tamper(i, j, message)) {
          for (const m of i === this.byzantine?.replica ? this.byzantine.tamper(j, sent) : [sent]) this.network.send(i, j, m, extraDelayMs);
        }
      }
    }
    for (const v of out.validate) {
      const ok = new TextDecoder().decode(v.value).startsWith("value/");
      // Checking takes a while (the node executes the value): votes of faster replicas arrive meanwhile.
      this.clock.schedule(this.random.int(1, 120), () => {
        if (!this.alive(i)) return;
        if (ok) this.conduct.onChecked(i, v.view, v.seq, v.digest);
        this.handle(i, node.replica.valueChecked(v.view, v.seq, v.digest, ok, this.clock.now));
      });
    }
    for (const commit of out.commits) {
      for (const a of this.assertions) a.onCommit?.({ node: i, seq: commit.seq, digest: commit.digest, value: commit.value, proof: commit.proof });
      // After a restart the replica may hand out again what the ledger already holds.
      if (commit.seq !== node.height + 1) continue;
      this.append(node, { digest: commit.digest, value: commit.value, proof: commit.proof });
      this.handle(i, node.replica.executed(commit.seq, node.stateDigest, this.clock.now));
    }
    if (out.sync) {
      const request = out.sync;
      this.clock.schedule(this.random.int(10, 50), () => this.alive(i) && this.stateTransfer(i, request));
    }
  }

  private append(node: SimNode, ledger: Omit<Ledger, "stateDigest">): void {
    node.ledgers.push({ ...ledger, stateDigest: sha256Hex(`${node.stateDigest}/${ledger.digest}`) });
  }

  /**
   * Copies ledgers from the peers named in the request, most advanced first, checking each commit proof;
   * a ledger whose proof fails ends that peer's turn. A Byzantine peer serving proofs that mix views is
   * asked first.
   */
  private stateTransfer(i: number, request: SyncRequest): void {
    const node = this.nodes[i];
    const mixer = this.byzantine?.acts("mixed-view-proofs") ? this.byzantine.replica : undefined;
    const sources = [...new Set([...(mixer === undefined ? [] : [mixer]), ...request.from.sort((a, b) => this.nodes[b].height - this.nodes[a].height)])];
    const verifier = verifierOf(node.config);
    for (const j of sources) {
      const peer = this.nodes[j];
      if (peer.crashed || j === i || peer.height <= node.height) continue;
      this.stats.stateTransfers++;
      while (node.height < peer.height) {
        const seq = node.height + 1;
        const ledger = peer.ledgers[seq - 1];
        const proof = j === mixer ? this.byzantine!.mixViews(ledger.proof) : ledger.proof;
        if (!verifyCommitProof(verifier, seq, ledger.digest, proof)) break;
        for (const a of this.assertions) a.onSynced?.({ node: i, seq, digest: ledger.digest, value: ledger.value, proof });
        this.append(node, { ...ledger, proof });
        // Like the node (ledger-sync.ts), each ledger applied is reported: the replica signs the CHECKPOINTs it passes.
        this.inOrder.onExpect(i, node.height + 1);
        this.handle(i, node.replica.synced(node.height, node.stateDigest, this.clock.now));
      }
    }
    this.conduct.onSyncDone(i, request, (seq) => node.ledgers[seq - 1]?.stateDigest);
    this.inOrder.onExpect(i, node.height + 1);
  }

  private restart(i: number): void {
    const node = this.nodes[i];
    if (!node.crashed) return;
    node.crashed = false;
    if (this.options.fullyByzantinePrimary && i !== 0) {
      // The primary tells the restarted replica the other story about every recent seq, again as it catches up.
      for (const delay of [0, 100, 250, 500]) {
        this.clock.schedule(delay, () => {
          const recent = [...this.versions.keys()].sort((a, b) => b - a).slice(0, 8);
          for (const seq of recent) for (const m of this.version(this.versions.get(seq)!, i % 2 === 0 ? "odd" : "even")) this.network.send(0, i, m);
        });
      }
    }
    node.replica = new Replica(node.config, node.saved, this.clock.now);
    this.conduct.onRestart(i);
    // The ledger may be ahead of the snapshot (executed after the last vote): tell the replica.
    this.inOrder.onExpect(i, node.height + 1);
    if (node.height > node.replica.status().lastExecutedSeq) this.handle(i, node.replica.synced(node.height, node.stateDigest, this.clock.now));
  }

  /** The equivocating primary gives odd replicas a different value for each fresh pre-prepare. */
  private tamper(from: number, to: number, message: SignedMessage): SignedMessage[] {
    if (!this.options.equivocatingPrimary || from !== 0) return [message];
    const pp = codecs.PbftMessage.decode(message.message!).pre_prepare;
    if (!pp || !message.value?.length) return [message];
    const view = Number(pp.view ?? 0n);
    const seq = Number(pp.seq ?? 0n);
    let versions = this.versions.get(seq);
    if (!versions || versions.view !== view) {
      const value = new TextEncoder().encode(`value/evil/${new TextDecoder().decode(message.value)}`);
      this.validity.onPropose(sha256Hex(value));
      const odd = sign(this.nodes[from].config.crypto, { kind: "pre-prepare", view, seq, replica: from, value, digest: sha256Hex(value) }).wire;
      versions = { view, even: message, odd };
      this.versions.set(seq, versions);
    }
    return this.version(versions, to % 2 === 0 ? "even" : "odd");
  }

  /** One version of an equivocated pre-prepare, with the primary's COMMIT for it when it is fully Byzantine. */
  private version(versions: { view: number; even: SignedMessage; odd: SignedMessage }, which: "even" | "odd"): SignedMessage[] {
    const wire = versions[which];
    if (!this.options.fullyByzantinePrimary) return [wire];
    const pp = codecs.PbftMessage.decode(wire.message!).pre_prepare!;
    const commit = sign(this.nodes[0].config.crypto, { kind: "commit", view: versions.view, seq: Number(pp.seq ?? 0n), replica: 0, digest: sha256Hex(wire.value!) }).wire;
    return [wire, commit];
  }

}
