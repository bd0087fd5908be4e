import type { VirtualClock } from "./clock.js";
import type { Prng } from "./prng.js";

export interface LinkConditions {
  minDelayMs: number;
  maxDelayMs: number;
  /** Probability that a message is lost. */
  dropRate: number;
  /** Probability that a message arrives twice (each copy with its own delay). */
  duplicateRate: number;
}

/** Chaos: messages are late, lost, duplicated, and (through random delays) reordered. */
export const CHAOTIC: LinkConditions = { minDelayMs: 1, maxDelayMs: 200, dropRate: 0.15, duplicateRate: 0.1 };
/** After healing: nothing lost or duplicated, short delays (messages still overtake each other). */
export const HEALED: LinkConditions = { minDelayMs: 1, maxDelayMs: 20, dropRate: 0, duplicateRate: 0 };

/** Point-to-point links between simulated nodes under the current conditions. */
export class Network<M> {
  conditions: LinkConditions = HEALED;
  /** A partition: messages between the two sides are lost. */
  blocked?: (from: number, to: number) => boolean;
  delivered = 0;

  constructor(
    private readonly clock: VirtualClock,
    private readonly random: Prng,
    private readonly deliver: (to: number, from: number, message: M) => void,
  ) {}

  /** `extraDelayMs` holds this message back longer than the links would (a slow path for one kind of message). */
  send(from: number, to: number, message: M, extraDelayMs = 0): void {
    const c = this.conditions;
    if (this.random.chance(c.dropRate) || this.blocked?.(from, to)) return;
    const copies = this.random.chance(c.duplicateRate) ? 2 : 1;
    for (let i = 0; i < copies; i++) {
      this.clock.schedule(extraDelayMs + this.random.int(c.minDelayMs, c.maxDelayMs), () => {
        this.delivered++;
        this.deliver(to, from, message);
      });
    }
  }
}
