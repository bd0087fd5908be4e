import type { StatusSample } from "./invariants/history.js";
import type { SimLoad } from "./load.js";
import type { PendingTasks } from "./pending.js";
import type { Scheduler } from "./scheduler.js";
import type { SimValidator } from "./sim-validator.js";

/** How often status is sampled (as the scenario's sampler reads getConsensusInfo) and a client retries. */
const SAMPLE_MS = 250;
export const RESUBMIT_MS = 2_000;

export interface ClientDriverParts {
  scheduler: Scheduler;
  tasks: PendingTasks;
  load: SimLoad;
  validators: SimValidator[];
  /** The seeded draws of which validator a step goes to, and when the next comes. */
  pick: () => number;
  fail: (invariant: string) => (error: unknown) => void;
}

/**
 * The clients of a run (docs/simulation.md, "Load"): a load step every 50-250 ms to a validator the seed
 * picks while `loading`, a retry every 2 s of what was accepted and is not yet committed, and a status
 * sample of every validator every 250 ms.
 */
export class ClientDriver {
  /** Accepted transactions seen in the reference validator's ledgers. */
  readonly committed = new Set<string>();
  readonly samples: StatusSample[] = [];
  loading = true;

  constructor(private readonly parts: ClientDriverParts) {}

  start(): void {
    const { scheduler } = this.parts;
    scheduler.at(0, "load", "load", () => this.step());
    scheduler.at(RESUBMIT_MS, "load", "resubmit", () => this.retry());
    scheduler.at(SAMPLE_MS, "sampler", "sample", () => this.sample());
  }

  private anyValidator(): SimValidator {
    const { validators, pick } = this.parts;
    return validators[Math.floor(pick() * validators.length)]!;
  }

  private step(): void {
    if (!this.loading) return;
    const { scheduler, tasks, load, pick, fail } = this.parts;
    const target = this.anyValidator();
    tasks.track(() => load.step(target, scheduler.now()), fail("load"));
    scheduler.at(50 + Math.floor(pick() * 200), "load", "load", () => this.step());
  }

  /**
   * A client submits again what it has not seen committed, to the validator furthest ahead: a validator still
   * catching up may refuse a transaction for a state it has not reached ("source account does not exist"),
   * and the client would take that refusal as final.
   */
  private retry(): void {
    const { scheduler, tasks, load, validators, fail } = this.parts;
    const tip = (v: SimValidator) => (v.state === "up" ? Number(v.core!.ledgers.lastHeader.seq) : -1);
    const reference = validators.reduce<SimValidator | undefined>((best, v) => (tip(v) >= 0 && (!best || tip(v) > tip(best)) ? v : best), undefined);
    if (reference) {
      tasks.track(async () => {
        const missing: string[] = [];
        for (const hash of load.outstanding(this.committed)) {
          if (await reference.core!.ledgers.ledgers.record(hash)) this.committed.add(hash);
          else missing.push(hash);
        }
        if (missing.length > 0) await load.resubmit(reference, missing, scheduler.now());
      }, fail("load"));
    }
    scheduler.at(RESUBMIT_MS, "load", "resubmit", () => this.retry());
  }

  private sample(): void {
    const { scheduler, validators } = this.parts;
    for (const v of validators) {
      const up = v.state === "up";
      this.samples.push({ at_ms: scheduler.now(), node: v.name, seq: up ? Number(v.core!.ledgers.lastHeader.seq) : undefined, view: up ? v.core!.consensus.status().view : undefined });
    }
    scheduler.at(SAMPLE_MS, "sampler", "sample", () => this.sample());
  }
}
