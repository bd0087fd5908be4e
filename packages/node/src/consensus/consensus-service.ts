import { primaryOf, Replica, verifierOf, type Commit, type ConsensusCrypto, type ConsensusStatus, type Output, type PersistedState, type Verifier } from "@chainsim/consensus";
import { codecs, equalBytes, toHex } from "@chainsim/protocol";
import type { ConsensusConfig } from "../config.js";
import type { ExecutedLedger } from "../execution/executor.js";
import type { LedgerManager } from "../ledger/ledger-manager.js";
import type { PeerNetwork } from "../p2p/index.js";
import type { TxService } from "../pool/tx-service.js";
import type { Db } from "../storage/databases.js";
import { decidedProposal, valueDigest } from "./decided-values.js";
import { LedgerSync } from "./ledger-sync.js";
import { screenConsensusMessage, type ScreenBounds } from "./message-screen.js";
import { checkProposal, InvalidProposal } from "./proposal-check.js";
import { MIN_PROPOSAL_TXS, ProposalSize } from "./proposal-size.js";
import { type ClosedLedger, CensorshipWatch } from "./censorship-watch.js";
import { NewestMap } from "../collections.js";
import { PersistThenSend } from "./persist-then-send.js";
import { SnapshotStore } from "./snapshot-store.js";
import { TxGossip } from "./tx-gossip.js";
import type { LogLevel, NodeLog } from "../logging/node-log.js";
import { systemClock, type Clock, type ClockTimer } from "../clock.js";

const TICK_MS = 25;
/** Executed values for the next ledger kept for its commit (ConsensusService.executedValues). */
const EXECUTED_VALUES_KEPT = 4;

export interface ConsensusServiceParts {
  consensus: ConsensusConfig;
  validators: string[];
  self: string;
  crypto: ConsensusCrypto;
  ledgers: LedgerManager;
  txs: TxService;
  network: PeerNetwork;
  keyvalue: Db;
  log: NodeLog;
  /** Test-only: see ReplicaConfig.unsafeQuorum. */
  unsafeQuorum?: number;
  /** Fault injection (docs/faults.md, `censor`): while true, this validator proposes no transactions. */
  censoring?: () => boolean;
  /** Told when each ledger's phases begin and end (the node's metrics time them: docs/operations.md, "Metrics"). */
  phases?: ConsensusPhases;
  /** The system clock unless simulated (docs/simulation.md). */
  clock?: Clock;
}

/** The points of a ledger's agreement this service sees, by seq. */
export interface ConsensusPhases {
  /** This primary proposed the value, or this backup accepted its pre-prepare. */
  prePrepared(seq: number): void;
  /** This backup finished checking the proposed value. */
  checked(seq: number): void;
  decided(seq: number): void;
  stored(seq: number): void;
}

/**
 * Runs PBFT for this validator: feeds the replica (packages/consensus) with peers' messages and time, and
 * carries out what it asks, in its order: persist the snapshot, then send; check proposed values; execute
 * decided values into ledgers; sync from peers when behind. As primary it proposes the next ledger when
 * transactions wait (close_interval_ms) or when an empty ledger is due (empty_close_interval_ms). Ledger
 * work (proposing, checking, committing, syncing) runs one piece at a time, in arrival order.
 */
