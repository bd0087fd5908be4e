import { STORE_POINTS, type StorePoint } from "@chainsim/node";
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
  /** Crash steps (spec: kill for the pause before the restart): marks the crash series, and where it lands when armed at a ledger store point. */
  crash?: { store_point?: StorePoint };
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
  return [...timed, ...perturb, ...crashSeries(manifest, random)];
}

/**
 * `[scenario] crashes` SIGKILLs, after every other step: each of a seeded validator after a seeded gap of
 * up to view_timeout_ms, restarted after a seeded pause of up to crash_pause_ms; a seeded share of them
 * armed at a seeded ledger store point instead of fired at once. One at a time: the runner waits for
 * recovery between steps, so the network keeps its quorum (docs/faults.md, "Crash series").
 */
function crashSeries(manifest: Manifest, random: () => number): Step[] {
  const { crashes, crash_pause_ms, crash_store_share } = manifest.scenario;
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
  return Array.from({ length: crashes }, () => {
    const node = pick(manifest.nodes).name;
    const gap_ms = Math.floor(random() * manifest.consensus.view_timeout_ms);
    const for_ms = Math.floor(random() * (crash_pause_ms + 1));
    const store_point = random() < crash_store_share ? pick(STORE_POINTS) : undefined;
    return { node, spec: { action: "kill", for_ms }, gap_ms, crash: store_point ? { store_point } : {} };
  });
}

export function describeStep(step: Step): string {
  const where = step.crash?.store_point ? ` (armed at ${step.crash.store_point})` : "";
  return (step.at_ms !== undefined ? `at ${step.at_ms} ms: ` : `after ${step.gap_ms} ms: `) + describeFault(step.node, step.spec) + where;
}
