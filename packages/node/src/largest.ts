/** The key whose value is the largest (the first of equals), or undefined for no entries. */
export function keyOfLargest<K, V extends number | bigint>(entries: Iterable<readonly [K, V]>): K | undefined {
  let best: { key: K; value: V } | undefined;
  for (const [key, value] of entries) if (!best || value > best.value) best = { key, value };
  return best?.key;
}
