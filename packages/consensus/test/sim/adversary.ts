import { open, sign, type Body, type CommitProof, type ConsensusCrypto, type PrePrepare, type SignedMessage, type Verifier, type ViewChange, type Vote } from "../../src/index.js";
import type { NewView, Signed } from "../../src/messages.js";
import { planNewView } from "../../src/view-change.js";
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
  | "forged-checkpoint-proof"
  /**
   * With an accomplice (a second Byzantine replica lending its key): its VIEW-CHANGE carries a certificate
   * for a value nobody proposed, pre-prepared by whichever of the two was a recent view's primary, with the
   * other's PREPARE alone, that PREPARE repeated, or the PREPAREs honest replicas sent for another value.
   */
  | "forged-certificate"
  /** As a primary, a second pre-prepare for the same view and seq, with another valid value, to every other replica. */
  | "double-pre-prepare"
  /** Its VIEW-CHANGE's certificates re-signed as if it had pre-prepared them, where it was not the primary. */
  | "misattributed-certificate"
  /** As a state-transfer source, ledgers whose commit proofs mix views (its own COMMIT of a later view in each). */
  | "mixed-view-proofs"
  /** As a new primary, a NEW-VIEW justified by its own VIEW-CHANGE (prepared nothing) counted `quorum` times. */
  | "packed-new-view"
  /** As a new primary, a NEW-VIEW justified by a quorum of older VIEW-CHANGEs it saw (before later values were prepared). */
  | "stale-new-view"
  /** A valid VIEW-CHANGE for the next view with each view's first vote: alone it must move nobody. */
  | "view-change-storm"
  /** Its VIEW-CHANGEs ask for a view far ahead (one it leads): a replica joining f+1 others must not follow it there. */
  | "inflated-view-change"
  /** While the network idles, PREPAREs of the current view for the next seq, which nobody proposed. */
  | "phantom-votes"
  /**
   * As a new primary, no NEW-VIEW, only fresh pre-prepares of its view above the plan: replicas hold them
   * as early pre-prepares until the next view's primary sends its own for the same seqs.
   */
  | "withheld-new-view"
  /** With each vote, a pre-prepare for the next seq in a view far ahead that it leads: it must not crowd out the next view's. */
  | "future-pre-prepares";

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
  "forged-certificate",
  "double-pre-prepare",
  "misattributed-certificate",
  "mixed-view-proofs",
  "packed-new-view",
  "stale-new-view",
  "view-change-storm",
  "inflated-view-change",
  "phantom-votes",
  "withheld-new-view",
  "future-pre-prepares",
];

/**
 * One Byzantine replica: its replica code runs honestly (so it knows what honest messages look like), and
 * each message it sends to each peer may be replaced by a hostile one, validly signed with its own key.
 */
export class ByzantineReplica {
  private readonly history: SignedMessage[] = [];
  /** VIEW-CHANGEs it was given, per view then replica, for stale NEW-VIEWs. */
  private readonly viewChanges = new Map<number, Map<number, Signed<ViewChange>>>();
  /** Its own latest honest VIEW-CHANGE (a valid base for forged ones), and the "view/peer" pairs it stormed. */
  private ownViewChange?: ViewChange;
  private readonly stormed = new Set<string>();
  /** PREPAREs it received, by "view/seq". */
  private readonly prepares = new Map<string, Signed<Vote>[]>();

  constructor(
    readonly replica: number,
    private readonly behaviors: ByzantineBehavior[],
    private readonly crypto: ConsensusCrypto,
    private readonly verifier: Verifier,
    private readonly random: Prng,
    private readonly accomplice?: { replica: number; crypto: ConsensusCrypto },
    /** Told of each value it proposes as a primary besides the honest one (a valid proposal, however two-faced). */
    private readonly proposed?: (digest: string) => void,
  ) {}

  acts(behavior: ByzantineBehavior): boolean {
    return this.behaviors.includes(behavior);
  }

  /** A message delivered to this replica (its PREPAREs feed forged certificates). */
  observe(message: SignedMessage): void {
    const signed = open(this.verifier, message);
    if (signed?.body.kind === "view-change") {
      const held = this.viewChanges.get(signed.body.view) ?? new Map<number, Signed<ViewChange>>();
      this.viewChanges.set(signed.body.view, held.set(signed.body.replica, signed as Signed<ViewChange>));
    }
    if (signed?.body.kind !== "prepare") return;
    const key = `${signed.body.view}/${signed.body.seq}`;
    const held = this.prepares.get(key) ?? [];
    if (held.length < 16) this.prepares.set(key, [...held, signed as Signed<Vote>]);
  }

