import { CliError } from "../errors.js";
import { failure, requestJson } from "../node-http.js";

/**
 * The client side of a node's fault plane (`/debug/faults`, served when the node runs with
 * debug.fault_injection): message rules live inside the node's p2p layer, this only posts and deletes them.
 */

/** A rule as POST /debug/faults takes it; `peers` are validator addresses (all peers when absent). */
export interface FaultRule {
  kind: "drop" | "delay" | "duplicate" | "reorder" | "partition" | "byzantine" | "crash";
  peers?: string[];
  duration_ms?: number;
  probability?: number;
  delay_ms?: number;
  jitter_ms?: number;
  mode?: string;
  /** crash: the ledger store point where the node kills itself (docs/faults.md). */
  point?: string;
}

export interface FaultNode {
  name: string;
  http: string;
}

const TIMEOUT_MS = 3000;
const RESUME_HINT = "Check it with `chainsim status`; start or resume it with `chainsim fault NODE start|resume`";

/** Posts one rule and returns its id. */
export async function postFault(node: FaultNode, rule: FaultRule): Promise<number> {
  const result = await call(node, "POST", "", rule);
  return Number((result as { id: number }).id);
}

/** Deletes one rule, or every rule of the node when `id` is undefined (heal). */
export async function deleteFaults(node: FaultNode, id?: number): Promise<void> {
  await call(node, "DELETE", id === undefined ? "" : `?id=${id}`);
}

/** The node's rules and counters, as GET /debug/faults answers them. */
export async function listFaults(node: FaultNode): Promise<{ enabled: boolean; rules: unknown[]; stats: unknown }> {
  return (await call(node, "GET", "")) as { enabled: boolean; rules: unknown[]; stats: unknown };
}

async function call(node: FaultNode, method: string, query: string, body?: unknown): Promise<unknown> {
  let answer: { error_code?: number; error_desc?: string; result?: unknown };
  try {
    answer = await requestJson(node.http, `/debug/faults${query}`, { method, body, timeoutMs: TIMEOUT_MS });
  } catch (error) {
    const why = failure(error);
    if (why === "timeout") throw new CliError(`${node.name} (${node.http}) gave no answer within ${TIMEOUT_MS} ms (paused?)`, RESUME_HINT);
    if (why === "connection refused") throw new CliError(`${node.name} (${node.http}) is not answering`, RESUME_HINT);
    throw new CliError(`${node.name} could not ${method} /debug/faults: ${why}`, "Check the node's log");
  }
  // Error 6 (access denied): the node runs without debug.fault_injection.
  if (answer.error_code === 6) {
    throw new CliError(`${node.name} has fault injection off`, "Set [debug] fault_injection = true in the manifest (the default) and restart the network");
  }
  if (answer.error_code !== undefined && answer.error_code !== 0) {
    throw new CliError(`${node.name} refused ${method} /debug/faults: ${answer.error_desc ?? `error ${answer.error_code}`}`, "Check the fault's arguments (docs/faults.md)");
  }
  return answer.result ?? answer;
}
