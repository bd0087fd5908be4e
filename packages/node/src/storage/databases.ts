import { ClassicLevel } from "classic-level";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";

export type Db = ClassicLevel<string, Uint8Array>;

/** The three LevelDB databases of a node, named as getModulesStatus reports them. */
export const DATABASE_NAMES = ["account_db", "keyvalue_db", "ledger_db"] as const;
export type DatabaseName = (typeof DATABASE_NAMES)[number];

/**
 * - ledger_db: ledger headers, transaction records, and each ledger's state changes (the redo log).
 *   Its per-ledger batch is the commit point.
 * - account_db: the current state (accounts and their metadata), a projection of ledger_db.
 * - keyvalue_db: node-local facts: the chain identity a data directory belongs to (later: consensus votes).
 */
export class Databases {
  private constructor(
    readonly dir: string,
    readonly dbs: Record<DatabaseName, Db>,
  ) {}

  static async open(dir: string): Promise<Databases> {
    const entries = DATABASE_NAMES.map((name) => [name, new ClassicLevel<string, Uint8Array>(join(dir, name), { valueEncoding: "view" })] as const);
    await Promise.all(entries.map(([, db]) => db.open({ createIfMissing: true })));
    return new Databases(dir, Object.fromEntries(entries) as Record<DatabaseName, Db>);
  }

  get ledger(): Db {
    return this.dbs.ledger_db;
  }
  get account(): Db {
    return this.dbs.account_db;
  }
  get keyvalue(): Db {
    return this.dbs.keyvalue_db;
  }

  async close(): Promise<void> {
    await Promise.all(Object.values(this.dbs).map((db) => db.close()));
  }

  /** Bytes on disk of one database directory. */
  async diskUsage(name: DatabaseName): Promise<number> {
    const dir = join(this.dir, name);
    let total = 0;
    for (const file of await readdir(dir)) total += (await stat(join(dir, file))).size;
    return total;
  }
}

/** Fixed-width hex so that lexicographic key order is numeric order. */
export function seqKey(prefix: string, seq: bigint): string {
  return prefix + seq.toString(16).padStart(16, "0");
}
