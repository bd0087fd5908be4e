import { open, sign, type Body, type ConsensusCrypto, type SignedMessage, type Verifier } from "../../src/index.js";
import { sha256Hex } from "./crypto.js";
import type { Prng } from "./prng.js";

/** What a Byzantine replica of the simulation does to the messages it sends (each with its own key). */
export type ByzantineBehavior =
  /** PREPAREs and COMMITs for another digest than the one pre-prepared, to some replicas. */
  | "conflicting-votes"
  /** Votes for seqs far outside the window. */
  | "out-of-window"
  /** An old message instead of (or besides) the current one. */
  | "replay"
  /** Its VIEW-CHANGE claims a prepared certificate it does not have. */
  | "forged-view-change"
  /** As the new primary, a NEW-VIEW that drops or alters what the VIEW-CHANGEs carried. */
  | "bad-new-view"
  /** Votes that claim to come from another replica (signed with its own key). */
  | "impersonate"
  /** As a primary, a pre-prepare whose value is not the one its signed digest names. */
  | "mismatched-value"
  /** Pre-prepares of its own for seqs it is not the primary of, with plausible values. */
  | "fake-pre-prepares"
  /** Its VIEW-CHANGE claims a stable checkpoint far ahead, proven by its own CHECKPOINT alone. */
  | "forged-checkpoint-proof";

export const BYZANTINE_BEHAVIORS: ByzantineBehavior[] = [
  "conflicting-votes",
  "out-of-window",
  "replay",
  "forged-view-change",
  "bad-new-view",
  "impersonate",
  "mismatched-value",
  "fake-pre-prepares",
  "forged-checkpoint-proof",
];

/**
 * One Byzantine replica: its replica code runs honestly (so it knows what honest messages look like), and
 * each message it sends to each peer may be replaced by a hostile one, validly signed with its own key.
 */
export class ByzantineReplica {
  private readonly history: SignedMessage[] = [];

  constructor(
    readonly replica: number,
    private readonly behaviors: ByzantineBehavior[],
    private readonly crypto: ConsensusCrypto,
    private readonly verifier: Verifier,
    private readonly random: Prng,
  ) {}

  /** The messages that go to `to` instead of `message`. */
  tamper(to: number, message: SignedMessage): SignedMessage[] {
    const signed = open(this.verifier, message);
    if (!signed) return [message];
    this.history.push(message);
    if (this.history.length > 200) this.history.shift();
    const has = (b: ByzantineBehavior) => this.behaviors.includes(b);
    const out: SignedMessage[] = [];
    let body: Body = signed.body;
    if ((body.kind === "prepare" || body.kind === "commit") && has("conflicting-votes") && (to + body.seq) % 2 === 0) {
      body = { ...body, digest: sha256Hex(`conflict/${body.seq}/${body.view}/${to}`) };
    }
    if ((body.kind === "prepare" || body.kind === "commit") && has("out-of-window") && this.random.chance(0.2)) {
      out.push(this.sign({ ...body, seq: body.seq + 1000 }));
    }
    if ((body.kind === "prepare" || body.kind === "commit") && has("impersonate")) {
      // Votes of every other replica for a value nobody proposed, all signed with this replica's key.
      const fake = sha256Hex(`impersonated/${body.seq}`);
      for (let r = 0; r < this.verifier.validators.length; r++) if (r !== this.replica) out.push(this.sign({ ...body, replica: r, digest: fake }));
    }
    if (body.kind === "prepare" && has("fake-pre-prepares") && this.random.chance(0.5)) {
      const value = new TextEncoder().encode(`value/fake/${this.replica}/${body.seq + 1}`);
      out.push(this.sign({ kind: "pre-prepare", view: body.view, seq: body.seq + 1, replica: this.replica, value, digest: sha256Hex(value) }));
    }
    if (body.kind === "pre-prepare" && has("mismatched-value") && body.value && to % 2 === 1) {
      // The signature covers the digest only: another value beside it needs no new signature.
      return [{ ...message, value: new TextEncoder().encode(`value/mismatched/${body.seq}`) }];
    }
    if (body.kind === "view-change" && has("forged-checkpoint-proof")) {
      const stableSeq = body.stableSeq + 4 * 8;
      const stableDigest = sha256Hex(`forged-state/${stableSeq}`);
      const own = this.sign({ kind: "checkpoint", seq: stableSeq, stateDigest: stableDigest, replica: this.replica });
      body = { ...body, stableSeq, stableDigest, checkpointProof: [open(this.verifier, own) as never], prepared: [] };
    }
    if (body.kind === "view-change" && has("forged-view-change") && body.prepared.length > 0) {
      // A certificate with its PREPAREs cut to one: not a certificate, whatever else the message holds.
      const [first, ...rest] = body.prepared;
      body = { ...body, prepared: [{ prePrepare: first.prePrepare, prepares: first.prepares.slice(0, 1) }, ...rest] };
    }
    if (body.kind === "new-view" && has("bad-new-view") && body.prePrepares.length > 0) {
      const prePrepares = this.random.chance(0.5)
        ? body.prePrepares.slice(0, -1)
        : body.prePrepares.map((pp, i) => (i === 0 ? sign(this.crypto, { ...pp.body, digest: "", value: null }) : pp));
      body = { ...body, prePrepares };
    }
    out.push(body === signed.body ? message : this.sign(body));
    if (has("replay") && this.random.chance(0.3)) out.push(this.history[this.random.int(0, this.history.length - 1)]!);
    return out;
  }

  private sign(body: Body): SignedMessage {
    return sign(this.crypto, body).wire;
  }
}
