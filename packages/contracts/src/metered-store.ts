import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Metered code on disk (JavaScript texts, wasm modules), so that a contract is instrumented once per
 * validator, when it is deployed, and not again whenever the worker's memory cache lost it
 * (docs/contracts.md §13, "Preparing a contract's code"). Instrumenting is not charged by the clock, and its cost (1-16 ms a KB) is far above what calling a contract
 * is charged: one transaction calling 36 contracts in turn, more metered text than the memory cache holds,
 * held a validator's ledger worker for three minutes (review of 2026-11-27). Reading a text back takes
 * milliseconds.
 *
 * A file holds the sha256 of the content, then the content (a text in UTF-16LE: exact, lone surrogates
 * included); one whose digest does not match is ignored, so a torn or damaged file costs an instrumenting,
 * never different code. The directory is named after the build of the instrumenter (`build`, see
 * instrumenterBuild), and directories of other builds are removed when a store opens: a new chainsim may
 * meter differently. Each kind of code has a root of its own.
 */
export class MeteredStore {
  private readonly dir: string;
  /** The files this store holds and their sizes, oldest first (a writable store only). */
  private readonly files = new Map<string, number>();
  private bytes = 0;

  /**
   * `writable`: this process stores what it instruments (a validator's ledger worker); others only read.
   * `build`: names the instrumenter that made the content (instrumenterBuild).
   * `maxBytes`: past this, the oldest files go (STORE_MAX_BYTES).
   */
  constructor(
    root: string,
    private readonly writable: boolean,
    build: string,
    private readonly maxBytes = STORE_MAX_BYTES,
  ) {
    this.dir = path.join(root, build);
    if (!writable) return;
    mkdirSync(this.dir, { recursive: true });
    for (const entry of readdirSync(root)) if (entry !== build) rmSync(path.join(root, entry), { recursive: true, force: true });
    const found = readdirSync(this.dir).map((name) => ({ name, stat: statSync(path.join(this.dir, name)) }));
    for (const { name, stat } of found.sort((a, b) => a.stat.mtimeMs - b.stat.mtimeMs || (a.name < b.name ? -1 : 1))) {
      // what a writer killed mid-write left
      if (name.endsWith(".partial")) rmSync(path.join(this.dir, name), { force: true });
      else this.remember(name, stat.size);
    }
  }

  /** The text stored under `key` (the source's sha256, hex), if a whole one is there. */
  get(key: string): string | undefined {
    const bytes = this.getBytes(key);
    return bytes && bytes.length % 2 === 0 ? bytes.toString("utf16le") : undefined;
  }

  /** Stores `text` under `key`. */
  put(key: string, text: string): void {
    this.putBytes(key, Buffer.from(text, "utf16le"));
  }

  /** The bytes stored under `key`, if a whole copy is there. */
  getBytes(key: string): Buffer | undefined {
    let bytes: Buffer;
    try {
      bytes = readFileSync(path.join(this.dir, key));
    } catch {
      return undefined;
    }
    const body = bytes.subarray(DIGEST_BYTES);
    return createHash("sha256").update(body).digest().equals(bytes.subarray(0, DIGEST_BYTES)) ? body : undefined;
  }

  /** Stores `body` under `key`: written aside, then renamed, so that a reader never sees half of it. */
  putBytes(key: string, body: Uint8Array): void {
    if (!this.writable) return;
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

/**
 * Names a build of an instrumenter: the hash of its compiled files and of the versions of the libraries it
 * uses, so that a store never serves code metered by another build.
 */
export function instrumenterBuild(files: string[], packages: string[]): string {
  const require = createRequire(import.meta.url);
  const hash = createHash("sha256");
  for (const file of files) hash.update(readFileSync(fileURLToPath(file)));
  for (const name of packages) hash.update((require(`${name}/package.json`) as { version: string }).version);
  return hash.digest("hex").slice(0, 16);
}
