import { setTimeout as sleep } from "node:timers/promises";
import { parseCommandArgs, usageError } from "../args.js";
import { COMPOSE_OPTIONS, openComposeFromArgs, withComposeDefault } from "../containers/compose-args.js";
import { healedByCaller } from "../faults/apply-fault.js";
import { applyFaultInAnyState, NOTHING_TO_DO } from "../faults/node-state.js";
import { ContainerBackend } from "../faults/container-backend.js";
import { BYZANTINE_MODES, describeFault, FAULT_ACTIONS, healingAction, parseDuration, type ByzantineMode, type FaultActionName, type FaultSpec } from "../faults/fault-action.js";
import { recordTarget } from "../faults/record-target.js";
import { loadManifest } from "../manifest.js";
import { DEFAULT_MANIFEST_PATH } from "../paths.js";
import { defaultDataDir } from "./up.js";

/**
 * `chainsim fault NODE ACTION [ARG] [--for D] [--peers v2,v3] [--jitter MS] [--data-dir D | --compose [FILE] [--project NAME]]`
 * on a running network, and `chainsim fault all heal`. A message fault with --for expires inside the node;
 * a process fault (or a container's disconnect) with --for makes this command wait and undo it. With
 * --compose the network is the running compose project of docker-compose.yml (networks/local-4.toml,
 * its ports moved by CHAINSIM_PORT_PREFIX).
 */
export async function fault(args: string[]): Promise<number> {
  const { positionals, values } = parseCommandArgs(
    "fault",
    withComposeDefault(args),
    { "data-dir": { type: "string" }, for: { type: "string" }, peers: { type: "string" }, jitter: { type: "string" }, ...COMPOSE_OPTIONS },
    3,
  );
  const [nodeName, action, argument] = positionals;
  if (!nodeName || !action) throw usageError("fault: name a node and an action, e.g. `chainsim fault v2 pause --for 10s`");
  if (!(FAULT_ACTIONS as readonly string[]).includes(action)) throw usageError(`fault: unknown action ${JSON.stringify(action)}; use one of ${FAULT_ACTIONS.join(", ")}`);
  const spec = faultSpec(action as FaultActionName, argument, values);
  const progress = (message: string) => process.stderr.write(`${message}\n`);
  if (nodeName === "all" && spec.action !== "heal") throw usageError("fault: `all` goes only with heal (chainsim fault all heal)");
  const manifest = await loadManifest(DEFAULT_MANIFEST_PATH);
  const compose = await openComposeFromArgs("fault", values, { "data-dir": values["data-dir"] }, manifest, progress);
  const target = compose ? new ContainerBackend(compose) : await recordTarget(values["data-dir"] ?? defaultDataDir(manifest.name), progress);

  if (nodeName === "all") {
    for (const node of target.nodes) await applyFaultInAnyState(target, node.name, spec, progress);
    progress(`healed ${target.nodes.map((n) => n.name).join(", ")}`);
    return 0;
  }
  const heal = await applyFaultInAnyState(target, nodeName, spec, progress);
  if (heal === NOTHING_TO_DO) return 0;
  progress(`applied: ${describeFault(nodeName, spec)}`);
  // Message rules carry duration_ms and expire in the node; a process fault needs this command to undo it.
  if (spec.for_ms !== undefined && heal && healedByCaller(target, spec)) {
    progress(`waiting ${spec.for_ms / 1000} s, then ${healingAction(spec.action)} ${nodeName} (Ctrl-C leaves it as it is)`);
    await sleep(spec.for_ms);
    await heal();
    progress(`${healingAction(spec.action)}: ${nodeName} done`);
  }
  return 0;
}

function faultSpec(action: FaultActionName, argument: string | undefined, values: { for?: string; peers?: string; jitter?: string }): FaultSpec {
  const spec: FaultSpec = { action };
  const number = (what: string, text: string | undefined, max: number): number => {
    const value = text === undefined ? NaN : Number(text);
    if (!Number.isFinite(value) || value < 0 || value > max) throw usageError(`fault ${action}: ${what} should be a number from 0 to ${max}, got ${JSON.stringify(text ?? "nothing")}`);
    return value;
  };
  if (values.for !== undefined) {
    spec.for_ms = parseDuration(values.for);
    if (!spec.for_ms) throw usageError(`fault: --for ${JSON.stringify(values.for)} is not a duration; use e.g. 10s or 500ms`);
    if (!healingAction(action)) throw usageError(`fault: ${action} happens at once; --for goes with kill, pause, partition, disconnect and the message faults`);
  }
  if (values.peers !== undefined) spec.peers = values.peers.split(",").map((p) => p.trim());
  const takesArgument = ["partition", "delay", "drop", "duplicate", "reorder", "byzantine"].includes(action);
  if (argument !== undefined && !takesArgument) throw usageError(`fault ${action}: unexpected argument ${JSON.stringify(argument)}`);
  switch (action) {
    case "partition":
      if (!argument) throw usageError("fault partition: name the other side, e.g. `chainsim fault v1 partition v2,v3`");
      spec.peers = argument.split(",").map((p) => p.trim());
      break;
    case "delay":
      spec.delay_ms = number("the delay in ms", argument, 600_000);
      spec.jitter_ms = values.jitter === undefined ? 0 : number("--jitter", values.jitter, 600_000);
      break;
    case "drop":
    case "duplicate":
    case "reorder":
      spec.probability = number("the probability", argument, 1);
      break;
    case "byzantine":
      if (!(BYZANTINE_MODES as readonly string[]).includes(argument ?? "")) throw usageError(`fault byzantine: the mode should be one of ${BYZANTINE_MODES.join(", ")}`);
      spec.mode = argument as ByzantineMode;
      break;
  }
  if (values.jitter !== undefined && action !== "delay") throw usageError("fault: --jitter goes with delay");
  return spec;
}
