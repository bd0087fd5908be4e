import { verifyCommitProof, type Verifier } from "@chainsim/consensus";
import { codecs, type LedgerDecision } from "@chainsim/protocol";
import type { ExecutedLedger } from "../execution/executor.js";
import type { LedgerManager } from "../ledger/ledger-manager.js";
import type { PeerNetwork } from "../p2p/index.js";
import { decidedProposal, decisionDigest } from "./decided-values.js";
import type { NodeLog } from "../logging/node-log.js";
import type { Clock, ClockTimer } from "../clock.js";

/** Ledgers one sync request asks for, and the bytes an answer may hold (a few large ledgers fill it). */
export const SYNC_BATCH_LEDGERS = 100;
const SYNC_ANSWER_BYTES = 4 * 1024 * 1024;

/** The answer to a peer's SyncRequest: this validator's decided ledgers from `from_seq` on. */
export async function answerSyncRequest(ledgers: LedgerManager, request: Uint8Array): Promise<Uint8Array> {
  const { from_seq = 0n, max_ledgers = SYNC_BATCH_LEDGERS } = codecs.SyncRequest.decode(request);
  const decisions: LedgerDecision[] = [];
  let bytes = 0;
  const last = ledgers.lastHeader.seq!;
  for (let seq = from_seq < 2n ? 2n : from_seq; seq <= last && decisions.length < Math.min(max_ledgers, SYNC_BATCH_LEDGERS); seq++) {
    const decision = await ledgers.ledgers.decision(seq);
    if (!decision) break;
    bytes += decision.value?.length ?? 0;
    if (decisions.length > 0 && bytes > SYNC_ANSWER_BYTES) break;
    decisions.push(decision);
  }
  return codecs.SyncResponse.encode({ decisions });
}

export function syncRequest(fromSeq: bigint): Uint8Array {
  return codecs.SyncRequest.encode({ from_seq: fromSeq, max_ledgers: SYNC_BATCH_LEDGERS });
}

/**
 * Applies decided ledgers fetched from a peer, in order from the tip: each commit proof is checked against
 * the validator set before its value is executed (as a commit would execute it), so a peer can delay a
 * sync but never make this validator accept a ledger the validators did not decide. Returns the ledgers
 * applied; stops at the first decision that does not follow or does not prove itself.
 */
export async function applyDecisions(
  ledgers: LedgerManager,
  verifier: Verifier,
  answer: Uint8Array,
  onApplied: (ledger: ExecutedLedger) => void,
): Promise<{ applied: number; refused?: string }> {
  let decisions: LedgerDecision[];
  try {
    decisions = codecs.SyncResponse.decode(answer).decisions ?? [];
  } catch (error) {
    return { applied: 0, refused: `the answer does not decode: ${(error as Error).message}` };
  }
  let applied = 0;
  for (const decision of decisions) {
    const seq = ledgers.lastHeader.seq! + 1n;
    // Ledgers closed here meanwhile (by this validator's own commits) are skipped, not held against the peer.
    if (decision.seq !== undefined && decision.seq < seq) continue;
    if (decision.seq !== seq) return { applied, refused: `the peer sent ledger ${decision.seq} where ${seq} was next` };
    if (!verifyCommitProof(verifier, Number(seq), decisionDigest(decision), decision.proof ?? {})) {
      return { applied, refused: `the commit proof of ledger ${seq} does not verify` };
    }
    const value = decision.value && decision.value.length > 0 ? decision.value : null;
    onApplied(await ledgers.close(decidedProposal(value, ledgers.lastHeader), "decided", decision));
    applied++;
  }
  return { applied };
}

/** How often each validator tells the others its last closed ledger. */
const STATUS_INTERVAL_MS = 1000;
const SYNC_REQUEST_TIMEOUT_MS = 10_000;
/** A request made only because a peer announced a later tip waits less: the peer may be lying. */
const UNEVIDENCED_REQUEST_TIMEOUT_MS = 3_000;
/** A peer this many ledgers ahead is synced from at once; one ledger ahead only after SYNC_LAG_MS (a commit in flight). */
const SYNC_GAP = 2n;
const SYNC_LAG_MS = 3_000;

