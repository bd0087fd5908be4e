/**
 * Time as a validator sees it: the system's in a validator process, a virtual one in the whole-network
 * simulation (docs/simulation.md), where nothing may read the real clock. Every timer and every reading of
 * time in the ledger-moving parts of the node (consensus, sync, gossip, the pool) goes through one of these.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** A monotonic reading in milliseconds, for measuring how long work took. */
  elapsed(): number;
  setTimeout(callback: () => void, ms: number): ClockTimer;
  setInterval(callback: () => void, ms: number): ClockTimer;
  /** Cancels a timeout or an interval; undefined and spent timers are ignored. */
  clear(timer: ClockTimer | undefined): void;
}

/** A timer handle; only the clock that made it can clear it. */
export type ClockTimer = { readonly __clockTimer: true };

export const systemClock: Clock = {
  now: () => Date.now(),
  elapsed: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms) as unknown as ClockTimer,
  setInterval: (callback, ms) => setInterval(callback, ms) as unknown as ClockTimer,
  clear: (timer) => clearTimeout(timer as unknown as NodeJS.Timeout),
};