export class ConsensusService {
  readonly verifier: Verifier;
  private replica: Replica;
  private readonly clock: Clock;
  private readonly now: () => number;
  private readonly gossip: TxGossip;
  private readonly proposalSize: ProposalSize;
  private readonly ledgerSync: LedgerSync;
  /** Output handling in call order: a snapshot is on disk before the messages it covers leave. */
  private readonly outbound: PersistThenSend;
  private readonly censorship: CensorshipWatch;
  /** How long a transaction waits before a primary leaving it out counts against it: gossip re-sends it every 2 s. */
  private readonly censorshipPatienceMs: number;
  /** Ledger-moving work in arrival order (the LedgerManager serializes too, but decisions read the tip). */
  private work: Promise<void> = Promise.resolve();
  /**
   * Values for the ledger after the tip that this validator executed (proposed or checked), by digest, the
   * newest EXECUTED_VALUES_KEPT: each view may bring another, and while no ledger closes they would pile up
   * (views of 36 MB proposals took two validators to their heap limit). A commit of one no longer kept
   * executes the decided value again.
   */
  private executedValues = new NewestMap<string, ExecutedLedger>(EXECUTED_VALUES_KEPT);
  private timers: ClockTimer[] = [];
  private proposing = false;
  private lastCloseWall: number;
  private nextReadyCheck = 0;
  private nextExpectCheck = 0;
  /** The last proposal was as large as allowed: more transactions are waiting. */
  private backlog = false;
  /** Decided values handed out by the replica and not yet stored as ledgers. */
  private commitsInFlight = 0;
  /** Checks of values for a later ledger than the next, run again after each ledger. */
  private waitingChecks: (() => Promise<void>)[] = [];
  private stopped = false;
  /** What peers' consensus messages are screened against, refreshed every tick (reading it is not free). */
  private screenBounds: ScreenBounds;

  private constructor(
    private readonly parts: ConsensusServiceParts,
    snapshots: SnapshotStore,
    genesisHash: string,
    restored: PersistedState | undefined,
  ) {
    this.clock = parts.clock ?? systemClock;
    this.now = () => this.clock.now();
    const config = {
      validators: parts.validators,
      self: parts.validators.indexOf(parts.self),
      ckpInterval: parts.consensus.ckp_interval,
      viewTimeoutMs: parts.consensus.view_timeout_ms,
      crypto: parts.crypto,
      // Ledger 1 is the same on every validator by construction: the checkpoint everyone starts from.
      genesis: { seq: 1, stateDigest: genesisHash },
      unsafeQuorum: parts.unsafeQuorum,
    };
    this.verifier = verifierOf(config);
    this.replica = new Replica(config, restored, this.now());
    this.lastCloseWall = this.now();
    this.screenBounds = { view: 0, stableSeq: 1, windowSize: 2 * config.ckpInterval, highestLedger: 1 };
    this.outbound = new PersistThenSend({
      save: (snapshot) => snapshots.save(snapshot),
      snapshot: () => this.replica.snapshot(),
      send: (to, message) => {
        const bytes = codecs.PbftSignedMessage.encode(message);
        if (to === "all") parts.network.broadcast(bytes, "consensus");
        else parts.network.send(parts.validators[to]!, bytes, "consensus");
      },
      log: parts.log.error,
    });
    this.censorshipPatienceMs = Math.max(4 * parts.consensus.view_timeout_ms, 6_000);
    // The least any proposal may hold: a ledger with fewer had room for every transaction its primary knew.
    this.censorship = new CensorshipWatch(this.censorshipPatienceMs, Math.min(MIN_PROPOSAL_TXS, parts.consensus.max_txs_per_ledger));
    this.gossip = new TxGossip(parts.network, parts.txs, parts.log.warn, this.clock);
    this.proposalSize = new ProposalSize(parts.consensus.view_timeout_ms, parts.consensus.max_txs_per_ledger);
    this.ledgerSync = new LedgerSync({
      ledgers: parts.ledgers,
      network: parts.network,
      verifier: this.verifier,
      log: parts.log,
      clock: this.clock,
      enqueue: (task) => this.enqueue(task),
      onSynced: (ledger) => this.afterSynced(ledger),
    });
  }

  /** Restores the replica's snapshot (if any) and reconciles it with the ledgers on disk. */
  static async open(parts: ConsensusServiceParts): Promise<ConsensusService> {
    const snapshots = new SnapshotStore(parts.keyvalue);
    const restored = await snapshots.load();
    const genesis = await parts.ledgers.ledgers.ledger(1n);
    const service = new ConsensusService(parts, snapshots, toHex(genesis!.header!.hash!), restored);
    // Ledgers stored after the last snapshot (synced, or executed just before a crash) are known to the replica now.
    const tip = parts.ledgers.lastHeader;
    if (tip.seq! > 1n) service.handle(service.replica.synced(Number(tip.seq), toHex(tip.hash!), service.now()));
    return service;
  }

