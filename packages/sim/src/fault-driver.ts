import type { PerturbationRecord } from "./invariants/history.js";
import { describeFault, overlaps, stalled, type SimFault, type SimFaultKind } from "./faults.js";
import type { PendingTasks } from "./pending.js";
import { SimValidator, type SimRun } from "./sim-validator.js";
import type { ConductWatch } from "./watchers.js";

export interface FaultDriverParts {
  run: SimRun;
  validators: SimValidator[];
  conduct: ConductWatch;
  tasks: PendingTasks;
  /** What to do with a failure of asynchronous work, by the invariant it breaks. */
  fail: (invariant: string) => (error: unknown) => void;
  /** Seeds for the fault planes of twins. */
  faultSeeds: () => number;
  /** The whole schedule: which validators later faults stall. */
  schedule: SimFault[];
  /** How long after a heal the honest validators must have passed the tip (the scenario checker's bound). */
  boundMs: number;
}

/**
 * Carries out a fault schedule on the simulated network (docs/simulation.md, "Faults"): each fault at its
 * time, traced, healed after its duration, and recorded for the liveness check with the validators that
 * owe progress after it.
 */
export class FaultDriver {
  /** Each fault as it happened: the validators owed progress once it healed. */
  readonly records: PerturbationRecord[] = [];

  constructor(private readonly parts: FaultDriverParts) {}

  schedule(fault: SimFault): void {
    const { scheduler } = this.parts.run;
    scheduler.at(fault.at_ms - scheduler.elapsed, "faults", "fault", () => this.begin(fault));
  }

  /**
   * The validators that must pass the tip within the bound after `fault` heals: all but those it stalls
   * and those another fault stalls while this one is on or before that bound ends (one overlapping it, or
   * a later one). Those are not judged here; the end's caught_up check still wants them at the tip.
   */
  private owedProgress(fault: SimFault): string[] {
    const names = this.parts.validators.map((v) => v.name);
    const { boundMs } = this.parts;
    const others = this.parts.schedule.filter((other) => other !== fault && overlaps(fault, other, boundMs));
    const excused = new Set([fault, ...others].flatMap((f) => stalled(f, names)));
    return names.filter((name) => !excused.has(name));
  }

  private begin(fault: SimFault): void {
    const { run, validators, conduct, tasks, fail } = this.parts;
    const { scheduler, wire } = run;
    const v = validators.find((x) => x.name === fault.node)!;
    scheduler.trace({ kind: "fault", node: fault.node, what: describeFault(fault) });
    const record = { node: fault.node, kind: fault.kind, at_ms: scheduler.now(), healed_ms: scheduler.now() + fault.duration_ms, honest: this.owedProgress(fault) };
    if (record.honest.length > 0) this.records.push(record);
    const heal = (then: () => void) =>
      scheduler.at(fault.duration_ms, "faults", "heal", () => {
        scheduler.trace({ kind: "heal", node: fault.node, what: describeFault(fault) });
        then();
      });
    const restartLater = () => heal(() => tasks.track(() => v.start(), fail("restart")));
    switch (fault.kind) {
      case "kill":
        v.crash();
        return void restartLater();
      case "power-cut":
        v.crash({ keptFraction: fault.kept ?? 0 });
        return void restartLater();
      case "wipe":
        v.crash();
        v.disk.wipe();
        conduct.forget(v.name);
        return void restartLater();
      case "crash-at-write":
        v.armCrash(fault.point!, () => scheduler.trace({ kind: "crash", node: v.name, what: `crashed at ${fault.point}` }));
        heal(() => {
          v.disarm();
          tasks.track(() => v.start(), fail("restart"));
        });
        return;
      case "twin": {
        // a second process with v's key: what it signs contradicts v, by design
        conduct.exempt(v.name);
        const twin = new SimValidator(v.config, run, { faultSeed: this.parts.faultSeeds(), twin: true });
        tasks.track(() => twin.start(), fail("twin"));
        heal(() => twin.halt());
        return;
      }
      case "pause":
        v.pause();
        heal(() => v.resume());
        return;
      case "partition": {
        const side = validators.filter((x) => fault.side!.includes(x.name));
        wire.partition(side.map((x) => x.address), validators.filter((x) => !side.includes(x)).map((x) => x.address));
        heal(() => wire.heal());
        return;
      }
      default: {
        if (fault.kind === "byzantine") conduct.exempt(v.name);
        const rule = fault.kind === "byzantine" ? { kind: "byzantine", mode: fault.mode } : ruleOf(fault.kind);
        v.plane?.add({ ...rule, duration_ms: fault.duration_ms });
        heal(() => undefined); // the rule expires by itself; the trace marks when
      }
    }
  }
}

/** The fault-plane rule of a message fault. */
function ruleOf(kind: SimFaultKind): Record<string, unknown> {
  if (kind === "delay") return { kind, delay_ms: 200, jitter_ms: 400 };
  if (kind === "reorder") return { kind, probability: 0.5, window_ms: 300 };
  return { kind, probability: 0.3 };
}

