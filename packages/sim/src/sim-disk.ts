import { MemoryLevel } from "memory-level";
import { Databases, DATABASE_NAMES, type DatabaseName, type Db } from "@chainsim/node";

type Op = { type: "put"; key: Buffer; value: Buffer } | { type: "del"; key: Buffer };
const keyOf = (key: Buffer) => key.toString("latin1");
/**
 * memory-level's own write (abstract-level's `_batch`, not in its type declarations): what SimLevel's
 * writes end in, and how a restart loads what survived without counting it as new writes.
 */
const storeBatch = (MemoryLevel.prototype as unknown as { _batch(this: MemoryLevel<string, Uint8Array>, operations: Op[], options: object): Promise<void> })._batch;

/**
 * One database of the simulated disk: a memory-level store that also keeps what has reached the platter.
 * A synced write makes every earlier write of this database durable (LevelDB's log is written in order);
 * unsynced writes sit in the page cache until then. The node sees the abstract-level API it uses with
 * classic-level, `sync` included.
 */
class SimLevel extends MemoryLevel<string, Uint8Array> {
  /** Set when the process that wrote here crashed: its later writes never happen. */
  dead = false;

  constructor(
    private readonly platter: Platter,
    private readonly cache: Op[],
  ) {
    super({ valueEncoding: "view" });
  }

  async _put(key: Buffer, value: Buffer, options: { sync?: boolean }): Promise<void> {
    await this._batch([{ type: "put", key, value }], options);
  }

  async _del(key: Buffer, options: { sync?: boolean }): Promise<void> {
    await this._batch([{ type: "del", key }], options);
  }

  async _batch(operations: Op[], options: { sync?: boolean }): Promise<void> {
    if (this.dead) throw new Error("simulated crash: this process is gone");
    await storeBatch.call(this, operations, options);
    this.cache.push(...operations.map((op) => ({ ...op })));
    if (options.sync) flush(this.platter, this.cache, this.cache.length);
  }
}

type Platter = Map<string, Op & { type: "put" }>;

/** Writes the first `count` cached operations to the platter, in order. */
function flush(platter: Platter, cache: Op[], count: number): void {
  for (const op of cache.splice(0, count)) {
    if (op.type === "put") platter.set(keyOf(op.key), op);
    else platter.delete(keyOf(op.key));
  }
}

/**
 * A validator's disk in the simulation: its three databases in memory, with a model of what survives a
 * crash (docs/simulation.md). A process crash keeps everything written (the OS still holds the page cache);
 * a power cut keeps what was synced and, of the writes after the last sync, a prefix the seed chooses.
 */
export class SimDisk {
  private readonly platters = new Map<DatabaseName, Platter>(DATABASE_NAMES.map((name) => [name, new Map()]));
  private readonly caches = new Map<DatabaseName, Op[]>(DATABASE_NAMES.map((name) => [name, []]));
  private levels: Map<DatabaseName, SimLevel> | undefined;

  /** Opens the databases as they are on this disk now (a restart reads only what survived). */
  async open(): Promise<Databases> {
    const levels = new Map(DATABASE_NAMES.map((name) => [name, new SimLevel(this.platters.get(name)!, this.caches.get(name)!)] as const));
    for (const [name, level] of levels) {
      await level.open();
      const survived = [...this.platters.get(name)!.values(), ...this.caches.get(name)!];
      if (survived.length > 0) await storeBatch.call(level, survived, {});
    }
    this.levels = levels;
    // memory-level implements the abstract-level API that classic-level extends, which is all the node uses.
    return Databases.over(Object.fromEntries(levels) as unknown as Record<DatabaseName, Db>);
  }

  /**
   * The process died (kill -9): its open databases take no more writes; what it wrote stays, since the OS
   * holds it. With `powerCut`, unsynced writes are lost except a prefix of `keptFraction` of each database's.
   */
  crash(powerCut?: { keptFraction: number }): void {
    for (const level of this.levels?.values() ?? []) level.dead = true;
    this.levels = undefined;
    for (const [name, cache] of this.caches) {
      flush(this.platters.get(name)!, cache, powerCut ? Math.floor(cache.length * powerCut.keptFraction) : cache.length);
      cache.length = 0;
    }
  }

  /** Everything gone (the wipe fault). */
  wipe(): void {
    this.crash();
    for (const platter of this.platters.values()) platter.clear();
  }
}
