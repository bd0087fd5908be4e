import type { SimFault } from "./faults.js";
import { simulate, type SimulationOptions, type SimulationResult } from "./simulation.js";

export interface ShrinkStep {
  /** The schedule tried. */
  faults: number;
  failed: boolean;
}

/**
 * Reduces the fault schedule of a failing run to a smallest one that still fails the same invariant
 * (docs/simulation.md, "Shrinking"): drops faults one at a time while the run keeps failing, then halves
 * the durations of those left while it keeps failing. Every try is a whole simulation with the same seed,
 * so the wire and the load draw exactly as before; only the faults change. Returns the smallest failing run.
 */
export async function shrink(options: SimulationOptions, failing: SimulationResult, onStep: (step: ShrinkStep, schedule: SimFault[]) => void = () => {}): Promise<SimulationResult> {
  const invariant = failing.failures[0]?.invariant;
  if (invariant === undefined) throw new Error(`seed ${failing.seed} passes: there is nothing to shrink`);
  let best = failing;
  const fails = async (schedule: SimFault[]) => {
    const result = await simulate({ ...options, schedule });
    const failed = result.failures.some((f) => f.invariant === invariant);
    onStep({ faults: schedule.length, failed }, schedule);
    if (failed) best = result;
    return failed;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = 0; i < best.schedule.length; i++) {
      const without = best.schedule.filter((_, j) => j !== i);
      if (await fails(without)) {
        changed = true;
        i--;
      }
    }
    for (let i = 0; i < best.schedule.length; i++) {
      const fault = best.schedule[i]!;
      if (fault.duration_ms < 200) continue;
      const shorter = best.schedule.map((f, j) => (j === i ? { ...f, duration_ms: Math.floor(f.duration_ms / 2) } : f));
      if (await fails(shorter)) changed = true;
    }
  }
  return best;
}
