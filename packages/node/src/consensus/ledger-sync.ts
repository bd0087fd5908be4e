import { verifyCommitProof, type Verifier } from "@chainsim/consensus";
import { codecs, type LedgerDecision } from "@chainsim/protocol";
import type { ExecutedLedger } from "../execution/executor.js";
import type { LedgerManager } from "../ledger/ledger-manager.js";
import type { PeerNetwork } from "../p2p/index.js";
import { decidedProposal, decisionDigest } from "./decided-values.js";

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
  const { decisions = [] } = codecs.SyncResponse.decode(answer);
  let applied = 0;
  for (const decision of decisions) {
    const seq = ledgers.lastHeader.seq! + 1n;
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
/** A peer this many ledgers ahead is synced from at once; one ledger ahead only after SYNC_LAG_MS (a commit in flight). */
const SYNC_GAP = 2n;
const SYNC_LAG_MS = 3_000;

export interface LedgerSyncParts {
  ledgers: LedgerManager;
  network: PeerNetwork;
  verifier: Verifier;
  log: (line: string) => void;
  now: () => number;
  /** Runs ledger-moving work in the consensus service's order. */
  enqueue: (task: () => Promise<void>) => void;
  /** Each ledger applied from a peer, once stored. */
  onSynced: (ledger: ExecutedLedger) => void;
}

/**
 * State sync for one validator: announces its last ledger on the `status` channel once a second, keeps the
 * tips peers announce (`chain_max_ledger_seq`), answers peers' requests for decisions, and fetches decided
 * ledgers from a peer that is ahead (SYNC_GAP, or one ledger for SYNC_LAG_MS) or when the replica asks.
 */
export class LedgerSync {
  private readonly peerTips = new Map<string, { seq: bigint; since: number }>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  /** True while ledgers are being fetched and applied: the primary does not propose meanwhile. */
  syncing = false;

  constructor(private readonly parts: LedgerSyncParts) {}

  start(): void {
    this.running = true;
    this.parts.network.onRequest(async (_from, payload) => answerSyncRequest(this.parts.ledgers, payload));
    this.timer = setInterval(() => this.announceTip(), STATUS_INTERVAL_MS);
    this.announceTip();
  }

  stop(): void {
    this.running = false;
    clearInterval(this.timer);
  }

  /** The highest ledger this validator knows of: its own or one a peer announced. */
  get networkTip(): bigint {
    let max = this.parts.ledgers.lastHeader.seq!;
    for (const { seq } of this.peerTips.values()) if (seq > max) max = seq;
    return max;
  }

  onPeerStatus(from: string, payload: Uint8Array): void {
    let seq: bigint;
    try {
      seq = codecs.ChainStatus.decode(payload).ledger_seq ?? 0n;
    } catch {
      return;
    }
    if (this.peerTips.get(from)?.seq !== seq) this.peerTips.set(from, { seq, since: this.parts.now() });
  }

  /** Syncs from the peers that announced a later ledger, the furthest first. */
  considerSync(): void {
    if (this.syncing) return;
    const tip = this.parts.ledgers.lastHeader.seq!;
    const now = this.parts.now();
    const ahead = [...this.peerTips].filter(([, t]) => t.seq >= tip + SYNC_GAP || (t.seq > tip && now - t.since >= SYNC_LAG_MS));
    if (ahead.length > 0) this.sync(ahead.sort((a, b) => Number(b[1].seq - a[1].seq)).map(([address]) => address));
  }

  /** Fetches decided ledgers from `peers` (the first that answers) until none has more. */
  sync(peers: string[]): void {
    if (this.syncing || peers.length === 0) return;
    this.syncing = true;
    void (async () => {
      try {
        for (const peer of peers) while (this.running && (await this.fetchFrom(peer)) > 0);
      } finally {
        this.syncing = false;
      }
    })();
  }

  /** One request to `peer` and the ledgers it answered applied; how many were. */
  private async fetchFrom(peer: string): Promise<number> {
    const { ledgers, log } = this.parts;
    const from = ledgers.lastHeader.seq! + 1n;
    let answer: Uint8Array;
    try {
      answer = await this.parts.network.request(peer, syncRequest(from), SYNC_REQUEST_TIMEOUT_MS);
    } catch (error) {
      log(`sync: ${peer} did not answer for ledgers from ${from}: ${(error as Error).message}`);
      return 0;
    }
    const result = await new Promise<{ applied: number; refused?: string }>((resolve, reject) => {
      this.parts.enqueue(() => applyDecisions(ledgers, this.parts.verifier, answer, this.parts.onSynced).then(resolve, reject));
    });
    if (result.applied > 0) log(`sync: applied ${result.applied} ledgers from ${peer}, now at ${ledgers.lastHeader.seq}`);
    if (result.refused) log(`sync: ${peer}: ${result.refused}`);
    return result.applied;
  }

  private announceTip(): void {
    const tip = this.parts.ledgers.lastHeader;
    this.parts.network.broadcast(codecs.ChainStatus.encode({ ledger_seq: tip.seq, ledger_hash: tip.hash }), "status");
  }
}
