import { codecs, toHex } from "@chainsim/protocol";
import type { Scheduler } from "./scheduler.js";

export interface SimulationFailure {
  invariant: string;
  detail: string;
  /** Virtual ms since the run began, when the failure was seen. */
  at_ms?: number;
}

/**
 * The invariants checked at every ledger a validator stores, while the run goes on (docs/simulation.md,
 * "Invariants"): agreement (no two validators ever store different ledgers at one seq), each validator's
 * hash chain and its conservation of coins. The first violation of each is traced where it happened.
 */
export class CommitWatch {
  private readonly bySeq = new Map<number, { hash: string; node: string }>();
  private readonly tips = new Map<string, { seq: number; hash: string }>();
  readonly failures: SimulationFailure[] = [];

  constructor(private readonly scheduler: Scheduler) {}

  /** `node` stored ledger `seq` (its header's hash and previous_hash) holding `txs` transactions. */
  committed(node: string, seq: number, hash: Uint8Array, previousHash: Uint8Array, txs: number): void {
    const hex = toHex(hash);
    this.scheduler.trace({ kind: "commit", node, seq, hash: hex.slice(0, 16), txs });
    const first = this.bySeq.get(seq);
    if (!first) this.bySeq.set(seq, { hash: hex, node });
    else if (first.hash !== hex) this.violation("agreement", node, `ledger ${seq}: ${first.node} stored ${first.hash.slice(0, 12)}, ${node} stored ${hex.slice(0, 12)}`);
    const tip = this.tips.get(node);
    if (tip && tip.seq === seq - 1 && tip.hash !== toHex(previousHash)) {
      this.violation("hash_chain", node, `${node}'s ledger ${seq} names ${toHex(previousHash).slice(0, 12)} as previous, not its ledger ${seq - 1} (${tip.hash.slice(0, 12)})`);
    }
    this.tips.set(node, { seq, hash: hex });
  }

  /**
   * Conservation: `node`'s accounts after ledger `seq` hold `total` coins together. Fees move to the
   * proposer and contracts' balances are accounts too, so every ledger keeps the genesis balance.
   */
  balances(node: string, seq: number, total: bigint, genesis: bigint): void {
    if (total !== genesis) this.violation("conservation", node, `${node}'s accounts hold ${total} after ledger ${seq}, not the genesis balance ${genesis}`);
  }

  private violation(invariant: string, node: string, detail: string): void {
    if (this.failures.some((f) => f.invariant === invariant)) return;
    this.failures.push({ invariant, detail, at_ms: this.scheduler.elapsed });
    this.scheduler.trace({ kind: "violation", node, invariant, detail });
  }
}

/** The PBFT messages a correct replica signs at most once per view and seq, whatever happens to it. */
const ONCE_PER_SLOT = ["pre_prepare", "prepare", "commit"] as const;

/**
 * Conduct (docs/simulation.md, "Invariants"): an honest validator never signs two different PRE-PREPAREs,
 * PREPAREs or COMMITs for one view and seq, not even across a crash: that is what persisting a vote before
 * sending it guarantees. Checked on every consensus message a validator sends; validators that have been
 * Byzantine during the run are exempt.
 */
export class ConductWatch {
  private readonly signed = new Map<string, string>();
  private readonly byzantine = new Set<string>();
  private reported = false;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly failures: SimulationFailure[],
  ) {}

  /**
   * `node` lost its disk (the wipe fault): it remembers no vote, so what it signed before does not bind it.
   * A wiped validator is amnesic, which PBFT counts as faulty; it must still never fork the others.
   */
  forget(node: string): void {
    for (const slot of this.signed.keys()) if (slot.startsWith(`${node} `)) this.signed.delete(slot);
  }

  /** `node` is (or was) Byzantine: what it signs proves nothing. */
  exempt(node: string): void {
    this.byzantine.add(node);
  }

  sent(node: string, payload: Uint8Array): void {
    if (this.byzantine.has(node) || this.reported) return;
    let message;
    try {
      message = codecs.PbftMessage.decode(codecs.PbftSignedMessage.decode(payload).message ?? new Uint8Array());
    } catch {
      return;
    }
    for (const kind of ONCE_PER_SLOT) {
      const body = message[kind];
      if (!body) continue;
      const slot = `${node} ${kind} ${body.view ?? 0}/${body.seq ?? 0}`;
      const digest = toHex(body.value_digest ?? new Uint8Array());
      const before = this.signed.get(slot);
      if (before === undefined) this.signed.set(slot, digest);
      else if (before !== digest) {
        this.reported = true;
        const detail = `${node} signed two ${kind.replace("_", "-").toUpperCase()}s for view/seq ${body.view ?? 0}/${body.seq ?? 0}: ${before.slice(0, 12)} and ${digest.slice(0, 12)}`;
        this.failures.push({ invariant: "conduct", detail, at_ms: this.scheduler.elapsed });
        this.scheduler.trace({ kind: "violation", node, invariant: "conduct", detail });
      }
    }
  }
}
