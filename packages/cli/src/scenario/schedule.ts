import { seededRandom } from "@chainsim/protocol";
import { describeFault, healingAction, type FaultSpec } from "../faults/fault-action.js";
import type { Manifest } from "../manifest.js";

/** One step of a scenario; steps run one after another, each after the network recovered from the last. */
export interface Step {
  /** A validator name, or "primary" (the leader when the step fires). */
  node: string;
  spec: FaultSpec;
  /** [[fault]] steps: not before this many ms after the load started. */
  at_ms?: number;
  /** Perturb steps: a seeded pause before the step. */
  gap_ms: number;
}

/**
 * The `[[fault]]` entries first (in at_ms order), then every node's `perturb` entries in an order drawn
 * from the seed, each after a seeded pause of up to view_timeout_ms. Perturbations that last (kill, pause,
 * disconnect, twin) last [scenario] perturb_for_ms.
 */
export function buildSchedule(manifest: Manifest, seed: number): Step[] {
  const random = seededRandom(seed);
  const timed: Step[] = manifest.faults.map(({ at_ms, node, ...spec }) => ({ node, spec, at_ms, gap_ms: 0 }));
  const perturb: Step[] = manifest.nodes.flatMap((node) =>
    node.perturb.map((action) => ({
      node: node.name,
      spec: { action, ...(healingAction(action) && { for_ms: manifest.scenario.perturb_for_ms }) },
      gap_ms: 0,
    })),
  );
  for (let i = perturb.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [perturb[i], perturb[j]] = [perturb[j], perturb[i]];
  }
  for (const step of perturb) step.gap_ms = Math.floor(random() * manifest.consensus.view_timeout_ms);
  return [...timed, ...perturb];
}

export function describeStep(step: Step): string {
  return (step.at_ms !== undefined ? `at ${step.at_ms} ms: ` : `after ${step.gap_ms} ms: `) + describeFault(step.node, step.spec);
}
