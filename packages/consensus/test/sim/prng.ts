import { seededRandom } from "@chainsim/protocol";

/** The protocol's seeded PRNG with helpers, so every simulation run is reproducible from its seed. */
export class Prng {
  /** Uniform in [0, 1). */
  readonly next: () => number;

  constructor(seed: number) {
    this.next = seededRandom(seed);
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  /** k distinct items of `items`, in random order. */
  pick<T>(items: T[], k: number): T[] {
    const pool = [...items];
    for (let i = pool.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [pool[i], pool[j]] = [pool[j], pool[i]];
    }
    return pool.slice(0, k);
  }
}
