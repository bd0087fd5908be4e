// StateView: reads through layers to the store, checkpoint / commit / rollback, and the changes it yields.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { Account } from "@chainsim/protocol";
import { StateView } from "../src/state/state-view.js";
import { AccountStore } from "../src/storage/account-store.js";
import { Databases } from "../src/storage/databases.js";
import { makeKey } from "./helpers/chain.js";
import { METADATA } from "../src/state/entries.js";

const [A, B, C] = ["a", "b", "c"].map((n) => makeKey(n).address).sort();
const account = (address: string, balance: bigint): Account => ({ address, balance });

describe("StateView", () => {
  let dir: string;
  let dbs: Databases;
  let store: AccountStore;
  let state: StateView;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "chainsim-state-test-"));
    dbs = await Databases.open(dir);
    store = new AccountStore(dbs.account);
    // Stored: A with 100 and metadata m1, m2.
    await store.apply(1n, {
      accounts: [
        {
          account: account(A, 100n),
          metadatas: [
            { key: "m2", value: { key: "m2", value: "two", version: 1n } },
            { key: "m1", value: { key: "m1", value: "one", version: 1n } },
          ],
        },
      ],
    });
    state = new StateView(store);
  });
  afterEach(async () => {
    await dbs.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("reads through to the store; writes shadow it without touching it", async () => {
    expect(await state.account(A)).to.deep.equal(account(A, 100n));
    expect(await state.account(B)).to.equal(undefined);
    state.putAccount(account(A, 50n));
    state.putAccount(account(B, 1n));
    expect(await state.account(A)).to.deep.equal(account(A, 50n));
    expect(await state.account(B)).to.deep.equal(account(B, 1n));
    expect(await store.account(A)).to.deep.equal(account(A, 100n));
    expect(await store.account(B)).to.equal(undefined);
  });

  it("returns copies: changing a read value changes nothing until put", async () => {
    state.putAccount(account(A, 50n));
    const read = (await state.account(A))!;
    read.balance = 1n;
    expect((await state.account(A))!.balance).to.equal(50n);
    state.putEntry(METADATA, A, "k", { key: "k", value: "v", version: 1n });
    (await state.metadata(A, "k"))!.value = "changed";
    expect((await state.metadata(A, "k"))!.value).to.equal("v");
  });

  it("commit folds a checkpoint's writes into the layer below", async () => {
    state.checkpoint();
    state.putAccount(account(A, 10n));
    state.putEntry(METADATA, A, "m1", null);
    state.commit();
    expect((await state.account(A))!.balance).to.equal(10n);
    expect(await state.metadata(A, "m1")).to.equal(undefined);
    expect(state.changes()).to.deep.equal({ accounts: [{ account: account(A, 10n), metadatas: [{ key: "m1", deleted: true }] }] });
  });

  it("rollback drops only the writes since the checkpoint", async () => {
    state.putAccount(account(A, 90n));
    state.checkpoint();
    state.putAccount(account(A, 10n));
    state.putAccount(account(B, 5n));
    state.putEntry(METADATA, A, "m3", { key: "m3", value: "three", version: 1n });
    expect((await state.account(A))!.balance).to.equal(10n);
    state.rollback();
    expect((await state.account(A))!.balance).to.equal(90n);
    expect(await state.account(B)).to.equal(undefined);
    expect(await state.metadata(A, "m3")).to.equal(undefined);
    expect(state.touched(METADATA)).to.deep.equal([]);
    expect(state.changes()).to.deep.equal({ accounts: [{ account: account(A, 90n) }] });
  });

  it("nests: an inner commit still disappears with an outer rollback", async () => {
    state.checkpoint();
    state.putAccount(account(B, 1n));
    state.checkpoint();
    state.putAccount(account(C, 2n));
    state.commit();
    expect((await state.account(C))!.balance).to.equal(2n);
    state.rollback();
    expect(await state.account(B)).to.equal(undefined);
    expect(await state.account(C)).to.equal(undefined);
    expect(state.changes()).to.deep.equal({ accounts: [] });
  });

  it("merges stored and pending metadata in key order, without deleted entries", async () => {
    state.putEntry(METADATA, A, "m0", { key: "m0", value: "zero", version: 1n });
    state.checkpoint();
    state.putEntry(METADATA, A, "m2", null);
    state.putEntry(METADATA, A, "m1", { key: "m1", value: "uno", version: 2n });
    expect((await state.allEntries(METADATA, A)).map((kp) => [kp.key, kp.value])).to.deep.equal([
      ["m0", "zero"],
      ["m1", "uno"],
    ]);
    state.rollback();
    expect((await state.allEntries(METADATA, A)).map((kp) => [kp.key, kp.value])).to.deep.equal([
      ["m0", "zero"],
      ["m1", "one"],
      ["m2", "two"],
    ]);
    expect(state.touched(METADATA)).to.deep.equal([A]);
  });

  it("lists changes by address, metadata by key", () => {
    state.putAccount(account(C, 3n));
    state.putAccount(account(A, 1n));
    state.putAccount(account(B, 2n));
    state.putEntry(METADATA, B, "z", { key: "z", value: "1" });
    state.putEntry(METADATA, B, "a", null);
    expect(state.changes()).to.deep.equal({
      accounts: [
        { account: account(A, 1n) },
        {
          account: account(B, 2n),
          metadatas: [
            { key: "a", deleted: true },
            { key: "z", value: { key: "z", value: "1" } },
          ],
        },
        { account: account(C, 3n) },
      ],
    });
  });

  it("refuses changes() with an open checkpoint, and commit/rollback without one", () => {
    expect(() => state.commit()).to.throw(/no checkpoint/);
    expect(() => state.rollback()).to.throw(/no checkpoint/);
    state.checkpoint();
    expect(() => state.changes()).to.throw(/open checkpoints/);
    expect(() => state.touched(METADATA)).to.throw(/open checkpoints/);
  });
});
