/** A virtual clock: actions run in time order (ties in scheduling order), and time jumps between them. */
export class VirtualClock {
  now = 0;
  private heap: { at: number; order: number; run: () => void }[] = [];
  private counter = 0;

  schedule(delayMs: number, run: () => void): void {
    this.push({ at: this.now + delayMs, order: this.counter++, run });
  }

  /** Runs actions until the queue is empty, `endMs` is reached, or `stop()` says so. */
  runUntil(endMs: number, stop: () => boolean = () => false): void {
    while (this.heap.length > 0 && this.heap[0].at <= endMs && !stop()) {
      const next = this.pop();
      this.now = next.at;
      next.run();
    }
    if (!stop()) this.now = Math.max(this.now, endMs);
  }

  private before(a: number, b: number): boolean {
    const x = this.heap[a];
    const y = this.heap[b];
    return x.at < y.at || (x.at === y.at && x.order < y.order);
  }

  private swap(a: number, b: number): void {
    [this.heap[a], this.heap[b]] = [this.heap[b], this.heap[a]];
  }

  private push(item: { at: number; order: number; run: () => void }): void {
    this.heap.push(item);
    for (let i = this.heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!this.before(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private pop(): { at: number; order: number; run: () => void } {
    const top = this.heap[0];
    const last = this.heap.pop()!;
    if (this.heap.length > 0) {
      this.heap[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < this.heap.length && this.before(l, m)) m = l;
        if (r < this.heap.length && this.before(r, m)) m = r;
        if (m === i) break;
        this.swap(i, m);
        i = m;
      }
    }
    return top;
  }
}
