import { open, sign, type Body, type ConsensusCrypto, type Verifier } from "@chainsim/consensus";
import { codecs, fromHex } from "@chainsim/protocol";
import type { ByzantineMode } from "./rules.js";

/** Consensus messages kept for `replay`. */
const HISTORY = 64;

/**
 * Turns this validator's outgoing consensus messages into Byzantine ones. Messages that must stay validly
 * signed are re-signed with this validator's key through packages/consensus `sign` (the same domain tag
 * and encoding as honest messages), so receivers can only reject them on their content.
 */
export class ByzantineTransforms {
  private readonly history: Uint8Array[] = [];

  constructor(
    private readonly crypto: ConsensusCrypto,
    private readonly verifier: Verifier,
    private readonly random: () => number,
  ) {}

  /** Keeps a consensus message this validator sent or received, for `replay`. */
  remember(payload: Uint8Array): void {
    this.history.push(payload);
    if (this.history.length > HISTORY) this.history.shift();
  }

  /**
   * What goes to one peer instead of `payload` under `modes`: [] when `silent` suppresses it, the message
   * itself when no mode applies to its kind. The modes apply in a fixed order whatever the rules' order:
   * content changes (re-signed), then the broken signature, then the replayed extra.
   */
  apply(payload: Uint8Array, modes: readonly ByzantineMode[]): Uint8Array[] {
    const replayed = modes.includes("replay") && this.history.length > 0 ? [this.history[Math.floor(this.random() * this.history.length)]!] : [];
    const signed = open(this.verifier, codecs.PbftSignedMessage.decode(payload));
    // not a message this validator can read (never the case for its own): passed on as it is
    if (!signed) return [payload, ...replayed];
    if (modes.includes("silent") && (signed.body.kind === "pre-prepare" || signed.body.kind === "new-view")) return replayed;
    let body: Body = signed.body;
    if (modes.includes("equivocate")) body = this.equivocate(body);
    if (modes.includes("wrong-digest")) body = this.wrongDigest(body);
    if (modes.includes("mutate")) body = this.mutate(body);
    let wire = body === signed.body ? signed.wire : sign(this.crypto, body).wire;
    if (modes.includes("bad-signature")) wire = { ...wire, signature: corrupt(wire.signature) };
    return [wire === signed.wire ? payload : codecs.PbftSignedMessage.encode(wire), ...replayed];
  }

  /** A pre-prepare with a different value for the same view and seq: the close time 1 µs later. */
  private equivocate(body: Body): Body {
    if (body.kind !== "pre-prepare" || !body.value) return body;
    const value = codecs.ConsensusValue.decode(body.value);
    const other = codecs.ConsensusValue.encode({ ...value, close_time: (value.close_time ?? 0n) + 1n });
    return { ...body, value: other, digest: this.crypto.digest(other) };
  }

  /** A vote for a digest nobody pre-prepared (the hash of the right one). */
  private wrongDigest(body: Body): Body {
    if (body.kind !== "prepare" && body.kind !== "commit") return body;
    return { ...body, digest: this.crypto.digest(fromHex(body.digest)) };
  }

  /** The view or the seq one higher than it should be. */
  private mutate(body: Body): Body {
    switch (body.kind) {
      case "pre-prepare":
      case "prepare":
      case "commit":
        return this.random() < 0.5 ? { ...body, view: body.view + 1 } : { ...body, seq: body.seq + 1 };
      case "checkpoint":
        return { ...body, seq: body.seq + 1 };
      case "view-change":
      case "new-view":
        return { ...body, view: body.view + 1 };
    }
  }
}

function corrupt(signature: Uint8Array | undefined): Uint8Array {
  const bytes = signature && signature.length > 0 ? signature.slice() : new Uint8Array(64);
  bytes[0] ^= 0xff;
  return bytes;
}
