import { ClassicLevel } from "classic-level";
import { ChainError, ErrorCode } from "@chainsim/protocol";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";

/**
 * A LevelDB database. The simulation's in-memory disk (packages/sim) stands in with the same abstract-level API
 * for what the ledger-moving code uses (docs/simulation.md), the `sync` write option included.
 */
export type Db = ClassicLevel<string, Uint8Array>;

/** The three LevelDB databases of a node, named as getModulesStatus reports them. */
export const DATABASE_NAMES = ["account_db", "keyvalue_db", "ledger_db"] as const;
export type DatabaseName = (typeof DATABASE_NAMES)[number];

/**
 * The layout of the databases this code reads and writes. A change of layout raises it, and a data directory
 * of an older format is migrated when opened or refused with what to do; one of a newer format is refused,
 * never read wrongly (docs/operations.md, "Upgrading a network"). Data directories written before the marker
 * existed are format 1.
 */
export const STORAGE_FORMAT = 1;
const STORAGE_FORMAT_KEY = "storage_format";

/**
 * - ledger_db: ledger headers, transaction records, and each ledger's state changes (the redo log).
 *   Its per-ledger batch is the commit point.
 * - account_db: the current state (accounts and their metadata), a projection of ledger_db.
 * - keyvalue_db: node-local facts: the storage format, the chain identity a data directory belongs to, consensus votes.
 */
export class Databases {
  private constructor(
    /** The data directory; undefined for databases that live in memory (the simulation's disk model). */
    readonly dir: string | undefined,
    readonly dbs: Record<DatabaseName, Db>,
  ) {}

  /** The LevelDB databases of the data directory `dir`, created when missing. */
  static open(dir: string): Promise<Databases> {
    const levels = Object.fromEntries(DATABASE_NAMES.map((name) => [name, new ClassicLevel<string, Uint8Array>(join(dir, name), { valueEncoding: "view" })]));
    return Databases.over(levels as Record<DatabaseName, Db>, dir);
  }

  /** Databases given as abstract-level stores (values as Uint8Array views), opened and format-checked here. */
  static async over(levels: Record<DatabaseName, Db>, dir?: string): Promise<Databases> {
    await Promise.all(Object.values(levels).map((db) => db.open({ createIfMissing: true })));
    const dbs = new Databases(dir, levels);
    try {
      await dbs.checkFormat();
    } catch (error) {
      await dbs.close();
      throw error;
    }
    return dbs;
  }

  private async checkFormat(): Promise<void> {
    const stored = await this.keyvalue.get(STORAGE_FORMAT_KEY);
    const text = stored === undefined ? String(STORAGE_FORMAT) : new TextDecoder().decode(stored);
    if (!/^[1-9]\d{0,8}$/.test(text)) {
      throw new ChainError(ErrorCode.INVALID_PARAMETER, `the data directory ${this.dir} has an unreadable storage format ${JSON.stringify(text.slice(0, 20))}: restore it from a backup`);
    }
    const format = Number(text);
    if (format > STORAGE_FORMAT) {
      throw new ChainError(
        ErrorCode.INVALID_PARAMETER,
        `the data directory ${this.dir} has storage format ${format}, written by a newer chainsim; this one reads format ${STORAGE_FORMAT}: ` +
          "run the newer chainsim, or restore a backup taken before the upgrade (docs/operations.md)",
      );
    }
    if (stored === undefined) await this.keyvalue.put(STORAGE_FORMAT_KEY, new TextEncoder().encode(String(STORAGE_FORMAT)), { sync: true });
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

  /** Bytes on disk of one database directory (0 in memory). */
  async diskUsage(name: DatabaseName): Promise<number> {
    if (this.dir === undefined) return 0;
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
