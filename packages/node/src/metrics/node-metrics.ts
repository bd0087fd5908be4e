import type { Request, Response } from "express";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { ContractRuntime } from "@chainsim/contracts";
import { NewestMap } from "../collections.js";
import type { ConsensusPhases } from "../consensus/consensus-service.js";
import type { FaultPlane } from "../faults/index.js";
import type { LedgerManager } from "../ledger/ledger-manager.js";
import type { PeerNetwork } from "../p2p/index.js";
import { DEFAULT_POOL_LIMITS } from "../pool/tx-pool.js";
import type { TxService } from "../pool/tx-service.js";
import { MeteredPeerNetwork } from "./metered-peer-network.js";
import { ContractCounters, MeteredRuntime, type RunPurpose } from "./metered-runtime.js";

/** The label of every request no route answered: a client cannot make up label values (docs/operations.md, "Metrics"). */
export const UNMATCHED_ROUTE = "unmatched";
/** Seconds: from a few ms (a quiet local network) to a minute (view changes, a backlog). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Ledgers whose consensus phases are being timed: more are never in flight at once. */
const TIMED_SEQS = 64;

/**
 * The Prometheus metrics of one validator (docs/operations.md, "Metrics"), in a registry of its own: several
 * nodes may run in one process (tests), so the global default registry is never used. The node's services
 * feed it through the watch* methods and the wrappers it hands out; /metrics renders `registry`.
 */
export class NodeMetrics {
  readonly registry = new Registry();
  private readonly httpRequests = new Counter({ name: "chainsim_http_requests_total", help: "HTTP requests answered, by method, route pattern and status code", labelNames: ["method", "route", "status"] as const, registers: [this.registry] });
  private readonly commitLatency = new Histogram({ name: "chainsim_commit_latency_seconds", help: "From a transaction's admission to this validator's pool to the commit of the ledger that includes it", buckets: LATENCY_BUCKETS, registers: [this.registry] });
  private readonly phaseSeconds = new Histogram({ name: "chainsim_consensus_phase_seconds", help: "Durations of the consensus phases this validator observes, by phase", labelNames: ["phase"] as const, buckets: LATENCY_BUCKETS, registers: [this.registry] });
  private readonly contractCounters = new ContractCounters(this.registry);
  /** performance.now() at admission, by transaction hash; bounded like the pool. */
  private readonly admittedAt: NewestMap<string, number>;

  /** `poolTransactions`: the validator's limits.pool_transactions, which bounds the admissions it times. */
  constructor(poolTransactions = DEFAULT_POOL_LIMITS.total) {
    this.admittedAt = new NewestMap(poolTransactions);
    collectDefaultMetrics({ register: this.registry });
  }

  /** Ledger height, pool size and commit latency. */
  watchLedgers(ledgers: LedgerManager, txs: TxService): void {
    new Gauge({ name: "chainsim_ledger_height", help: "Sequence number of the last closed ledger", registers: [this.registry], collect() { this.set(Number(ledgers.lastHeader.seq)); } });
    new Gauge({ name: "chainsim_pool_transactions", help: "Transactions waiting in the pool", registers: [this.registry], collect() { this.set(txs.pool.size); } });
    txs.onAdmitted((tx) => this.admittedAt.set(tx.hashHex, performance.now()));
    ledgers.onClosed((ledger) => {
      const now = performance.now();
      for (const tx of ledger.included) {
        const admitted = this.admittedAt.get(tx.hashHex);
        if (admitted === undefined) continue; // never pooled here: the ledger came by sync, or before a restart
        this.admittedAt.delete(tx.hashHex);
        this.commitLatency.observe((now - admitted) / 1000);
      }
    });
  }

  /** The view and the view changes: views only grow, so each read counts the views passed since the last. */
  watchConsensus(consensus: { status(): { view: number } }): void {
    let lastView = consensus.status().view;
    new Gauge({ name: "chainsim_consensus_view", help: "The PBFT view this validator is in", registers: [this.registry], collect() { this.set(consensus.status().view); } });
    new Counter({
      name: "chainsim_consensus_view_changes_total",
      help: "Views this validator moved past since it started",
      registers: [this.registry],
      collect() {
        const view = consensus.status().view;
        if (view > lastView) this.inc(view - lastView);
        lastView = view;
      },
    });
  }

  /** Active message fault rules (only on nodes with debug.fault_injection). */
  watchFaults(plane: FaultPlane): void {
    new Gauge({ name: "chainsim_fault_rules_active", help: "Message fault rules in force on this validator", registers: [this.registry], collect() { this.set(plane.active().length); } });
  }

  /** Times the phases of each ledger's agreement, for the ConsensusService. */
  readonly phases: ConsensusPhases = consensusPhases((phase, ms) => this.phaseSeconds.observe({ phase }, ms / 1000));

  /** The network, counting messages and bytes by direction, channel and peer (`peers`: the configured validators). */
  peerNetwork(inner: PeerNetwork, peers: string[]): PeerNetwork {
    return new MeteredPeerNetwork(inner, peers, this.registry);
  }

  /** The runtime, counting contract runs, steps and failures under `purpose`. */
  contractRuntime(inner: ContractRuntime, purpose: RunPurpose): ContractRuntime {
    return new MeteredRuntime(inner, purpose, this.contractCounters);
  }

  /** Counts the request when it is answered, under its route's pattern (express sets req.route on a match). */
  trackRequest(req: Request, res: Response): void {
    res.once("finish", () => {
      const route: unknown = req.route?.path;
      this.httpRequests.inc({ method: req.method, route: typeof route === "string" ? route : UNMATCHED_ROUTE, status: String(res.statusCode) });
    });
  }
}

/**
 * Phases by seq: `pre_prepare_to_decided` (the primary proposed, or a backup got the pre-prepare, to the
 * decision), `check` (a backup's check of the proposed value), `decided_to_stored` (executing and storing).
 */
function consensusPhases(observe: (phase: string, ms: number) => void): ConsensusPhases {
  const prePrepared = new NewestMap<number, number>(TIMED_SEQS);
  const decided = new NewestMap<number, number>(TIMED_SEQS);
  const since = (starts: Map<number, number>, seq: number, phase: string) => {
    const start = starts.get(seq);
    if (start !== undefined) observe(phase, performance.now() - start);
  };
  return {
    prePrepared: (seq) => {
      if (!prePrepared.has(seq)) prePrepared.set(seq, performance.now());
    },
    checked: (seq) => since(prePrepared, seq, "check"),
    decided: (seq) => {
      since(prePrepared, seq, "pre_prepare_to_decided");
      prePrepared.delete(seq);
      decided.set(seq, performance.now());
    },
    stored: (seq) => {
      since(decided, seq, "decided_to_stored");
      decided.delete(seq);
    },
  };
}