  start(): void {
    const { network } = this.parts;
    network.onMessage((from, payload, channel) => {
      if (this.stopped) return;
      if (channel === "consensus") this.onConsensusMessage(from, payload);
      else if (channel === "txs") this.gossip.receive(from, payload);
      else if (channel === "status") this.ledgerSync.onPeerStatus(from, payload);
    });
    this.ledgerSync.start();
    this.gossip.start();
    this.timers.push(this.clock.setInterval(() => this.onTick(), TICK_MS));
  }

  /** Stops timers and waits for work in progress; the network is stopped by its owner. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) this.clock.clear(timer);
    this.ledgerSync.stop();
    this.gossip.stop();
    await this.work;
    await this.outbound.flushed();
  }

  status(): ConsensusStatus {
    return this.replica.status();
  }

  /** The highest ledger this validator knows of: its own or one a peer announced (chain_max_ledger_seq). */
  get networkTip(): bigint {
    return this.ledgerSync.networkTip;
  }

  // --- inputs ------------------------------------------------------------------------------------

  private onConsensusMessage(from: string, payload: Uint8Array): void {
    const screened = screenConsensusMessage(this.verifier, this.screenBounds, payload);
    if ("offence" in screened) return this.parts.network.penalize(from, screened.offence);
    this.handle(this.replica.receive(screened.message, this.now()));
  }

  private onTick(): void {
    if (this.stopped) return;
    this.refreshScreenBounds();
    this.expectProgressWhenDue();
    this.handle(this.replica.tick(this.now()));
    this.considerProposing();
    this.ledgerSync.considerSync();
  }

  /**
   * Tells the replica when the primary owes a proposal, which starts its view timer: an empty ledger is due
   * (empty_close_interval_ms), or transactions that can go into the next ledger have waited
   * close_interval_ms (checked once per interval). An idle network keeps its view.
   */
  private expectProgressWhenDue(): void {
    const { consensus, txs } = this.parts;
    // A decided ledger being stored is progress already: the wait is measured from its close.
    if (this.commitsInFlight > 0) return;
    const now = this.now();
    const elapsed = now - this.lastCloseWall;
    if (elapsed >= consensus.empty_close_interval_ms) {
      this.handle(this.replica.expectProgress(now));
    } else if (txs.pool.size > 0 && elapsed >= consensus.close_interval_ms && now >= this.nextExpectCheck) {
      this.nextExpectCheck = now + consensus.close_interval_ms;
      const tip = this.parts.ledgers.lastHeader.seq;
      void txs.nextProposal(1).then((ready) => {
        // A ledger closed while the pool was read is the progress that was due: nothing to expect.
        if (ready.length > 0 && !this.stopped && this.parts.ledgers.lastHeader.seq === tip && this.commitsInFlight === 0) {
          this.handle(this.replica.expectProgress(this.now()));
        }
      });
    }
  }

  private refreshScreenBounds(): void {
    const { view, stableCheckpoint } = this.replica.status();
    this.screenBounds = { ...this.screenBounds, view, stableSeq: stableCheckpoint.seq, highestLedger: Number(this.ledgerSync.networkTip) };
  }

  // --- outputs -----------------------------------------------------------------------------------

  /** Carries out one output of the replica: persist before send, then queue checks and commits. */
  private handle(out: Output): void {
    for (const event of out.events) this.parts.log[eventLevel(event)](`consensus: ${event}`);
    this.outbound.carry(out.persist ? this.replica.snapshot() : undefined, out.send);
    for (const request of out.validate) this.parts.phases?.prePrepared(request.seq);
    for (const commit of out.commits) this.parts.phases?.decided(commit.seq);
    for (const request of out.validate) this.enqueue(() => this.check(request.view, request.seq, request.digest, request.value));
    for (const commit of out.commits) {
      this.commitsInFlight++;
      this.enqueue(() => this.commit(commit).finally(() => this.commitsInFlight--));
    }
    if (out.sync) this.ledgerSync.sync(out.sync.from.map((replica) => this.parts.validators[replica]!));
  }

