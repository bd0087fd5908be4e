import { concatBytes, utf8 } from "@chainsim/protocol";
import { sha256 } from "@chainsim/protocol/node-crypto";

const BUCKET_BITS = 12;
const BUCKETS = 1 << BUCKET_BITS;
const EMPTY = new Uint8Array(32);

/**
 * account_tree_hash: a two-level hash over every account. An account's leaf is sha256 of its stored
 * encoding; accounts fall into 4,096 buckets by the hash of their address; a bucket hashes its
 * (address hash, leaf) pairs in address order; the root hashes the bucket hashes. A ledger rehashes only
 * the buckets it touched, so the cost follows the ledger's size, not the chain's.
 */
export class AccountTree {
  private readonly buckets: Map<string, Uint8Array>[] = Array.from({ length: BUCKETS }, () => new Map());
  private readonly bucketHashes: Uint8Array[] = Array.from({ length: BUCKETS }, () => EMPTY);

  /** Number of accounts. */
  size = 0;

  static leaf(encodedAccount: Uint8Array): Uint8Array {
    return sha256(encodedAccount);
  }

  /** Loads leaves without hashing buckets; call `rehashAll` once after loading. */
  load(address: string, leaf: Uint8Array): void {
    this.buckets[bucketOf(address)].set(address, leaf);
    this.size++;
  }

  rehashAll(): void {
    for (let i = 0; i < BUCKETS; i++) this.bucketHashes[i] = hashBucket(this.buckets[i]);
  }

  /** The root if `updates` (address → new leaf) were applied, and a function that applies them. */
  preview(updates: Map<string, Uint8Array>): { root: Uint8Array; apply: () => void } {
    const touched = new Map<number, Map<string, Uint8Array>>();
    for (const [address, leaf] of updates) {
      const index = bucketOf(address);
      let bucket = touched.get(index);
      if (!bucket) touched.set(index, (bucket = new Map(this.buckets[index])));
      bucket.set(address, leaf);
    }
    const hashes = this.bucketHashes.slice();
    for (const [index, bucket] of touched) hashes[index] = hashBucket(bucket);
    return {
      root: sha256(concatBytes(...hashes)),
      apply: () => {
        for (const [index, bucket] of touched) {
          this.size += bucket.size - this.buckets[index].size;
          this.buckets[index] = bucket;
          this.bucketHashes[index] = hashes[index];
        }
      },
    };
  }
}

function bucketOf(address: string): number {
  const h = sha256(utf8(address));
  return ((h[0] << 8) | h[1]) >>> (16 - BUCKET_BITS);
}

function hashBucket(bucket: Map<string, Uint8Array>): Uint8Array {
  if (bucket.size === 0) return EMPTY;
  const addresses = [...bucket.keys()].sort();
  return sha256(concatBytes(...addresses.flatMap((a) => [sha256(utf8(a)), bucket.get(a)!])));
}
