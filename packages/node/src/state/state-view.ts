import type { Account, AccountChange, AssetChange, LedgerChanges, MetadataChange } from "@chainsim/protocol";
import type { AccountStore } from "../storage/account-store.js";
import { ASSETS, METADATA, type EntryKind } from "./entries.js";

interface Layer {
  accounts: Map<string, Account>;
  /** `<kind prefix>/<address>` → entry key → new value, or null for deleted. */
  entries: Map<string, Map<string, object | null>>;
}

const newLayer = (): Layer => ({ accounts: new Map(), entries: new Map() });
const slot = (kind: EntryKind<object>, address: string) => `${kind.prefix}/${address}`;
const byKey = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The state as a ledger's execution sees it: the stored state plus the writes made so far, in nested
 * layers. `checkpoint` opens a layer, `commit` folds it into the one below, `rollback` drops it; that is
 * how a failed transaction leaves nothing behind. Reads return copies, so callers cannot change state
 * without `put…`.
 */
export class StateView {
  private readonly layers: Layer[] = [newLayer()];

  constructor(private readonly store: AccountStore) {}

  async account(address: string): Promise<Account | undefined> {
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const found = this.layers[i].accounts.get(address);
      if (found) return structuredClone(found);
    }
    return this.store.account(address);
  }

  putAccount(account: Account): void {
    this.top().accounts.set(account.address!, account);
  }

  async entry<T extends object>(kind: EntryKind<T>, address: string, key: string): Promise<T | undefined> {
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const found = this.layers[i].entries.get(slot(kind, address))?.get(key);
      if (found !== undefined) return found === null ? undefined : (structuredClone(found) as T);
    }
    return this.store.entry(kind, address, key);
  }

  /** Sets (or with null deletes) one entry. */
  putEntry<T extends object>(kind: EntryKind<T>, address: string, key: string, value: T | null): void {
    this.setIn(this.top(), slot(kind, address), key, value);
  }

  /** Every entry of one kind of an account including pending writes, in key order. */
  async allEntries<T extends object>(kind: EntryKind<T>, address: string): Promise<T[]> {
    const merged = new Map<string, object | null>((await this.store.allEntries(kind, address)).map((v) => [kind.keyOf(v), v]));
    for (const layer of this.layers) for (const [k, v] of layer.entries.get(slot(kind, address)) ?? []) merged.set(k, v);
    return [...merged.entries()]
      .filter((e): e is [string, T] => e[1] !== null)
      .sort(byKey)
      .map(([, v]) => v);
  }

  metadata = (address: string, key: string) => this.entry(METADATA, address, key);

  checkpoint(): void {
    this.layers.push(newLayer());
  }

  commit(): void {
    const top = this.popLayer();
    const below = this.top();
    for (const [address, account] of top.accounts) below.accounts.set(address, account);
    for (const [s, entries] of top.entries) for (const [k, v] of entries) this.setIn(below, s, k, v);
  }

  rollback(): void {
    this.popLayer();
  }

  /** Addresses whose entries of `kind` changed. */
  touched(kind: EntryKind<object>): string[] {
    const prefix = `${kind.prefix}/`;
    return [...this.base().entries.keys()].filter((s) => s.startsWith(prefix)).map((s) => s.slice(prefix.length));
  }

  /** The writes of the whole view as the redo log stores them; deterministic order (by address, by key). */
  changes(): LedgerChanges {
    const base = this.base();
    const sorted = (kind: EntryKind<object>, address: string) => [...(base.entries.get(slot(kind, address)) ?? [])].sort(byKey);
    const accounts: AccountChange[] = [...base.accounts.keys()].sort().map((address) => {
      const metadatas: MetadataChange[] = sorted(METADATA, address).map(([key, value]) => (value === null ? { key, deleted: true } : { key, value }));
      const assets: AssetChange[] = sorted(ASSETS, address).map(([id, value]) => {
        const [issuer, code] = id.split("\u0000");
        return value === null ? { key: { issuer, code }, deleted: true } : { key: { issuer, code }, value };
      });
      return { account: base.accounts.get(address)!, ...(metadatas.length ? { metadatas } : {}), ...(assets.length ? { assets } : {}) };
    });
    return { accounts };
  }

  private base(): Layer {
    if (this.layers.length !== 1) throw new Error("state view has open checkpoints");
    return this.layers[0];
  }

  private top(): Layer {
    return this.layers[this.layers.length - 1];
  }

  private popLayer(): Layer {
    if (this.layers.length === 1) throw new Error("no checkpoint to close");
    return this.layers.pop()!;
  }

  private setIn(layer: Layer, s: string, key: string, value: object | null): void {
    let entries = layer.entries.get(s);
    if (!entries) layer.entries.set(s, (entries = new Map()));
    entries.set(key, value);
  }
}
