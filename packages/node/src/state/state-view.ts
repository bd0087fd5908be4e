import type { Account, AccountChange, KeyPair, LedgerChanges } from "@chainsim/protocol";
import type { AccountStore } from "../storage/account-store.js";

interface Layer {
  accounts: Map<string, Account>;
  /** address → key → new value, or null for deleted. */
  metadata: Map<string, Map<string, KeyPair | null>>;
}

const newLayer = (): Layer => ({ accounts: new Map(), metadata: new Map() });

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

  async metadata(address: string, key: string): Promise<KeyPair | undefined> {
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const found = this.layers[i].metadata.get(address)?.get(key);
      if (found !== undefined) return found === null ? undefined : { ...found };
    }
    return this.store.metadata(address, key);
  }

  /** Sets (or with null deletes) one metadata entry. */
  putMetadata(address: string, key: string, value: KeyPair | null): void {
    const top = this.top().metadata;
    let entries = top.get(address);
    if (!entries) top.set(address, (entries = new Map()));
    entries.set(key, value);
  }

  /** All metadata of an account including pending writes, in key order. */
  async allMetadata(address: string): Promise<KeyPair[]> {
    const merged = new Map((await this.store.allMetadata(address)).map((kp) => [kp.key ?? "", kp as KeyPair | null]));
    for (const layer of this.layers) for (const [k, v] of layer.metadata.get(address) ?? []) merged.set(k, v);
    return [...merged.entries()]
      .filter((e): e is [string, KeyPair] => e[1] !== null)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, v]) => v);
  }

  checkpoint(): void {
    this.layers.push(newLayer());
  }

  commit(): void {
    const top = this.popLayer();
    const below = this.top();
    for (const [address, account] of top.accounts) below.accounts.set(address, account);
    for (const [address, entries] of top.metadata) for (const [k, v] of entries) this.putMetadataIn(below, address, k, v);
  }

  rollback(): void {
    this.popLayer();
  }

  /** Addresses whose metadata changed. */
  metadataTouched(): string[] {
    return [...this.base().metadata.keys()];
  }

  /** The writes of the whole view as the redo log stores them; deterministic order (by address). */
  changes(): LedgerChanges {
    const base = this.base();
    const addresses = [...base.accounts.keys()].sort();
    const accounts: AccountChange[] = addresses.map((address) => {
      const metadatas = [...(base.metadata.get(address) ?? [])]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, value]) => (value === null ? { key, deleted: true } : { key, value }));
      return { account: base.accounts.get(address)!, ...(metadatas.length ? { metadatas } : {}) };
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

  private putMetadataIn(layer: Layer, address: string, key: string, value: KeyPair | null): void {
    let entries = layer.metadata.get(address);
    if (!entries) layer.metadata.set(address, (entries = new Map()));
    entries.set(key, value);
  }
}
