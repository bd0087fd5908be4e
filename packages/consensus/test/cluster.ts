import { codecs } from "@chainsim/protocol";
import { Replica, type Commit, type Output, type ReplicaConfig, type SignedMessage } from "../src/index.js";
import { ed25519Keys, sha256Hex } from "./sim/crypto.js";

export interface Envelope { from: number; to: number; message: SignedMessage; kind: string }

/** The kind of a wire message ("pre_prepare", "prepare", "commit", "checkpoint", "view_change", "new_view"). */
export function kindOf(message: SignedMessage): string {
  return Object.keys(codecs.PbftMessage.decode(message.message!))[0];
}

export const utf8 = (text: string) => new TextEncoder().encode(text);

/**
 * Replicas with real Ed25519 keys and a hand-driven network for step-by-step protocol tests: messages
 * wait in `queue` until delivered (or dropped), value checks pass unless told otherwise, and commits
 * execute at once with state digest sha256("state/<seq>/<digest>").
 */
export class Cluster {
  readonly replicas: Replica[];
  readonly configs: ReplicaConfig[];
  readonly keys;
  readonly commits: Commit[][];
  readonly outputs: Output[][];
  queue: Envelope[] = [];
  now = 0;
  /** Replicas whose value checks fail. */
  rejectValues = new Set<number>();

  /** `idle`: no requests wait, so no view timer runs until a replica sees work owed. */
  constructor(n: number, options: Partial<Pick<ReplicaConfig, "ckpInterval" | "viewTimeoutMs">> & { idle?: boolean } = {}) {
    this.keys = ed25519Keys(n);
    const validators = Array.from({ length: n }, (_, i) => `validator-${i}`);
    const { idle, ...settings } = options;
    this.configs = validators.map((_, i) => ({ validators, self: i, ckpInterval: 10, viewTimeoutMs: 1000, crypto: this.keys.crypto(i), ...settings }));
    this.replicas = this.configs.map((config) => new Replica(config));
    this.commits = validators.map(() => []);
    this.outputs = validators.map(() => []);
    // Requests wait from the start: every replica expects the primary to make progress (view timers run).
    if (!idle) this.replicas.forEach((replica, i) => this.take(i, replica.expectProgress(0)));
  }

  /** Carries out an Output of replica i: queue its messages, answer value checks, execute its commits. */
  take(i: number, out: Output): Output {
    this.outputs[i].push(out);
    for (const { to, message } of out.send) {
      const targets = to === "all" ? this.replicas.map((_, j) => j).filter((j) => j !== i) : [to];
      for (const j of targets) this.queue.push({ from: i, to: j, message, kind: kindOf(message) });
    }
    for (const v of out.validate) this.take(i, this.replicas[i].valueChecked(v.view, v.seq, v.digest, !this.rejectValues.has(i), this.now));
    for (const commit of out.commits) {
      this.commits[i].push(commit);
      this.take(i, this.replicas[i].executed(commit.seq, sha256Hex(`state/${commit.seq}/${commit.digest}`), this.now));
    }
    return out;
  }

  propose(i: number, text: string): Output {
    return this.take(i, this.replicas[i].propose(utf8(text), this.now));
  }

  /** Delivers queued messages (and what they cause) until none is left; `keep` false drops a message. */
  deliver(keep: (e: Envelope) => boolean = () => true): void {
    while (this.queue.length > 0) {
      const e = this.queue.shift()!;
      if (keep(e)) this.take(e.to, this.replicas[e.to].receive(e.message, this.now));
    }
  }

  tick(i: number, nowMs: number): Output {
    this.now = Math.max(this.now, nowMs);
    return this.take(i, this.replicas[i].tick(nowMs));
  }

  sent(i: number, kind: string): number {
    return this.outputs[i].flatMap((o) => o.send).filter((s) => kindOf(s.message) === kind).length;
  }
}
