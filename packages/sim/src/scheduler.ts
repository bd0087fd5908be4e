import { createHash, type Hash } from "node:crypto";
import type { Clock, ClockTimer } from "@chainsim/node";
import type { TraceEntry } from "./trace.js";

/** A trace entry without its time (the scheduler stamps it). */
type Untimed<T> = T extends unknown ? Omit<T, "t"> : never;

/** Where the simulation's virtual time starts (ms since the epoch): a fixed instant, so every run is alike. */
export const SIM_EPOCH_MS = Date.UTC(2026, 0, 1);

interface Scheduled {
  at: number;
  /** Ties at one instant run in the order they were scheduled. */
  order: number;
  owner: string;
  label: string;
  run: () => void;
  cancelled: boolean;
}

/** Something the simulation's own code waits for outside the event loop's microtasks (a contract run). */
export interface PendingWork {
  /** How many such operations are under way. */
  readonly pending: number;
}

/**
 * The simulation's one clock and event queue (docs/simulation.md). Time moves only here: an event runs,
 * then everything it set off settles (the microtasks it queued, and every contract run it started) before
 * the clock advances to the next event. Each event is written into the trace, whose hash is the run's
 * fingerprint: the same seed gives the same hash.
 */
export class Scheduler {
  private queue: Scheduled[] = [];
  private order = 0;
  private time = SIM_EPOCH_MS;
  private readonly hash: Hash = createHash("sha256");
  private readonly work: PendingWork[] = [];
  /** Events of paused owners, by owner. */
  private readonly held = new Map<string, Scheduled[]>();
  /** Every trace entry, when asked for (`--trace`, `--view`); otherwise only hashed. */
  readonly entries: TraceEntry[] | undefined;
  private nextMessage = 0;
  events = 0;

  constructor(keepTrace: boolean) {
    this.entries = keepTrace ? [] : undefined;
  }

  now(): number {
    return this.time;
  }

  /** Milliseconds of virtual time since the run began. */
  get elapsed(): number {
    return this.time - SIM_EPOCH_MS;
  }

  /** Runs `run` at `delayMs` from now; `owner` names whose it is, so that a crash can drop them all. */
  at(delayMs: number, owner: string, label: string, run: () => void): Scheduled {
    const event = { at: this.time + Math.max(0, Math.floor(delayMs)), order: this.order++, owner, label, run, cancelled: false };
    this.insert(event);
    return event;
  }

  /** Drops every event of `owner` not yet run (a validator that crashed or stopped). */
  cancelOwner(owner: string): void {
    for (const event of this.queue) if (event.owner === owner) event.cancelled = true;
  }

  /** Adds an entry to the trace at the current time (hashed always, kept when asked for). */
  trace(entry: Untimed<TraceEntry>): void {
    const stamped = { t: this.elapsed, ...entry } as TraceEntry;
    this.hash.update(JSON.stringify(stamped) + "\n");
    this.entries?.push(stamped);
  }

  /** A new message id for the trace's send/recv pairs. */
  messageId(): number {
    return this.nextMessage++;
  }

  /** The sha256 of every traced line so far, hex. */
  traceHash(): string {
    return this.hash.copy().digest("hex");
  }

  /** Work outside the microtask queue that an event may start and the clock must wait for. */
  watch(work: PendingWork): void {
    this.work.push(work);
  }

  /**
   * A Clock for one incarnation of validator `owner`: virtual time, and timers on this queue until
   * `retire()` (the process died: whatever its code still runs can set no timer).
   */
  clockFor(owner: string): Clock & { retire(): void } {
    let retired = false;
    const inert = { cancelled: true } as unknown as ClockTimer;
    return {
      now: () => this.time,
      elapsed: () => this.time,
      setTimeout: (callback, ms) => (retired ? inert : (this.at(ms, owner, "timeout", callback) as unknown as ClockTimer)),
      setInterval: (callback, ms) => {
        if (retired) return inert;
        const interval = { cancelled: false };
        const arm = () =>
          this.at(Math.max(1, ms), owner, "interval", () => {
            if (interval.cancelled || retired) return;
            arm();
            callback();
          });
        arm();
        return interval as unknown as ClockTimer;
      },
      clear: (timer) => {
        if (timer) (timer as unknown as { cancelled: boolean }).cancelled = true;
      },
      retire: () => {
        retired = true;
      },
    };
  }

  /** Holds every event of `owner` (deliveries and timers) until `resume` (a paused process). */
  pause(owner: string): void {
    if (!this.held.has(owner)) this.held.set(owner, []);
  }

  /** Runs what was held for `owner` now, in its order. */
  resume(owner: string): void {
    const held = this.held.get(owner) ?? [];
    this.held.delete(owner);
    for (const event of held) {
      event.at = this.time;
      this.insert(event);
    }
  }

  /**
   * Runs events in time order until `untilMs` of virtual time have passed or `stop()` says so; after each
   * event, waits until what it set off has settled.
   */
  async run(untilMs: number, stop: () => boolean = () => false): Promise<void> {
    const end = SIM_EPOCH_MS + untilMs;
    while (!stop()) {
      const next = this.pop();
      if (!next || next.at > end) {
        if (next) this.insert(next);
        this.time = Math.max(this.time, end);
        return;
      }
      this.time = next.at;
      const held = this.held.get(next.owner);
      if (held) {
        held.push(next);
        continue;
      }
      this.events++;
      if (next.label === "timeout" || next.label === "interval") this.trace({ kind: "timer", node: next.owner, what: next.label });
      next.run();
      await this.settle();
    }
  }

  /** Waits until no watched work is under way and the microtasks it led to have run. */
  async settle(): Promise<void> {
    for (;;) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.work.every((work) => work.pending === 0)) return;
    }
  }

  private pop(): Scheduled | undefined {
    for (;;) {
      const event = this.queue.shift();
      if (!event || !event.cancelled) return event;
    }
  }

  /** Keeps the queue sorted by (at, order); binary search, since most events land near the end. */
  private insert(event: Scheduled): void {
    let low = 0;
    let high = this.queue.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const other = this.queue[mid]!;
      if (other.at < event.at || (other.at === event.at && other.order < event.order)) low = mid + 1;
      else high = mid;
    }
    this.queue.splice(low, 0, event);
  }
}