export interface LedgerSyncParts {
  ledgers: LedgerManager;
  network: PeerNetwork;
  verifier: Verifier;
  log: NodeLog;
  clock: Clock;
  /** Runs ledger-moving work in the consensus service's order. */
  enqueue: (task: () => Promise<void>) => void;
  /** Each ledger applied from a peer, once stored. */
  onSynced: (ledger: ExecutedLedger) => void;
}

/** An announced tip not announced again within this is forgotten (the peer went away or stopped saying so). */
const TIP_TTL_MS = 3 * STATUS_INTERVAL_MS;
/** A peer that announced ledgers it then did not deliver is not believed for this long, doubling up to the max. */
const DISTRUST_MS = 10_000;
const MAX_DISTRUST_MS = 160_000;

/**
 * State sync for one validator: announces its last ledger on the `status` channel once a second, keeps the
 * tips peers announce (`chain_max_ledger_seq`), answers peers' requests for decisions, and fetches decided
 * ledgers from a peer that is ahead (SYNC_GAP, or one ledger for SYNC_LAG_MS) or when the replica asks.
 * An announcement is only a hint (docs/consensus.md, "State transfer"): it expires unless repeated, and a
 * peer that announced ledgers it does not deliver is not believed for a while.
 */
export class LedgerSync {
  private readonly peerTips = new Map<string, { seq: bigint; since: number; seenAt: number }>();
  private readonly distrusted = new Map<string, { until: number; forMs: number }>();
  private timer: ClockTimer | undefined;
  private running = false;
  /** True while ledgers are being fetched and applied. */
  syncing = false;
  /** The running sync was asked for by the replica, on evidence that a quorum is ahead. */
  private evidenced = false;
  /** The replica asked for a sync while one started on a peer's word ran. */
  private queued: string[] | undefined;

  constructor(private readonly parts: LedgerSyncParts) {}

  start(): void {
    this.running = true;
    this.parts.network.onRequest(async (_from, payload) => answerSyncRequest(this.parts.ledgers, payload));
    this.timer = this.parts.clock.setInterval(() => this.announceTip(), STATUS_INTERVAL_MS);
    this.announceTip();
  }

  stop(): void {
    this.running = false;
    this.parts.clock.clear(this.timer);
  }

  /** The highest ledger this validator knows of: its own or one a peer announced and is believed. */
  get networkTip(): bigint {
    let max = this.parts.ledgers.lastHeader.seq!;
    for (const [, { seq }] of this.believedTips()) if (seq > max) max = seq;
    return max;
  }

  /**
   * A primary waits for a sync the replica asked for (it is provably behind), not for one started on a
   * peer's word: a peer announcing a tip it never serves must not stop an honest primary from proposing.
   */
  get blocksProposals(): boolean {
    return this.syncing && this.evidenced;
  }

  onPeerStatus(from: string, payload: Uint8Array): void {
    let seq: bigint;
    try {
      seq = codecs.ChainStatus.decode(payload).ledger_seq ?? 0n;
    } catch {
      this.parts.network.penalize(from, "garbage");
      return;
    }
    const now = this.parts.clock.now();
    const held = this.peerTips.get(from);
    this.peerTips.set(from, { seq, since: held?.seq === seq ? held.since : now, seenAt: now });
  }

  /** Syncs from the peers that announced a later ledger, the furthest first. */
  considerSync(): void {
    if (this.syncing) return;
    const tip = this.parts.ledgers.lastHeader.seq!;
    const now = this.parts.clock.now();
    const ahead = this.believedTips().filter(([, t]) => t.seq >= tip + SYNC_GAP || (t.seq > tip && now - t.since >= SYNC_LAG_MS));
    if (ahead.length > 0) this.sync(ahead.sort((a, b) => Number(b[1].seq - a[1].seq)).map(([address]) => address), false);
  }

