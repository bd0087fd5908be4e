import type { CommitProof } from "../../src/index.js";
import { sha256Hex } from "./crypto.js";

/** A value a replica handed to its node (a commit), or one its node fetched by state transfer. */
export interface Decision {
  node: number;
  seq: number;
  digest: string;
  value: Uint8Array | null;
  /** The COMMITs that prove it. */
  proof?: CommitProof;
}

/**
 * A safety or liveness property watched over a whole run, against every replica (Lodestar-style
 * assertion objects). Each collects violations instead of throwing, so a test can also expect them.
 */
export interface Assertion {
  readonly name: string;
  readonly violations: string[];
  onPropose?(digest: string): void;
  /** Every commit in an Output, in the order the replica gave them. */
  onCommit?(decision: Decision): void;
  /** Ledgers a node took from a peer by state transfer. */
  onSynced?(decision: Decision): void;
  /** The replica of `node` restarted or caught up: its next commit must be for `seq`. */
  onExpect?(node: number, seq: number): void;
  /** Every event a replica reported. */
  onEvent?(node: number, event: string): void;
}

/** No two different values decided for one seq, across all replicas, ever. */
export class Agreement implements Assertion {
  readonly name = "agreement";
  readonly violations: string[] = [];
  private readonly decided = new Map<number, Decision>();

  onCommit(d: Decision): void {
    const first = this.decided.get(d.seq);
    if (!first) this.decided.set(d.seq, d);
    else if (first.digest !== d.digest) {
      this.violations.push(`seq ${d.seq}: node ${first.node} decided ${first.digest.slice(0, 8) || "null"}, node ${d.node} ${d.digest.slice(0, 8) || "null"}`);
    }
  }

  onSynced(d: Decision): void {
    this.onCommit(d);
  }
}

/** Only proposed values (or null requests) are decided, and the value matches its digest. */
export class Validity implements Assertion {
  readonly name = "validity";
  readonly violations: string[] = [];
  private readonly proposed = new Set<string>();

  onPropose(digest: string): void {
    this.proposed.add(digest);
  }

  onCommit(d: Decision): void {
    const ok = d.value === null ? d.digest === "" : this.proposed.has(d.digest) && sha256Hex(d.value) === d.digest && !new TextDecoder().decode(d.value).startsWith("bad/");
    if (!ok) this.violations.push(`node ${d.node} seq ${d.seq}: ${d.digest.slice(0, 8) || "null"} was never proposed`);
  }
}

/** Each replica hands out commits in seq order, each once, without gaps. */
export class InOrder implements Assertion {
  readonly name = "inOrder";
  readonly violations: string[] = [];
  private readonly next = new Map<number, number>();

  onExpect(node: number, seq: number): void {
    this.next.set(node, Math.max(seq, this.next.get(node) ?? 1));
  }

  onCommit(d: Decision): void {
    const expected = this.next.get(d.node) ?? 1;
    if (d.seq !== expected) this.violations.push(`node ${d.node} got seq ${d.seq}, expected ${expected}`);
    this.next.set(d.node, Math.max(expected, d.seq + 1));
  }
}

/** After the network heals, every live replica's ledger grows by `k` within the run's bound. */
export class Liveness implements Assertion {
  readonly name = "liveness";
  readonly violations: string[] = [];
  private start: number[] = [];

  constructor(private readonly k: number) {}

  mark(heights: number[]): void {
    this.start = [...heights];
  }

  satisfied(heights: number[], live: boolean[]): boolean {
    return heights.every((h, i) => !live[i] || h >= this.start[i] + this.k);
  }

  finish(heights: number[], live: boolean[], boundMs: number): void {
    heights.forEach((h, i) => {
      if (live[i] && h < this.start[i] + this.k) this.violations.push(`node ${i} went from ${this.start[i]} to ${h} in ${boundMs} ms after healing`);
    });
  }
}

/** A replica noticing a conflict it cannot resolve (an event starting "SAFETY") is a failure too: it stalls. */
export class NoSafetyEvents implements Assertion {
  readonly name = "safetyEvents";
  readonly violations: string[] = [];

  onEvent(node: number, event: string): void {
    if (event.startsWith("SAFETY")) this.violations.push(`node ${node}: ${event}`);
  }
}
