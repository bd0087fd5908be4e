import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Metered texts on disk, so that a contract is instrumented once per validator, when it is deployed, and not
 * again whenever the worker's memory cache lost it (docs/contracts.md §13, "Preparing a contract's code").
 * Instrumenting is not charged by the clock, and its cost (1-16 ms a KB) is far above what calling a contract
 * is charged: one transaction calling 36 contracts in turn, more metered text than the memory cache holds,
 * held a validator's ledger worker for three minutes (review of 2026-11-27). Reading a text back takes
 * milliseconds.
 *
 * A file holds the sha256 of the text, then the text in UTF-16LE (exact, lone surrogates included); one
 * whose digest does not match is ignored, so a torn or damaged file costs an instrumenting, never a
 * different text. The directory is named after this build of the instrumenter (BUILD), and directories of
 * other builds are removed when a store opens: a new chainsim may meter differently.
 */
export class MeteredStore {
  private readonly dir: string;
  /** The files this store holds and their sizes, oldest first (a writable store only). */
  private readonly files = new Map<string, number>();
  private bytes = 0;

  /**
   * `writable`: this process stores what it instruments (a validator's ledger worker); others only read.
   * `maxBytes`: past this, the oldest files go (STORE_MAX_BYTES).
   */
  constructor(
    root: string,
    private readonly writable: boolean,
    private readonly maxBytes = STORE_MAX_BYTES,
  ) {
    this.dir = path.join(root, BUILD);
    if (!writable) return;
    mkdirSync(this.dir, { recursive: true });
    for (const entry of readdirSync(root)) if (entry !== BUILD) rmSync(path.join(root, entry), { recursive: true, force: true });
    const found = readdirSync(this.dir).map((name) => ({ name, stat: statSync(path.join(this.dir, name)) }));
    for (const { name, stat } of found.sort((a, b) => a.stat.mtimeMs - b.stat.mtimeMs || (a.name < b.name ? -1 : 1))) {
      // what a writer killed mid-write left
      if (name.endsWith(".partial")) rmSync(path.join(this.dir, name), { force: true });
      else this.remember(name, stat.size);
    }
  }

  /** The text stored under `key` (the source's sha256, hex), if a whole one is there. */
  get(key: string): string | undefined {
    let bytes: Buffer;
    try {
      bytes = readFileSync(path.join(this.dir, key));
    } catch {
      return undefined;
    }
    const text = bytes.subarray(DIGEST_BYTES);
    if (text.length % 2 !== 0 || !createHash("sha256").update(text).digest().equals(bytes.subarray(0, DIGEST_BYTES))) return undefined;
    return text.toString("utf16le");
  }

  /** Stores `text` under `key`: written aside, then renamed, so that a reader never sees half of it. */
  put(key: string, text: string): void {
    if (!this.writable) return;
    const body = Buffer.from(text, "utf16le");
    const file = path.join(this.dir, key);
    const partial = `${file}.${process.pid}.partial`;
    try {
      writeFileSync(partial, Buffer.concat([createHash("sha256").update(body).digest(), body]));
      renameSync(partial, file);
      this.remember(key, DIGEST_BYTES + body.length);
    } catch {
      // a cache: a full or read-only disk costs instrumenting again, nothing else
      rmSync(partial, { force: true });
    }
  }

  /** Counts a file in, then removes the oldest ones while the store holds more than `maxBytes`. */
  private remember(name: string, size: number): void {
    this.bytes += size - (this.files.get(name) ?? 0);
    this.files.delete(name);
    this.files.set(name, size);
    for (const [oldest, oldSize] of this.files) {
      if (this.bytes <= this.maxBytes || oldest === name) break;
      rmSync(path.join(this.dir, oldest), { force: true });
      this.files.delete(oldest);
      this.bytes -= oldSize;
    }
  }
}

/**
 * What a store may hold on disk, 256 of the largest metered texts (2 Mi characters, 4 MiB each). Texts
 * of code checked for deployments that were then reverted are kept too (about 5 MB a transaction, for its
 * fee), so without a bound the directory grew without end (review of 2026-11-27); past it, the oldest texts
 * go, and their contracts are instrumented again when next called.
 */
export const STORE_MAX_BYTES = 1 << 30;

const DIGEST_BYTES = 32;

/** This instrumenter's build: its own compiled code and acorn's version decide what a source meters to. */
const BUILD = (() => {
  const require = createRequire(import.meta.url);
  const acornVersion = (require("acorn/package.json") as { version: string }).version;
  const here = path.dirname(fileURLToPath(import.meta.url));
  return createHash("sha256")
    .update(readFileSync(path.join(here, "instrument.js")))
    .update(acornVersion)
    .digest("hex")
    .slice(0, 16);
})();
