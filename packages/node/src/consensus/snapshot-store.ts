import type { PersistedInstance, PersistedState } from "@chainsim/consensus";
import type { Db } from "../storage/databases.js";

const STATE_KEY = "consensus/state";
const INSTANCE_PREFIX = "consensus/instance/";

type StateWithoutInstances = Omit<PersistedState, "instances"> & { instanceSeqs: number[] };

const instanceKey = (seq: number) => INSTANCE_PREFIX + String(seq).padStart(20, "0");

/**
 * The replica's snapshot in keyvalue_db, written in one synced batch before the votes it covers leave.
 * An instance holds its pre-prepare, that is a whole proposed ledger, and the snapshot is taken several
 * times per ledger: so each instance has a key of its own and is rewritten only when it changed (the
 * consensus package hands out the same string objects for unchanged messages, so the check is cheap).
 */
export class SnapshotStore {
  private written = new Map<number, PersistedInstance>();

  constructor(private readonly db: Db) {}

  async load(): Promise<PersistedState | undefined> {
    const state = await this.db.get(STATE_KEY);
    if (!state) return undefined;
    const { instanceSeqs, ...rest } = JSON.parse(new TextDecoder().decode(state)) as StateWithoutInstances;
    const instances: PersistedInstance[] = [];
    for (const seq of instanceSeqs) {
      const stored = await this.db.get(instanceKey(seq));
      if (!stored) throw new Error(`the consensus snapshot lacks instance ${seq}; the data directory is damaged`);
      instances.push(JSON.parse(new TextDecoder().decode(stored)) as PersistedInstance);
    }
    this.written = new Map(instances.map((instance) => [instance.seq, instance]));
    return { ...rest, instances };
  }

  async save(snapshot: PersistedState): Promise<void> {
    const { instances, ...rest } = snapshot;
    const batch = this.db.batch();
    const current = new Map(instances.map((instance) => [instance.seq, instance]));
    for (const seq of this.written.keys()) if (!current.has(seq)) batch.del(instanceKey(seq));
    for (const instance of instances) {
      const previous = this.written.get(instance.seq);
      if (!previous || changed(previous, instance)) batch.put(instanceKey(instance.seq), new TextEncoder().encode(JSON.stringify(instance)));
    }
    const state: StateWithoutInstances = { ...rest, instanceSeqs: instances.map((instance) => instance.seq) };
    batch.put(STATE_KEY, new TextEncoder().encode(JSON.stringify(state)));
    await batch.write({ sync: true });
    this.written = current;
  }
}

function changed(a: PersistedInstance, b: PersistedInstance): boolean {
  return (
    a.startMs !== b.startMs ||
    a.validated !== b.validated ||
    a.prePrepare !== b.prePrepare ||
    a.prepared?.prePrepare !== b.prepared?.prePrepare ||
    !sameStrings(a.prepared?.prepares ?? [], b.prepared?.prepares ?? []) ||
    !sameStrings(a.votes, b.votes) ||
    !sameStrings(a.values ?? [], b.values ?? [])
  );
}

function sameStrings(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((text, i) => text === b[i]);
}
