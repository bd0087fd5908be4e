/** The key whose value is the largest (the first of equals), or undefined for no entries. */
export function keyOfLargest<K, V extends number | bigint>(entries: Iterable<readonly [K, V]>): K | undefined {
  let best: { key: K; value: V } | undefined;
  for (const [key, value] of entries) if (!best || value > best.value) best = { key, value };
  return best?.key;
}

/** A Map that keeps only its `capacity` newest keys (by first insertion): adding one more drops the oldest. */
export class NewestMap<K, V> extends Map<K, V> {
  constructor(private readonly capacity: number) {
    super();
  }

  override set(key: K, value: V): this {
    super.set(key, value);
    for (const oldest of this.keys()) {
      if (this.size <= this.capacity) break;
      this.delete(oldest);
    }
    return this;
  }
}