  private enqueue(task: () => Promise<void>): void {
    this.work = this.work.then(task).catch((error) => this.parts.log.error(`consensus: ${(error as Error).stack ?? error}`));
  }

  // --- ledger work -------------------------------------------------------------------------------

  /** A backup's check of a proposed value; a value for a later ledger waits until its previous one is here. */
  private async check(view: number, seq: number, digest: string, value: Uint8Array): Promise<void> {
    const tip = Number(this.parts.ledgers.lastHeader.seq);
    if (seq <= tip) return; // decided meanwhile (by sync): nothing to prepare
    if (seq > tip + 1) {
      // Its previous ledger is still being decided or synced: check again after the next ledger.
      this.waitingChecks.push(() => this.check(view, seq, digest, value));
      return;
    }
    let ok = true;
    try {
      const started = this.clock.elapsed();
      const primary = this.verifier.validators[primaryOf(view, this.verifier.validators.length)]!;
      const executed = await checkProposal(this.parts.ledgers, this.verifier, primary, value, digest, this.now(), (tx) => this.parts.txs.pool.get(tx.hashHex)?.tx);
      this.proposalSize.record(executed.included.length, this.clock.elapsed() - started);
      this.executedValues.set(digest, executed);
    } catch (error) {
      if (!(error instanceof InvalidProposal)) throw error;
      ok = false;
      this.parts.log.warn(`consensus: refusing the value proposed for ledger ${seq} in view ${view}: ${error.message}`);
    }
    this.parts.phases?.checked(seq);
    this.handle(this.replica.valueChecked(view, seq, digest, ok, this.now()));
  }

  /** Executes a decided value into the next ledger, stored with its decision, and tells the replica. */
  private async commit(commit: Commit): Promise<void> {
    const { ledgers } = this.parts;
    const tip = ledgers.lastHeader;
    if (commit.seq <= Number(tip.seq)) {
      // Decided before a restart and already stored, or reached by sync meanwhile.
      const stored = await ledgers.ledgers.ledger(BigInt(commit.seq));
      this.handle(this.replica.executed(commit.seq, toHex(stored!.header!.hash!), this.now()));
      return;
    }
    if (commit.seq > Number(tip.seq) + 1) throw new Error(`commit for ledger ${commit.seq} arrived with the tip at ${tip.seq}`);
    const decision = { seq: BigInt(commit.seq), value: commit.value ?? new Uint8Array(0), proof: commit.proof };
    const executed = commit.value ? this.executedValues.get(commit.digest) : undefined;
    const ledger =
      executed && equalBytes(executed.value.previous_ledger_hash ?? new Uint8Array(0), tip.hash!)
        ? await ledgers.commit(executed, decision)
        : await ledgers.close(decidedProposal(commit.value, tip), "decided", decision);
    this.afterLedger();
    this.parts.phases?.stored(commit.seq);
    this.parts.log.debug("closed ledger", {
      seq: Number(ledger.header.seq),
      view: commit.view,
      txs: ledger.included.length,
    });
    this.watchCensorship(commit.view, { included: ledger.included.length, full: ledger.full });
    this.handle(this.replica.executed(commit.seq, toHex(ledger.header.hash!), this.now()));
  }

