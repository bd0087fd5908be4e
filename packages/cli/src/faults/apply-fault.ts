import { CliError } from "../errors.js";
import { PROCESS_ACTIONS, type FaultSpec } from "./fault-action.js";
import { deleteFaults, postFault, type FaultNode, type FaultRule } from "./fault-plane.js";

/** A validator as faults see it: its name, its validator address and its HTTP API. */
export interface FaultTargetNode extends FaultNode {
  address: string;
}

/**
 * Where faults land: a network launched by this process (a scenario) or one found through network.json
 * (`chainsim fault`). Process actions go to the OS process, message actions to the node's fault plane.
 */
export interface FaultTarget {
  readonly nodes: FaultTargetNode[];
  kill(name: string): Promise<void>;
  start(name: string): Promise<void>;
  restart(name: string, options: { wipe: boolean }): Promise<void>;
  pause(name: string, paused: boolean): Promise<void>;
  startTwin(name: string): Promise<void>;
  stopTwin(name: string): Promise<void>;
  /**
   * Cuts (or restores) the validator at the network level, HTTP included. Only a container backend can;
   * without it, disconnect is a partition from every other validator in the fault plane.
   */
  disconnect?(name: string, cut: boolean): Promise<void>;
  /** Whether the validator's process ends within `timeoutMs` (a crash rule kills it from inside). Only for processes this target launched. */
  waitForExit?(name: string, timeoutMs: number): Promise<boolean>;
}

/** Undoes a fault (resume, start, delete the rules, stop the twin). */
export type Heal = () => Promise<void>;

export function targetNode(target: FaultTarget, name: string): FaultTargetNode {
  const node = target.nodes.find((n) => n.name === name);
  if (!node) throw new CliError(`the network has no validator ${JSON.stringify(name)}`, `Use one of ${target.nodes.map((n) => n.name).join(", ")}`);
  return node;
}

/** Applies `spec` to node `name`; returns how to heal it, or undefined for an instantaneous action. */
export async function applyFault(target: FaultTarget, name: string, spec: FaultSpec): Promise<Heal | undefined> {
  const node = targetNode(target, name);
  switch (spec.action) {
    case "kill":
      await target.kill(name);
      return () => target.start(name);
    case "start":
      await target.start(name);
      return undefined;
    case "restart":
    case "wipe":
      await target.restart(name, { wipe: spec.action === "wipe" });
      return undefined;
    case "pause":
      await target.pause(name, true);
      return () => target.pause(name, false);
    case "resume":
      await target.pause(name, false);
      return undefined;
    case "twin":
      await target.startTwin(name);
      return () => target.stopTwin(name);
    case "heal":
      await deleteFaults(node);
      return undefined;
    case "partition":
    case "disconnect": {
      if (spec.action === "disconnect" && target.disconnect) {
        await target.disconnect(name, true);
        return () => target.disconnect!(name, false);
      }
      const others = spec.action === "disconnect" ? target.nodes.filter((n) => n.name !== name) : (spec.peers ?? []).map((p) => targetNode(target, p));
      if (others.length === 0 || others.includes(node)) throw new CliError(`partition ${name} from ${others.map((o) => o.name).join(",") || "nobody"}`, "Name the other side: chainsim fault v1 partition v2,v3");
      // The fault plane cuts a link on one node only; the mirror rule on each peer cuts it both ways.
      const posted = [{ node, id: await postFault(node, rule(spec, "partition", others.map((o) => o.address))) }];
      for (const other of others) posted.push({ node: other, id: await postFault(other, rule(spec, "partition", [node.address])) });
      return () => deleteRules(posted);
    }
    case "delay":
    case "drop":
    case "duplicate":
    case "reorder":
    case "byzantine": {
      const peers = spec.peers?.map((p) => targetNode(target, p).address);
      const id = await postFault(node, rule(spec, spec.action, peers));
      return () => deleteRules([{ node, id }]);
    }
  }
}

function rule(spec: FaultSpec, kind: FaultRule["kind"], peers: string[] | undefined): FaultRule {
  return {
    kind,
    ...(peers && { peers }),
    // The node expires the rule itself too, so a fault outlives neither a crashed scenario nor a `--for`.
    ...(spec.for_ms !== undefined && { duration_ms: spec.for_ms }),
    ...(spec.probability !== undefined && { probability: spec.probability }),
    ...(spec.delay_ms !== undefined && { delay_ms: spec.delay_ms, jitter_ms: spec.jitter_ms ?? 0 }),
    ...(spec.mode !== undefined && { mode: spec.mode }),
  };
}

/** Whether healing `spec` needs the caller (it waits for_ms, then heals) rather than the node expiring a rule by itself. */
export function healedByCaller(target: FaultTarget, spec: FaultSpec): boolean {
  return (PROCESS_ACTIONS as readonly string[]).includes(spec.action) || (spec.action === "disconnect" && target.disconnect !== undefined);
}

/** Whether `spec` makes the node's HTTP API unreachable until it heals (the load generator then avoids it). */
export function takesNodeOffline(target: FaultTarget, spec: FaultSpec): boolean {
  return ["kill", "pause", "restart", "wipe"].includes(spec.action) || (spec.action === "disconnect" && target.disconnect !== undefined);
}

/** Deletes posted rules; a node that stopped answering meanwhile loses its rules on restart anyway (they live in memory). */
async function deleteRules(posted: { node: FaultNode; id: number }[]): Promise<void> {
  await Promise.allSettled(posted.map(({ node, id }) => deleteFaults(node, id)));
}
