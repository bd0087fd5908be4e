import { CliError } from "../errors.js";
import { applyFault, targetNode, type FaultTarget, type FaultTargetNode, type Heal } from "./apply-fault.js";
import { MESSAGE_ACTIONS, type FaultActionName, type FaultSpec } from "./fault-action.js";
import { deleteFaults, listFaults } from "./fault-plane.js";

/** What `chainsim fault` finds before acting: the validator's process, and whether it is cut off from the others. */
export interface NodeState {
  process: "running" | "paused" | "down";
  /** A container: it left the project network. Processes: another running validator holds a partition rule against it. */
  disconnected: boolean;
}

/** A network `chainsim fault` acts on: a fault target that can also tell each node's state. */
export interface StatefulTarget extends FaultTarget {
  state(name: string): Promise<NodeState>;
}

/** What applyFaultInAnyState answers when the action's result was already there. */
export const NOTHING_TO_DO = Symbol("nothing to do");

/**
 * `chainsim fault` on a node in any state (docs/faults.md, "A node that is down, paused or disconnected"):
 * an action whose result is already there says so and does nothing; kill, start, restart and wipe first
 * resume a paused node, and start, restart and wipe reconnect a disconnected container (its published port
 * needs the network); pause, resume and the message faults refuse a node that is down, saying what to do.
 */
export async function applyFaultInAnyState(target: StatefulTarget, name: string, spec: FaultSpec, say: (message: string) => void): Promise<Heal | undefined | typeof NOTHING_TO_DO> {
  const node = targetNode(target, name);
  const { process, disconnected } = await target.state(name);
  const already = (what: string): typeof NOTHING_TO_DO => {
    say(`${name} is already ${what}: nothing to do`);
    return NOTHING_TO_DO;
  };
  const resumeFirst = async () => {
    if (process !== "paused") return;
    say(`${name} is paused: resuming it first`);
    await target.pause(name, false);
  };
  const reconnectFirst = async () => {
    if (!disconnected) return;
    say(`${name} is disconnected: reconnecting it first`);
    if (target.disconnect) await target.disconnect(name, false);
    else await healPartitionsOf(target, node, say);
  };
  const mustRun = (action: FaultActionName) => {
    if (process === "down") throw new CliError(`${name} is down: ${action} needs it running`, `Start it first: chainsim fault ${name} start`);
    if (process === "paused") throw new CliError(`${name} is paused: ${action} needs it answering`, `Resume it first: chainsim fault ${name} resume`);
    // A container off the network does not answer on its published port either.
    if (disconnected && target.disconnect) throw new CliError(`${name} is disconnected: ${action} needs it answering`, `Reconnect it first: chainsim fault ${name} heal`);
  };
  switch (spec.action) {
    case "kill":
      if (process === "down") return already("down");
      await resumeFirst();
      break;
    case "start":
      if (process === "running") return already(disconnected ? "running (disconnected: `heal` reconnects it)" : "running");
      if (process === "paused") {
        await resumeFirst();
        return undefined;
      }
      await reconnectFirst();
      break;
    case "restart":
    case "wipe":
      await resumeFirst();
      await reconnectFirst();
      break;
    case "pause":
      if (process === "paused") return already("paused");
      // Stopping a process needs neither its API nor the network: a disconnected node is paused where it is.
      if (process === "down") throw new CliError(`${name} is down: there is nothing to pause`, `Start it first: chainsim fault ${name} start`);
      break;
    case "resume":
      if (process === "down") throw new CliError(`${name} is down: there is nothing to resume`, `Start it: chainsim fault ${name} start`);
      if (process === "running") return already("running (not paused)");
      break;
    case "heal":
      await resumeFirst();
      if (target.disconnect) await reconnectFirst();
      await healPartitionsOf(target, node, say);
      if (process === "down") say(`${name} is down: its own rules went with it (they live in memory); start it with chainsim fault ${name} start`);
      else await deleteFaults(node);
      return undefined;
    case "disconnect":
      if (disconnected) return already("disconnected");
      // podman 4.3 leaves a paused container's network namespace half torn down: reconnecting it then fails.
      if (process === "paused") throw new CliError(`${name} is paused: disconnect it once resumed`, `Resume it first: chainsim fault ${name} resume`);
      if (!target.disconnect) mustRun("disconnect");
      break;
    default:
      if ((MESSAGE_ACTIONS as readonly string[]).includes(spec.action)) mustRun(spec.action);
  }
  return applyFault(target, name, spec);
}

/** Deletes the partition rules the other answering validators hold against `node` (the mirror rules of partition and disconnect). */
async function healPartitionsOf(target: FaultTarget, node: FaultTargetNode, say: (message: string) => void): Promise<void> {
  for (const { other, rule } of await partitionRulesAgainst(target, node)) {
    await deleteFaults(other, rule);
    say(`deleted ${other.name}'s partition rule ${rule} against ${node.name}`);
  }
}

/** The partition rules (node, rule id) of the other validators that answer, cutting `node` off. */
export async function partitionRulesAgainst(target: FaultTarget, node: FaultTargetNode): Promise<{ other: FaultTargetNode; rule: number }[]> {
  const found: { other: FaultTargetNode; rule: number }[] = [];
  for (const other of target.nodes.filter((n) => n.name !== node.name)) {
    const listed = await listFaults(other).catch(() => undefined); // down or paused: it holds no rule that matters now
    for (const rule of (listed?.rules ?? []) as { id: number; kind: string; peers: string[] | null }[]) {
      if (rule.kind === "partition" && rule.peers?.includes(node.address)) found.push({ other, rule: rule.id });
    }
  }
  return found;
}