  /** The messages that go to `to` instead of `message`. */
  tamper(to: number, message: SignedMessage): SignedMessage[] {
    const signed = open(this.verifier, message);
    if (!signed) return [message];
    this.history.push(message);
    if (this.history.length > 200) this.history.shift();
    const has = (b: ByzantineBehavior) => this.acts(b);
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
    if (body.kind === "pre-prepare" && has("double-pre-prepare") && body.value && to % 2 === 0) {
      const value = new TextEncoder().encode(`value/second/${body.view}/${body.seq}`);
      this.proposed?.(sha256Hex(value));
      out.push(this.sign({ ...body, value, digest: sha256Hex(value) }));
    }
    if (body.kind === "view-change") this.ownViewChange = body;
    if ((body.kind === "prepare" || body.kind === "commit") && has("view-change-storm") && this.ownViewChange && !this.stormed.has(`${body.view}/${to}`)) {
      this.stormed.add(`${body.view}/${to}`);
      out.push(this.sign({ ...this.ownViewChange, view: body.view + 1 }));
    }
    if ((body.kind === "prepare" || body.kind === "commit") && has("future-pre-prepares")) {
      const value = new TextEncoder().encode(`value/future/${body.seq + 1}`);
      out.push(this.sign({ kind: "pre-prepare", view: this.farViewAbove(body.view), seq: body.seq + 1, replica: this.replica, value, digest: sha256Hex(value) }));
    }
    if (body.kind === "view-change" && has("inflated-view-change")) body = { ...body, view: this.farViewAbove(body.view) };
    if (body.kind === "new-view" && has("withheld-new-view")) return this.withheldNewView(body);
    if (body.kind === "new-view" && (has("packed-new-view") || has("stale-new-view"))) body = this.forgeNewView(body, has("packed-new-view"));
    if (body.kind === "view-change" && has("forged-certificate") && this.accomplice) body = this.forgeCertificate(body);
    if (body.kind === "view-change" && has("misattributed-certificate")) {
      const n = this.verifier.validators.length;
      const prepared = body.prepared.map((cert) => {
        const pp = cert.prePrepare.body;
        return pp.view % n === this.replica ? cert : { ...cert, prePrepare: sign<PrePrepare>(this.crypto, { ...pp, replica: this.replica }) };
      });
      body = { ...body, prepared };
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

  /** A view about 1000 rounds above `view` whose primary this replica is. */
  private farViewAbove(view: number): number {
    const n = this.verifier.validators.length;
    return view + 1000 * n + ((this.replica - view) % n + n) % n;
  }

  /** A PREPARE nobody asked for: view `view`, seq `seq`, a digest nobody proposed. */
  phantomVote(view: number, seq: number): SignedMessage {
    return this.sign({ kind: "prepare", view, seq, replica: this.replica, digest: sha256Hex(`phantom/${view}/${seq}`) });
  }

  /** A commit proof for the same seq and value whose COMMITs span two views: its own COMMIT moved one view up. */
  mixViews(proof: CommitProof): CommitProof {
    const commits = (proof.commits ?? []).map((wire) => open(this.verifier, wire) as Signed<Vote> | undefined);
    const first = commits[0]?.body;
    if (!first || commits.some((c) => !c)) return proof;
    const own = sign<Vote>(this.crypto, { ...first, view: first.view + 1, replica: this.replica }).wire;
    const others = commits.filter((c) => c!.body.replica !== this.replica).map((c) => c!.wire);
    return { commits: [...others.slice(0, this.verifier.quorum - 1), own] };
  }

  /** Instead of the NEW-VIEW: fresh pre-prepares for the two seqs above its plan (valid values, never entered). */
  private withheldNewView(nv: NewView): SignedMessage[] {
    const plan = planNewView(nv.viewChanges);
    const top = Math.max(plan.stable.seq, ...plan.entries.map((e) => e.seq));
    return [1, 2].map((k) => {
      const value = new TextEncoder().encode(`value/withheld/${nv.view}/${top + k}`);
      this.proposed?.(sha256Hex(value));
      return this.sign({ kind: "pre-prepare", view: nv.view, seq: top + k, replica: this.replica, value, digest: sha256Hex(value) });
    });
  }

  /**
   * A NEW-VIEW whose pre-prepares follow the plan of its VIEW-CHANGEs, so that only the rules on the
   * VIEW-CHANGEs themselves (distinct senders, all for this view) can refuse it.
   */
  private forgeNewView(nv: NewView, packed: boolean): NewView {
    const quorum = this.verifier.quorum;
    let viewChanges: Signed<ViewChange>[];
    if (packed) {
      const own = nv.viewChanges.find((v) => v.body.replica === this.replica)?.body;
      if (!own) return nv;
      const empty = sign<ViewChange>(this.crypto, { ...own, prepared: [] });
      viewChanges = Array(quorum).fill(empty);
    } else {
      const older = [...this.viewChanges.keys()].filter((view) => view < nv.view).sort((a, b) => a - b);
      const oldest = older.map((view) => [...this.viewChanges.get(view)!.values()]).find((held) => held.length >= quorum);
      if (!oldest) return nv;
      viewChanges = oldest.slice(0, quorum);
    }
    const plan = planNewView(viewChanges);
    const prePrepares = plan.entries.map((e) => sign<PrePrepare>(this.crypto, { kind: "pre-prepare", view: nv.view, seq: e.seq, replica: this.replica, value: e.value, digest: e.digest }));
    return { ...nv, viewChanges, prePrepares };
  }

  private forgeCertificate(vc: ViewChange): ViewChange {
    const accomplice = this.accomplice!;
    const n = this.verifier.validators.length;
    let w = vc.view - 1;
    while (w >= 0 && w % n !== this.replica && w % n !== accomplice.replica) w--;
    if (w < 0) return vc;
    const seq = vc.stableSeq + 1;
    const proposer = w % n;
    const [ownCrypto, other, otherCrypto] = proposer === this.replica ? [this.crypto, accomplice.replica, accomplice.crypto] : [accomplice.crypto, this.replica, this.crypto];
    const digest = sha256Hex(`value/forged/${w}/${seq}`);
    const prePrepare = sign<PrePrepare>(ownCrypto, { kind: "pre-prepare", view: w, seq, replica: proposer, value: undefined, digest });
    const partner = sign<Vote>(otherCrypto, { kind: "prepare", view: w, seq, replica: other, digest });
    const variant = this.random.int(0, 2);
    if (variant === 2) {
      const honest = this.honestPrepares(vc, n);
      if (honest) {
        // A second value for a seq one of the two pre-prepared, with the PREPAREs honest replicas sent for the first.
        const forged = sign<PrePrepare>(honest.crypto, { kind: "pre-prepare", view: honest.view, seq: honest.seq, replica: honest.view % n, value: undefined, digest: sha256Hex(`value/forged/${honest.view}/${honest.seq}`) });
        return { ...vc, prepared: [{ prePrepare: forged, prepares: honest.prepares }, ...vc.prepared.filter((c) => c.prePrepare.body.seq !== honest.seq)] };
      }
    }
    const prepares = variant === 0 ? [partner] : Array(this.verifier.quorum - 1).fill(partner);
    return { ...vc, prepared: [{ prePrepare, prepares }, ...vc.prepared.filter((c) => c.prePrepare.body.seq !== seq)] };
  }

  /** The highest view below the VIEW-CHANGE's, led by one of the two, in which honest replicas sent a quorum's PREPAREs for one seq. */
  private honestPrepares(vc: ViewChange, n: number): { view: number; seq: number; prepares: Signed<Vote>[]; crypto: ConsensusCrypto } | undefined {
    let best: { view: number; seq: number; prepares: Signed<Vote>[]; crypto: ConsensusCrypto } | undefined;
    for (const [key, held] of this.prepares) {
      const [view, seq] = key.split("/").map(Number) as [number, number];
      const primary = view % n;
      if (view >= vc.view || seq <= vc.stableSeq || (primary !== this.replica && primary !== this.accomplice!.replica)) continue;
      const signers = new Map(held.filter((p) => p.body.replica !== primary).map((p) => [p.body.replica, p]));
      if (signers.size < this.verifier.quorum - 1 || (best && best.view >= view)) continue;
      best = { view, seq, prepares: [...signers.values()].slice(0, this.verifier.quorum - 1), crypto: primary === this.replica ? this.crypto : this.accomplice!.crypto };
    }
    return best;
  }

  private sign(body: Body): SignedMessage {
    return sign(this.crypto, body).wire;
  }
}
