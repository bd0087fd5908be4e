import type { PersistedInstance, PersistedState } from "@chainsim/consensus";
import type { Db } from "../storage/databases.js";

const STATE_KEY = "consensus/state";
const INSTANCE_PREFIX = "consensus/instance/";
const VALUES_PREFIX = "consensus/values/";

type StateWithoutInstances = Omit<PersistedState, "instances"> & { instanceSeqs: number[] };

/** An instance's votes and flags: small, and rewritten with every vote. */
interface VotesRecord {
  seq: number;
  startMs: number;
  validated: boolean;
  votes: string[];
  preparedPrepares?: string[];
}

/** An instance's pre-prepares and values: whole ledgers (hex), written when they change. */
interface ValuesRecord {
  prePrepare?: string;
  preparedPrePrepare?: string;
  values?: string[];
}

const seqKey = (prefix: string, seq: number) => prefix + String(seq).padStart(20, "0");
const encode = (record: unknown) => new TextEncoder().encode(JSON.stringify(record));
const decode = <T>(bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes)) as T;

/**
 * The replica's snapshot in keyvalue_db, written in one synced batch before the votes it covers leave.
 * An instance holds its pre-prepare, that is a whole proposed ledger, and the snapshot is taken several
 * times per ledger: so each instance has keys of its own, its votes apart from its values, and each is
 * rewritten only when it changed (the consensus package hands out the same string objects for unchanged
 * messages, so the checks are cheap). Votes and values in one record rewrote a 9 MB ledger, as 18 MB of
 * JSON, at every vote (review of 2026-11-27).
 */
export class SnapshotStore {
  private written = new Map<number, PersistedInstance>();

  constructor(private readonly db: Db) {}

  async load(): Promise<PersistedState | undefined> {
    const state = await this.db.get(STATE_KEY);
    if (!state) return undefined;
    const { instanceSeqs, ...rest } = decode<StateWithoutInstances>(state);
    const instances: PersistedInstance[] = [];
    for (const seq of instanceSeqs) {
      const votes = await this.db.get(seqKey(INSTANCE_PREFIX, seq));
      const values = await this.db.get(seqKey(VALUES_PREFIX, seq));
      if (!votes) throw new Error(`the consensus snapshot lacks instance ${seq}; the data directory is damaged`);
      // Without a values record the instance was written whole, by a chainsim before the split.
      instances.push(values ? joined(decode<VotesRecord>(votes), decode<ValuesRecord>(values)) : decode<PersistedInstance>(votes));
    }
    this.written = new Map(instances.map((instance) => [instance.seq, instance]));
    return { ...rest, instances };
  }

  async save(snapshot: PersistedState): Promise<void> {
    const { instances, ...rest } = snapshot;
    const batch = this.db.batch();
    const current = new Map(instances.map((instance) => [instance.seq, instance]));
    for (const seq of this.written.keys()) {
      if (current.has(seq)) continue;
      batch.del(seqKey(INSTANCE_PREFIX, seq));
      batch.del(seqKey(VALUES_PREFIX, seq));
    }
    for (const instance of instances) {
      const previous = this.written.get(instance.seq);
      if (!previous || votesChanged(previous, instance)) batch.put(seqKey(INSTANCE_PREFIX, instance.seq), encode(votesOf(instance)));
      if (!previous || valuesChanged(previous, instance)) batch.put(seqKey(VALUES_PREFIX, instance.seq), encode(valuesOf(instance)));
    }
    const state: StateWithoutInstances = { ...rest, instanceSeqs: instances.map((instance) => instance.seq) };
    batch.put(STATE_KEY, encode(state));
    await batch.write({ sync: true });
    this.written = current;
  }
}

function votesOf(instance: PersistedInstance): VotesRecord {
  const { seq, startMs, validated, votes, prepared } = instance;
  return prepared ? { seq, startMs, validated, votes, preparedPrepares: prepared.prepares } : { seq, startMs, validated, votes };
}

function valuesOf(instance: PersistedInstance): ValuesRecord {
  return { prePrepare: instance.prePrepare, preparedPrePrepare: instance.prepared?.prePrepare, values: instance.values };
}

function joined(votes: VotesRecord, values: ValuesRecord): PersistedInstance {
  const { preparedPrepares, ...rest } = votes;
  const instance: PersistedInstance = { ...rest };
  if (values.prePrepare !== undefined) instance.prePrepare = values.prePrepare;
  if (values.preparedPrePrepare !== undefined) instance.prepared = { prePrepare: values.preparedPrePrepare, prepares: preparedPrepares ?? [] };
  if (values.values !== undefined) instance.values = values.values;
  return instance;
}

function votesChanged(a: PersistedInstance, b: PersistedInstance): boolean {
  return a.startMs !== b.startMs || a.validated !== b.validated || !sameStrings(a.prepared?.prepares ?? [], b.prepared?.prepares ?? []) || !sameStrings(a.votes, b.votes);
}

function valuesChanged(a: PersistedInstance, b: PersistedInstance): boolean {
  return a.prePrepare !== b.prePrepare || a.prepared?.prePrepare !== b.prepared?.prePrepare || !sameStrings(a.values ?? [], b.values ?? []);
}

function sameStrings(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((text, i) => text === b[i]);
}
