import { codecs, fromHex, toHex } from "@chainsim/protocol";
import type { Verifier } from "./config.js";
import { Instance } from "./instance.js";
import { openAs, type Body, type Checkpoint, type Signed } from "./messages.js";
import type { ReplicaState } from "./state.js";

/**
 * What a replica needs after a crash to never contradict itself: its view, the instances of its window
 * with the pre-prepares it accepted, the votes it holds (its own among them) and its prepared
 * certificates. JSON-safe: messages are hex of their signed wire form. Bounded by the window (2 ×
 * ckpInterval seqs) and the validator count. Messages are re-verified on restore.
 */
export interface PersistedState {
  version: 1;
  view: number;
  viewActive: boolean;
  failedViews: number;
  newViewMaxSeq: number;
  lastExecuted: number;
  stable: { seq: number; digest: string; proof: string[] };
  viewChanges: string[];
  instances: PersistedInstance[];
  /** CHECKPOINTs above the stable one, ours and peers' (absent in snapshots of older versions). */
  checkpoints?: string[];
  /** The NEW-VIEW that started the current view, passed on to replicas that missed it (absent in view 0). */
  newView?: string;
}

export interface PersistedInstance {
  seq: number;
  startMs: number;
  prePrepare?: string;
  validated: boolean;
  prepared?: { prePrepare: string; prepares: string[] };
  votes: string[];
  /**
   * Other values this replica holds for the seq (hex), besides the pre-prepares above: a value it checked in
   * an earlier view may be the one a later view decides, and then nobody else may have it.
   */
  values?: string[];
}

export function snapshotState(state: ReplicaState, checkpoints: Signed<Checkpoint>[]): PersistedState {
  return {
    version: 1,
    view: state.view,
    viewActive: state.viewActive,
    failedViews: state.failedViews,
    newViewMaxSeq: state.newViewMaxSeq,
    lastExecuted: state.lastExecuted,
    stable: { seq: state.stable.seq, digest: state.stable.digest, proof: state.stable.proof.map(hex) },
    viewChanges: [...state.viewChanges.values()].map(hex),
    instances: [...state.log.values()].map((instance) => ({
      seq: instance.seq,
      startMs: instance.startMs,
      prePrepare: instance.prePrepare && hex(instance.prePrepare),
      validated: instance.validated,
      prepared: instance.prepared && { prePrepare: hex(instance.prepared.prePrepare), prepares: instance.prepared.prepares.map(hex) },
      votes: [...instance.prepares.values(), ...instance.commits.values()].map(hex),
      values: otherValues(instance).map(valueHex),
    })),
    checkpoints: checkpoints.map(hex),
    newView: state.newView && hex(state.newView),
  };
}

/** The CHECKPOINTs a snapshot held. */
export function restoreCheckpoints(verifier: Verifier, saved: PersistedState): Signed<Checkpoint>[] {
  return (saved.checkpoints ?? []).map((c) => read(verifier, c, "checkpoint"));
}

export function restoreState(verifier: Verifier, saved: PersistedState): ReplicaState {
  if (saved.version !== 1) throw new Error(`unknown consensus snapshot version ${saved.version}`);
  const log = new Map<number, Instance>();
  for (const item of saved.instances) {
    const instance = new Instance(item.seq, item.startMs);
    if (item.prePrepare) instance.accept(read(verifier, item.prePrepare, "pre-prepare"), item.validated, item.startMs);
    if (item.prepared) {
      const prePrepare = read(verifier, item.prepared.prePrepare, "pre-prepare");
      instance.prepared = { prePrepare, prepares: item.prepared.prepares.map((p) => read(verifier, p, "prepare")) };
      if (prePrepare.body.value !== undefined) instance.values.set(prePrepare.body.digest, prePrepare.body.value);
    }
    for (const vote of item.votes) instance.addVote(read(verifier, vote, "prepare", "commit"));
    for (const text of item.values ?? []) {
      const value = fromHex(text);
      instance.values.set(verifier.crypto.digest(value), value);
    }
    instance.committed = instance.commitCertificate(verifier.quorum);
    log.set(item.seq, instance);
  }
  const viewChanges = new Map(saved.viewChanges.map((v) => read(verifier, v, "view-change")).map((v) => [v.body.replica, v]));
  return {
    view: saved.view,
    viewActive: saved.viewActive,
    failedViews: saved.failedViews,
    newViewMaxSeq: saved.newViewMaxSeq,
    lastExecuted: saved.lastExecuted,
    // Commits handed out but not executed before the crash are handed out again.
    lastDelivered: saved.lastExecuted,
    stable: { seq: saved.stable.seq, digest: saved.stable.digest, proof: saved.stable.proof.map((c) => read(verifier, c, "checkpoint")) },
    log,
    viewChanges,
    newView: saved.newView === undefined ? undefined : read(verifier, saved.newView, "new-view"),
  };
}

/** Values kept for a seq per snapshot, newest first: enough for a few view changes over one seq. */
const VALUES_KEPT = 8;

/** The values of an instance that its stored pre-prepares do not carry. */
function otherValues(instance: Instance): Uint8Array[] {
  const carried = new Set([instance.prePrepare?.body.value, instance.prepared?.prePrepare.body.value]);
  const others = [...instance.values.values()].filter((v): v is Uint8Array => v !== null && !carried.has(v));
  return others.slice(-VALUES_KEPT);
}

function valueHex(value: Uint8Array): string {
  return cachedHex(value, () => value);
}

/**
 * Hex forms already computed, by the object they were made from: a pre-prepare holds a whole ledger's value
 * and is snapshotted many times, and the same string object lets the snapshot store compare by identity.
 */
const hexForms = new WeakMap<object, string>();

function cachedHex(key: object, bytes: () => Uint8Array): string {
  let text = hexForms.get(key);
  if (text === undefined) {
    text = toHex(bytes());
    hexForms.set(key, text);
  }
  return text;
}

/** The hex of a message's wire form; the same string object every time for the same message. */
function hex(message: Signed): string {
  return cachedHex(message.wire, () => codecs.PbftSignedMessage.encode(message.wire));
}

function read<K extends Body["kind"]>(verifier: Verifier, text: string, ...kinds: K[]): Signed<Extract<Body, { kind: K }>> {
  return openAs(verifier, codecs.PbftSignedMessage.decode(fromHex(text)), ...kinds);
}
