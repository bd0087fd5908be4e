import { codecs, type Account, type LedgerChanges } from "@chainsim/protocol";
import { ASSETS, METADATA, assetId, type EntryKind } from "../state/entries.js";
import type { Db } from "./databases.js";

const APPLIED_SEQ = "applied_seq";

export function accountKey(address: string): string {
  return "a/" + address;
}
export function entryKey(kind: EntryKind<object>, address: string, key: string): string {
  return `${kind.prefix}/${address}\u0000${key}`;
}

/** account_db: the state after the last applied ledger. Accounts and their entries are stored apart. */
export class AccountStore {
  constructor(private readonly db: Db) {}

  async account(address: string): Promise<Account | undefined> {
    const v = await this.db.get(accountKey(address));
    return v && codecs.Account.decode(v);
  }

  async entry<T extends object>(kind: EntryKind<T>, address: string, key: string): Promise<T | undefined> {
    const v = await this.db.get(entryKey(kind, address, key));
    return v && kind.codec.decode(v);
  }

  /** Every entry of one kind of an account, in key order. */
  async allEntries<T extends object>(kind: EntryKind<T>, address: string): Promise<T[]> {
    const out: T[] = [];
    const prefix = `${kind.prefix}/${address}\u0000`;
    for await (const [, v] of this.db.iterator({ gte: prefix, lt: `${kind.prefix}/${address}\u0001` })) out.push(kind.codec.decode(v));
    return out;
  }

  /** Every stored account's encoding, for rebuilding the account tree at start-up. */
  async *encodedAccounts(): AsyncGenerator<[string, Uint8Array]> {
    for await (const [k, v] of this.db.iterator({ gte: "a/", lt: "a0" })) yield [k.slice(2), v];
  }

  async appliedSeq(): Promise<bigint> {
    const v = await this.db.get(APPLIED_SEQ);
    return v ? BigInt(new TextDecoder().decode(v)) : 0n;
  }

  /** Applies one ledger's changes with its seq, atomically and synced. Idempotent, so redo is safe. */
  async apply(seq: bigint, changes: LedgerChanges): Promise<void> {
    const batch = this.db.batch();
    for (const change of changes.accounts ?? []) {
      const address = change.account!.address!;
      batch.put(accountKey(address), codecs.Account.encode(change.account!));
      for (const m of change.metadatas ?? []) {
        const key = entryKey(METADATA, address, m.key ?? "");
        if (m.deleted) batch.del(key);
        else batch.put(key, codecs.KeyPair.encode(m.value!));
      }
      for (const a of change.assets ?? []) {
        const key = entryKey(ASSETS, address, assetId(a.key ?? {}));
        if (a.deleted) batch.del(key);
        else batch.put(key, codecs.Asset.encode(a.value!));
      }
    }
    batch.put(APPLIED_SEQ, new TextEncoder().encode(seq.toString()));
    await batch.write({ sync: true });
  }
}
