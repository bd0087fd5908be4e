import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { PersistedInstance, PersistedState } from "@chainsim/consensus";
import { SnapshotStore } from "../src/consensus/snapshot-store.js";
import { Databases } from "../src/storage/databases.js";

describe("SnapshotStore", () => {
  let dir: string;
  let dbs: Databases;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "chainsim-snapshot-"));
    dbs = await Databases.open(dir);
  });
  afterEach(async () => {
    await dbs.close();
    await rm(dir, { recursive: true, force: true });
  });

  const instance = (seq: number, votes: string[]): PersistedInstance => ({ seq, startMs: seq, prePrepare: `pp${seq}`, validated: true, votes });
  const state = (instances: PersistedInstance[], view = 0): PersistedState => ({
    version: 1,
    view,
    viewActive: true,
    failedViews: 0,
    newViewMaxSeq: 1,
    lastExecuted: 1,
    stable: { seq: 1, digest: "", proof: [] },
    viewChanges: [],
    instances,
  });

  it("reads back what it saved, and nothing before the first save", async () => {
    const store = new SnapshotStore(dbs.keyvalue);
    expect(await store.load()).to.equal(undefined);
    const saved = state([instance(2, ["a", "b"]), instance(3, [])], 4);
    await store.save(saved);
    expect(await new SnapshotStore(dbs.keyvalue).load()).to.deep.equal(saved);
  });

  it("keeps prepared pre-prepares and other values apart from the votes, and reads back snapshots written whole before", async () => {
    const full: PersistedInstance = { seq: 5, startMs: 9, prePrepare: "pp", validated: false, prepared: { prePrepare: "old", prepares: ["p1", "p2"] }, votes: ["c"], values: ["x", "y"] };
    const saved = state([full, instance(6, [])]);
    await new SnapshotStore(dbs.keyvalue).save(saved);
    expect(await new SnapshotStore(dbs.keyvalue).load()).to.deep.equal(saved);
    // The format before votes and values were split: one record per instance.
    const whole = { ...full, seq: 7 };
    await dbs.keyvalue.put("consensus/instance/00000000000000000007", new TextEncoder().encode(JSON.stringify(whole)));
    await dbs.keyvalue.put("consensus/state", new TextEncoder().encode(JSON.stringify({ ...state([]), instances: undefined, instanceSeqs: [7] })));
    expect((await new SnapshotStore(dbs.keyvalue).load())!.instances).to.deep.equal([whole]);
  });

  it("rewrites only the instances that changed, and drops those that left the window", async () => {
    const store = new SnapshotStore(dbs.keyvalue);
    const votes = ["v1"];
    await store.save(state([instance(2, votes), instance(3, [])]));
    const writes: string[] = [];
    const batch = dbs.keyvalue.batch.bind(dbs.keyvalue);
    dbs.keyvalue.batch = (() => {
      const b = batch();
      const put = b.put.bind(b);
      const del = b.del.bind(b);
      b.put = ((key: string, value: Uint8Array) => (writes.push(`put ${key}`), put(key, value))) as typeof b.put;
      b.del = ((key: string) => (writes.push(`del ${key}`), del(key))) as typeof b.del;
      return b;
    }) as typeof dbs.keyvalue.batch;
    await store.save(state([instance(3, ["v2"]), instance(4, [])]));
    expect(writes.map((w) => w.replace(/\/0+(\d)/, "/$1"))).to.deep.equal([
      "del consensus/instance/2",
      "del consensus/values/2",
      // instance 3 got a vote: its values (a whole ledger) are not written again
      "put consensus/instance/3",
      "put consensus/instance/4",
      "put consensus/values/4",
      "put consensus/state",
    ]);
    writes.length = 0;
    const unchanged = state([instance(3, ["v2"]), instance(4, [])]);
    await store.save(unchanged);
    expect(writes).to.deep.equal(["put consensus/state"]);
    expect(await new SnapshotStore(dbs.keyvalue).load()).to.deep.equal(unchanged);
  });
});
