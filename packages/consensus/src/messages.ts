import { codecs, concatBytes, fromHex, toHex, type PbftMessage, type PbftSignedMessage } from "@chainsim/protocol";
import type { ConsensusCrypto, Verifier } from "./config.js";

// The messages in the form the state machine works with: numbers for view and seq, digests as hex, and a
// null value with digest "" for the gaps a new view fills. On the wire they are proto/consensus.proto.

/** What travels between validators: the encoded PbftMessage and its signature. */
export type SignedMessage = PbftSignedMessage;

/**
 * `value`: the proposed value; null for a null request (digest ""); undefined where the message does not
 * carry it (a prepared certificate, a NEW-VIEW: the signature covers the digest, never the value).
 */
export interface PrePrepare { kind: "pre-prepare"; view: number; seq: number; replica: number; value: Uint8Array | null | undefined; digest: string }
export interface Vote { kind: "prepare" | "commit"; view: number; seq: number; replica: number; digest: string }
export interface Checkpoint { kind: "checkpoint"; seq: number; stateDigest: string; replica: number }
export interface PreparedCertificate { prePrepare: Signed<PrePrepare>; prepares: Signed<Vote>[] }
export interface ViewChange {
  kind: "view-change";
  view: number;
  stableSeq: number;
  stableDigest: string;
  checkpointProof: Signed<Checkpoint>[];
  prepared: PreparedCertificate[];
  replica: number;
}
export interface NewView { kind: "new-view"; view: number; viewChanges: Signed<ViewChange>[]; prePrepares: Signed<PrePrepare>[]; replica: number }
export type Body = PrePrepare | Vote | Checkpoint | ViewChange | NewView;

/** A message whose signature (and those of every message inside it) has been checked; `wire` is what was signed. */
export interface Signed<T extends Body = Body> { body: T; wire: SignedMessage }

// Signatures cover a domain tag and the exact message bytes, so a validator key signing transactions can
// never produce a valid consensus message by accident.
const DOMAIN = new TextEncoder().encode("chainsim/pbft\0");

export function sign<T extends Body>(crypto: ConsensusCrypto, body: T): Signed<T> {
  const message = codecs.PbftMessage.encode(toWire(body));
  const value = body.kind === "pre-prepare" ? (body.value ?? undefined) : undefined;
  return { body, wire: { message, signature: crypto.sign(concatBytes(DOMAIN, message)), ...(value ? { value } : {}) } };
}

/** The same signed pre-prepare without its value: what certificates and NEW-VIEWs carry (bounded in size). */
export function withoutValue(pp: Signed<PrePrepare>): Signed<PrePrepare> {
  if (pp.body.value === undefined || pp.body.value === null) return pp;
  return { body: { ...pp.body, value: undefined }, wire: { message: pp.wire.message, signature: pp.wire.signature } };
}

/**
 * Decodes and checks a message from the network; undefined when anything about it is wrong. Only a
 * pre-prepare may carry a value beside its signature, and only at the top level: anything else with one
 * is refused, or a Byzantine replica could pad votes that end up in certificates, proofs and snapshots.
 */
export function open(verifier: Verifier, wire: SignedMessage, nested = false): Signed | undefined {
  try {
    const message = wire.message ?? new Uint8Array(0);
    const body = fromWire(verifier, codecs.PbftMessage.decode(message), wire.value);
    if (wire.value !== undefined && (nested || body.kind !== "pre-prepare")) return undefined;
    if (!verifier.crypto.verify(body.replica, concatBytes(DOMAIN, message), wire.signature ?? new Uint8Array(0))) return undefined;
    return { body, wire };
  } catch {
    return undefined;
  }
}

export function openAs<K extends Body["kind"]>(verifier: Verifier, wire: SignedMessage | undefined, ...kinds: K[]): Signed<Extract<Body, { kind: K }>> {
  return opened(wire && open(verifier, wire), kinds);
}

/** A message inside another (a certificate, a proof, a NEW-VIEW's parts): never with a value. */
function openNested<K extends Body["kind"]>(verifier: Verifier, wire: SignedMessage | undefined, ...kinds: K[]): Signed<Extract<Body, { kind: K }>> {
  return opened(wire && open(verifier, wire, true), kinds);
}

function opened<K extends Body["kind"]>(signed: Signed | undefined, kinds: K[]): Signed<Extract<Body, { kind: K }>> {
  if (!signed || !(kinds as string[]).includes(signed.body.kind)) throw new Malformed(`expected a signed ${kinds.join(" or ")}`);
  return signed as Signed<Extract<Body, { kind: K }>>;
}