  /** Fetches decided ledgers from `peers` (the first that answers) until none has more. */
  sync(peers: string[], evidenced = true): void {
    if (peers.length === 0) return;
    if (this.syncing) {
      // The replica's request runs next, as soon as the request to a peer on its word ends.
      if (evidenced && !this.evidenced) this.queued = peers;
      return;
    }
    this.syncing = true;
    this.evidenced = evidenced;
    void (async () => {
      try {
        for (const peer of peers) while (this.running && !this.queued && (await this.fetchFrom(peer)) > 0);
      } finally {
        this.syncing = false;
        this.evidenced = false;
        const queued = this.queued;
        this.queued = undefined;
        if (queued && this.running) this.sync(queued, true);
      }
    })();
  }

  /** Tips announced recently by peers not caught announcing ledgers they did not deliver. */
  private believedTips(): [string, { seq: bigint; since: number; seenAt: number }][] {
    const now = this.parts.clock.now();
    return [...this.peerTips].filter(([peer, t]) => now - t.seenAt <= TIP_TTL_MS && !((this.distrusted.get(peer)?.until ?? 0) > now));
  }

  /** `peer` announced more than it delivered: disbelieve it for a while, longer each time. */
  private distrust(peer: string, why: string): void {
    const forMs = Math.min(MAX_DISTRUST_MS, (this.distrusted.get(peer)?.forMs ?? DISTRUST_MS / 2) * 2);
    this.distrusted.set(peer, { until: this.parts.clock.now() + forMs, forMs });
    this.parts.log.warn(`sync: not believing ${peer}'s announced tip for ${forMs / 1000} s: ${why}`);
  }

  /** One request to `peer` and the ledgers it answered applied; how many were. */
  private async fetchFrom(peer: string): Promise<number> {
    const { ledgers, log } = this.parts;
    const from = ledgers.lastHeader.seq! + 1n;
    let answer: Uint8Array;
    const announced = this.peerTips.get(peer)?.seq ?? 0n;
    try {
      answer = await this.parts.network.request(peer, syncRequest(from), this.evidenced ? SYNC_REQUEST_TIMEOUT_MS : UNEVIDENCED_REQUEST_TIMEOUT_MS);
    } catch (error) {
      log.warn(`sync: ${peer} did not answer for ledgers from ${from}: ${(error as Error).message}`);
      if (announced >= from) this.distrust(peer, "it did not answer");
      return 0;
    }
    let result: { applied: number; refused?: string };
    try {
      result = await new Promise((resolve, reject) => {
        this.parts.enqueue(() => applyDecisions(ledgers, this.parts.verifier, answer, this.parts.onSynced).then(resolve, reject));
      });
    } catch (error) {
      // The ledgers are decided (their commit proofs verified) but do not execute or store here: this
      // validator's own fault (another configuration, a full disk), never a reason to stop.
      log.error(`sync: a ledger decided by the validators, from ${peer}, does not execute or store here: ${(error as Error).message}; this validator cannot follow the network until that is fixed`);
      return 0;
    }
    if (result.applied > 0) {
      log(`sync: applied ${result.applied} ledgers from ${peer}, now at ${ledgers.lastHeader.seq}`);
      this.distrusted.delete(peer);
    } else if (result.refused || (announced >= from && ledgers.lastHeader.seq! < from)) {
      this.distrust(peer, result.refused ?? `it announced ledger ${announced} and sent none from ${from}`);
    }
    if (result.refused) log.warn(`sync: ${peer}: ${result.refused}`);
    return result.applied;
  }

  private announceTip(): void {
    const tip = this.parts.ledgers.lastHeader;
    this.parts.network.broadcast(codecs.ChainStatus.encode({ ledger_seq: tip.seq, ledger_hash: tip.hash }), "status");
  }
}
