import { codecs, type Account, type KeyPair, type LedgerChanges } from "@chainsim/protocol";
import type { Db } from "./databases.js";

const APPLIED_SEQ = "applied_seq";
const METADATA_END = "\u0001";

export function accountKey(address: string): string {
  return "a/" + address;
}
export function metadataKey(address: string, key: string): string {
  return `m/${address}\u0000${key}`;
}

/** account_db: the state after the last applied ledger. Accounts and metadata are stored apart. */
export class AccountStore {
  constructor(private readonly db: Db) {}

  async account(address: string): Promise<Account | undefined> {
    const v = await this.db.get(accountKey(address));
    return v && codecs.Account.decode(v);
  }

  async metadata(address: string, key: string): Promise<KeyPair | undefined> {
    const v = await this.db.get(metadataKey(address, key));
    return v && codecs.KeyPair.decode(v);
  }

  /** All metadata of an account in key order. */
  async allMetadata(address: string): Promise<KeyPair[]> {
    const out: KeyPair[] = [];
    const prefix = `m/${address}\u0000`;
    for await (const [, v] of this.db.iterator({ gte: prefix, lt: `m/${address}${METADATA_END}` })) out.push(codecs.KeyPair.decode(v));
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
      const account = change.account!;
      batch.put(accountKey(account.address!), codecs.Account.encode(account));
      for (const m of change.metadatas ?? []) {
        const key = metadataKey(account.address!, m.key ?? "");
        if (m.deleted) batch.del(key);
        else batch.put(key, codecs.KeyPair.encode(m.value!));
      }
    }
    batch.put(APPLIED_SEQ, new TextEncoder().encode(seq.toString()));
    await batch.write({ sync: true });
  }
}