class Malformed extends Error {}

function toWire(body: Body): PbftMessage {
  switch (body.kind) {
    case "pre-prepare":
      return { pre_prepare: { view: BigInt(body.view), seq: BigInt(body.seq), replica: body.replica, value_digest: fromHex(body.digest) } };
    case "prepare":
    case "commit": {
      const vote = { view: BigInt(body.view), seq: BigInt(body.seq), replica: body.replica, value_digest: fromHex(body.digest) };
      return body.kind === "prepare" ? { prepare: vote } : { commit: vote };
    }
    case "checkpoint":
      return { checkpoint: { seq: BigInt(body.seq), state_digest: fromHex(body.stateDigest), replica: body.replica } };
    case "view-change":
      return {
        view_change: {
          view: BigInt(body.view),
          stable_seq: BigInt(body.stableSeq),
          stable_digest: fromHex(body.stableDigest),
          checkpoint_proof: body.checkpointProof.map((c) => c.wire),
          prepared: body.prepared.map((p) => ({ pre_prepare: p.prePrepare.wire, prepares: p.prepares.map((v) => v.wire) })),
          replica: body.replica,
        },
      };
    case "new-view":
      return {
        new_view: {
          view: BigInt(body.view),
          view_changes: body.viewChanges.map((v) => v.wire),
          pre_prepares: body.prePrepares.map((p) => p.wire),
          replica: body.replica,
        },
      };
  }
}

/** Reads the wire form; nested messages are opened (and so verified) too. Throws on anything malformed. */
function fromWire(verifier: Verifier, message: PbftMessage, carried: Uint8Array | undefined): Body {
  const replica = (r: number | undefined) => {
    const id = r ?? 0;
    if (id >= verifier.validators.length) throw new Malformed(`no replica ${id}`);
    return id;
  };
  const { pre_prepare: pp, prepare, commit, checkpoint: ckp, view_change: vc, new_view: nv } = message;
  if (pp) {
    const digest = hex(pp.value_digest);
    let value: Uint8Array | null | undefined = carried;
    if (digest === "") {
      if ((carried?.length ?? 0) > 0) throw new Malformed("a null request with a value");
      value = null;
    } else if (carried !== undefined && verifier.crypto.digest(carried) !== digest) throw new Malformed("value and digest differ");
    return { kind: "pre-prepare", view: num(pp.view), seq: num(pp.seq), replica: replica(pp.replica), value, digest };
  }
  const vote = prepare ?? commit;
  if (vote) {
    const kind = prepare ? "prepare" : "commit";
    return { kind, view: num(vote.view), seq: num(vote.seq), replica: replica(vote.replica), digest: hex(vote.value_digest) };
  }
  if (ckp) return { kind: "checkpoint", seq: num(ckp.seq), stateDigest: hex(ckp.state_digest), replica: replica(ckp.replica) };
  if (vc) {
    return {
      kind: "view-change",
      view: num(vc.view),
      stableSeq: num(vc.stable_seq),
      stableDigest: hex(vc.stable_digest),
      checkpointProof: (vc.checkpoint_proof ?? []).map((w) => openNested(verifier, w, "checkpoint")),
      prepared: (vc.prepared ?? []).map((p) => ({
        prePrepare: openNested(verifier, p.pre_prepare, "pre-prepare"),
        prepares: (p.prepares ?? []).map((w) => openNested(verifier, w, "prepare")),
      })),
      replica: replica(vc.replica),
    };
  }
  if (nv) {
    return {
      kind: "new-view",
      view: num(nv.view),
      viewChanges: (nv.view_changes ?? []).map((w) => openNested(verifier, w, "view-change")),
      prePrepares: (nv.pre_prepares ?? []).map((w) => openNested(verifier, w, "pre-prepare")),
      replica: replica(nv.replica),
    };
  }
  throw new Malformed("empty message");
}

function num(value: bigint | undefined): number {
  const n = value ?? 0n;
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new Malformed("number out of range");
  return Number(n);
}

function hex(bytes: Uint8Array | undefined): string {
  return bytes ? toHex(bytes) : "";
}

/** The name of a message in events and logs, e.g. "COMMIT v2 s17 from 3". */
export function describe(body: Body): string {
  const at = "seq" in body ? ` s${body.seq}` : "";
  const view = "view" in body ? ` v${body.view}` : "";
  return `${body.kind.toUpperCase()}${view}${at} from ${body.replica}`;
}
