import { BYZANTINE_MODES, type ByzantineMode } from "@chainsim/node";

/**
 * The fault vocabulary shared by `chainsim fault` and a scenario's schedule (manifest `perturb` lists and
 * `[[fault]]` entries): one name per action, one set of parameters, one validation.
 */

/** Actions on the validator's OS process (the launcher owns them). */
export const PROCESS_ACTIONS = ["kill", "start", "restart", "pause", "resume", "wipe", "twin"] as const;
/** Actions through the node's fault plane (/debug/faults). `disconnect` = partition from every other validator. */
export const MESSAGE_ACTIONS = ["partition", "disconnect", "heal", "delay", "drop", "duplicate", "reorder", "byzantine"] as const;
export const FAULT_ACTIONS = [...PROCESS_ACTIONS, ...MESSAGE_ACTIONS] as const;
export type FaultActionName = (typeof FAULT_ACTIONS)[number];

/** Byzantine modes are the node's (its fault plane carries them out). */
export { BYZANTINE_MODES, type ByzantineMode };

/** What a per-node `perturb = [...]` list may hold: each is applied for a while, then healed. */
export const PERTURBATIONS = ["kill", "pause", "disconnect", "restart", "wipe", "twin"] as const;
export type Perturbation = (typeof PERTURBATIONS)[number];

export interface FaultSpec {
  action: FaultActionName;
  /** Node names: the other side of a partition, or the peers a message rule applies to (all when absent). */
  peers?: string[];
  probability?: number;
  delay_ms?: number;
  jitter_ms?: number;
  mode?: ByzantineMode;
  /** How long the fault lasts before it heals; absent: until healed by hand. */
  for_ms?: number;
}

/** The action that undoes `action` after for_ms, or undefined when it is instantaneous (restart, wipe, start, resume, heal). */
export function healingAction(action: FaultActionName): "start" | "resume" | "heal" | "untwin" | undefined {
  switch (action) {
    case "kill":
      return "start";
    case "pause":
      return "resume";
    case "twin":
      return "untwin";
    case "partition":
    case "disconnect":
    case "delay":
    case "drop":
    case "duplicate":
    case "reorder":
    case "byzantine":
      return "heal";
    default:
      return undefined;
  }
}

/** "10s", "500ms", "2m" or plain milliseconds → milliseconds; undefined when the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!match) return undefined;
  const factor = match[2] === "s" ? 1000 : match[2] === "m" ? 60_000 : 1;
  return Math.round(Number(match[1]) * factor);
}

/** Which parameter an action requires, if any, so both the CLI and the manifest ask for the same thing. */
export function requiredParameter(action: FaultActionName): keyof FaultSpec | undefined {
  switch (action) {
    case "partition":
      return "peers";
    case "delay":
      return "delay_ms";
    case "drop":
    case "duplicate":
    case "reorder":
      return "probability";
    case "byzantine":
      return "mode";
    default:
      return undefined;
  }
}

/** A one-line description for progress and reports: `delay 200ms±50 to v2,v3 for 4s`. */
export function describeFault(node: string, spec: FaultSpec): string {
  const parts = [node, spec.action];
  if (spec.mode) parts.push(spec.mode);
  if (spec.probability !== undefined) parts.push(`p=${spec.probability}`);
  if (spec.delay_ms !== undefined) parts.push(`${spec.delay_ms}ms${spec.jitter_ms ? `±${spec.jitter_ms}` : ""}`);
  if (spec.peers) parts.push(`${spec.action === "partition" ? "from" : "to"} ${spec.peers.join(",")}`);
  if (spec.for_ms !== undefined) parts.push(`for ${spec.for_ms / 1000}s`);
  return parts.join(" ");
}
