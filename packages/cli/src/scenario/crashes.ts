import { setTimeout as sleep } from "node:timers/promises";
import { STORE_POINTS, type StorePoint } from "@chainsim/node";
import { targetNode, type FaultTarget, type FaultTargetNode } from "../faults/apply-fault.js";
import { deleteFaults, postFault } from "../faults/fault-plane.js";

/** What a crash series did (the report's `crashes`). */
export interface CrashCounts {
  kills: number;
  /** Kills the node carried out itself at an armed ledger store point, by point. */
  kills_during_writes: number;
  by_point: Record<StorePoint, number>;
  /** Restarts that came back (answered /hello); failures are in `restarts_failed`. */
  restarts: number;
  restarts_failed: string[];
}

export function emptyCrashCounts(): CrashCounts {
  return { kills: 0, kills_during_writes: 0, by_point: Object.fromEntries(STORE_POINTS.map((p) => [p, 0])) as Record<StorePoint, number>, restarts: 0, restarts_failed: [] };
}

/**
 * One crash of a crash series: SIGKILL `name` (armed at `storePoint`: a crash rule makes the node kill
 * itself when storing its next ledger reaches that point; when no ledger comes within `armedMs`, the
 * runner kills it from outside instead), wait `pauseMs`, start it again. A start that fails is counted,
 * not thrown: the verdict reports it.
 */
export async function crashAndRestart(target: FaultTarget, name: string, options: { storePoint?: StorePoint; pauseMs: number; armedMs: number }, counts: CrashCounts): Promise<string> {
  let how = "killed";
  if (options.storePoint && target.waitForExit) {
    const node = targetNode(target, name);
    // A node too busy to take the rule in time is killed from outside instead: the crash still happens.
    const id = await postFault(node, { kind: "crash", point: options.storePoint, duration_ms: options.armedMs }).catch(() => undefined);
    if (id === undefined) {
      how = `could not arm ${options.storePoint}: killed`;
    } else if ((await target.waitForExit(name, options.armedMs)) || (await disarmed(target, name, node, id))) {
      counts.kills_during_writes++;
      counts.by_point[options.storePoint]++;
      how = `killed itself at ${options.storePoint}`;
    } else {
      how = `not at ${options.storePoint} within ${options.armedMs} ms: killed`;
    }
  }
  await target.kill(name); // a no-op on a process that already ended
  counts.kills++;
  await sleep(options.pauseMs);
  try {
    await target.start(name);
    counts.restarts++;
  } catch (error) {
    counts.restarts_failed.push(`${name}: ${(error as Error).message.split("\n")[0]}`);
    return `${how}; restart FAILED`;
  }
  return `${how}; restarted after ${options.pauseMs} ms`;
}

/** Deletes a crash rule that did not fire in time; true when the node got there after all, before the rule was gone. */
async function disarmed(target: FaultTarget, name: string, node: FaultTargetNode, id: number): Promise<boolean> {
  await deleteFaults(node, id).catch(() => {}); // a node that died meanwhile took its rules along
  return target.waitForExit!(name, EXIT_GRACE_MS);
}

/** How long a process that was just SIGKILLed may take to be reported as ended. */
const EXIT_GRACE_MS = 1000;