  /**
   * As the primary: proposes the next ledger when it is this replica's turn and one is due:
   * close_interval_ms after the last close while transactions wait (rechecked once per interval), right
   * after it while a backlog lasts, empty_close_interval_ms without transactions.
   */
  private considerProposing(): void {
    if (this.proposing || this.ledgerSync.blocksProposals) return;
    const tip = this.parts.ledgers.lastHeader.seq!;
    if (this.replica.nextProposalSeq() !== Number(tip) + 1) return;
    const { consensus, txs } = this.parts;
    const now = this.now();
    const elapsed = now - this.lastCloseWall;
    // A new network closes ledger 2 at once, so that `chainsim up` sees the validators agree without waiting.
    const emptyDue = elapsed >= consensus.empty_close_interval_ms || tip === 1n;
    // A backlog (the last proposal was full) closes ledgers back to back: close_interval_ms only batches a trickle.
    const readyCheckDue = txs.pool.size > 0 && (elapsed >= consensus.close_interval_ms || this.backlog) && now >= this.nextReadyCheck;
    if (!emptyDue && !readyCheckDue) return;
    this.proposing = true;
    this.enqueue(async () => {
      try {
        await this.propose(emptyDue);
      } finally {
        this.proposing = false;
      }
    });
  }

  private async propose(emptyDue: boolean): Promise<void> {
    const { ledgers, txs, consensus } = this.parts;
    const tip = ledgers.lastHeader;
    if (this.replica.nextProposalSeq() !== Number(tip.seq) + 1) return;
    const limit = this.proposalSize.limit;
    const candidates = this.parts.censoring?.() ? [] : await txs.nextProposal(limit);
    this.backlog = candidates.length >= limit;
    if (candidates.length === 0 && !emptyDue) {
      this.nextReadyCheck = this.now() + consensus.close_interval_ms;
      return;
    }
    const previousClose = tip.close_time ?? 0n;
    const wallMicros = BigInt(this.now()) * 1000n;
    const closeTime = wallMicros > previousClose ? wallMicros : previousClose + 1n;
    const previousProof = tip.seq! > 1n ? codecs.PbftCommitProof.encode((await ledgers.ledgers.decision(tip.seq!))?.proof ?? {}) : undefined;
    const started = this.clock.elapsed();
    const executed = await ledgers.execute({ closeTime, proposer: this.parts.self, txs: candidates, previousProof }, "propose");
    this.proposalSize.record(executed.included.length + executed.refused.length, this.clock.elapsed() - started);
    if (executed.full) this.backlog = true;
    txs.dropRefused(executed.refused);
    if (executed.included.length === 0 && !emptyDue) {
      this.nextReadyCheck = this.now() + consensus.close_interval_ms;
      return;
    }
    const value = codecs.ConsensusValue.encode(executed.value);
    this.executedValues.set(valueDigest(value), executed);
    this.parts.phases?.prePrepared(Number(tip.seq) + 1);
    this.handle(this.replica.propose(value, this.now()));
  }

  private afterSynced(ledger: ExecutedLedger): void {
    this.afterLedger();
    this.handle(this.replica.synced(Number(ledger.header.seq), toHex(ledger.header.hash!), this.now()));
  }

  /** After a decided ledger: whether its primary left out a transaction it had room for, once too often. */
  private watchCensorship(view: number, closed: ClosedLedger): void {
    void this.parts.txs.overdue(this.censorshipPatienceMs).then((overdue) => {
      if (this.stopped) return;
      const suspicion = this.censorship.ledgerClosed(view, closed, overdue, this.now());
      if (suspicion) this.handle(this.replica.suspectPrimary(suspicion, this.now()));
      else if (!overdue) this.handle(this.replica.trustPrimary(this.now()));
    });
  }

  /** A new tip: values executed on the old one are stale, and waiting checks may be due. */
  private afterLedger(): void {
    this.executedValues.clear();
    this.lastCloseWall = this.now();
    for (const check of this.waitingChecks.splice(0)) this.enqueue(check);
  }
}

/**
 * The log level of a replica's event (docs/operations.md, "Logs"): broken invariants are errors, view
 * changes and refused messages warnings, their ends news, per-checkpoint progress noise.
 */
function eventLevel(event: string): LogLevel {
  if (/^(SAFETY|our state)/.test(event)) return "error";
  if (event.startsWith("stable checkpoint")) return "debug";
  if (/^(entered view|trusting|synced to)/.test(event)) return "info";
  return "warn";
}
