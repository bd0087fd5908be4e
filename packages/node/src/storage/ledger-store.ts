import { codecs, toHex, type LedgerChanges, type LedgerDecision, type RawTransactionEnvStore, type StoredLedger } from "@chainsim/protocol";
import { seqKey, type Db } from "./databases.js";

const LAST_SEQ = "last_seq";
const TX_COUNT = "tx_count";

/** Everything one closed ledger writes to ledger_db, in one synced batch. */
export interface ClosedLedger {
  ledger: StoredLedger;
  records: RawTransactionEnvStore[];
  changes: LedgerChanges;
  /** Signed (user) transactions on chain after this ledger. */
  txCount: bigint;
  /** How consensus decided it (absent for the genesis): served to validators that sync. */
  decision?: LedgerDecision;
}

/** ledger_db: headers and consensus decisions by seq, records by hash, and the redo log of state changes. */
export class LedgerStore {
  constructor(private readonly db: Db) {}

  async lastSeq(): Promise<bigint> {
    const v = await this.db.get(LAST_SEQ);
    return v ? BigInt(new TextDecoder().decode(v)) : 0n;
  }

  async txCount(): Promise<bigint> {
    const v = await this.db.get(TX_COUNT);
    return v ? BigInt(new TextDecoder().decode(v)) : 0n;
  }

  /**
   * The commit point of a ledger: header, records and state changes land together or not at all, and
   * are on disk (synced) before the call returns. The previous ledger's redo entry goes in the same
   * batch: account_db had applied and synced it before this ledger started.
   */
  async write(closed: ClosedLedger): Promise<void> {
    const seq = closed.ledger.header!.seq!;
    const enc = new TextEncoder();
    const batch = this.db.batch();
    batch.put(seqKey("h/", seq), codecs.StoredLedger.encode(closed.ledger));
    for (const record of closed.records) batch.put("t/" + toHex(record.hash!), codecs.RawTransactionEnvStore.encode(record));
    batch.put(seqKey("c/", seq), codecs.LedgerChanges.encode(closed.changes));
    if (closed.decision) batch.put(seqKey("d/", seq), codecs.LedgerDecision.encode(closed.decision));
    if (seq > 1n) batch.del(seqKey("c/", seq - 1n));
    batch.put(LAST_SEQ, enc.encode(seq.toString()));
    batch.put(TX_COUNT, enc.encode(closed.txCount.toString()));
    await batch.write({ sync: true });
  }

  async ledger(seq: bigint): Promise<StoredLedger | undefined> {
    const v = await this.db.get(seqKey("h/", seq));
    return v && codecs.StoredLedger.decode(v);
  }

  async decision(seq: bigint): Promise<LedgerDecision | undefined> {
    const v = await this.db.get(seqKey("d/", seq));
    return v && codecs.LedgerDecision.decode(v);
  }

  async record(hashHex: string): Promise<RawTransactionEnvStore | undefined> {
    const v = await this.db.get("t/" + hashHex);
    return v && codecs.RawTransactionEnvStore.decode(v);
  }

  async changes(seq: bigint): Promise<LedgerChanges | undefined> {
    const v = await this.db.get(seqKey("c/", seq));
    return v && codecs.LedgerChanges.decode(v);
  }
}
