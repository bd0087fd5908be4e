// The host side of a built-in call, the same for every contract language: the shared step meter is
// checked, the chain host runs the built-in, and the answer goes back as JSON with the steps left.
import ivm from "isolated-vm";
import { BuiltinError } from "./host.js";
import { STEP_LIMIT } from "./failure.js";
import type { ExecutionRequest, StepMeter } from "./js/js-runtime.js";
import type { ContractLimits } from "./limits.js";
import { utilsCrypto } from "./utils-host.js";

/**
 * Units of work per code unit of a text holding a lone surrogate, when V8 escapes it as JSON: its slow path
 * is about 45 ns a code unit, every other text under 8 ns (eighteenth review of 2026-11-26). Used by the
 * isolate's JSON.stringify and argument encoding (guards/text.ts quoteJson) and for host answers.
 */
export const LONE_SURROGATE_UNITS = 32;

/** Units of JSON escaping work in a host answer's strings: a string, or an object of strings (`{result}`). */
function loneSurrogateUnits(value: unknown): number {
  if (typeof value === "string") return value.isWellFormed() ? 0 : LONE_SURROGATE_UNITS * value.length;
  if (value === null || typeof value !== "object") return 0;
  let units = 0;
  for (const field of Object.values(value)) units += loneSurrogateUnits(field);
  return units;
}

/** Adds steps a run counted since its last host call to the meter, checking the total. */
export function countSteps(meter: StepMeter, spent: unknown): void {
  if (typeof spent === "number" && Number.isInteger(spent) && spent >= 0) meter.used += spent;
  else meter.exhausted = true;
  if (meter.used > meter.limit) meter.exhausted = true;
}

/**
 * A built-in's host operation for a run that has spent `spent` steps since its last call; always answers
 * JSON `{r}` or `{e}` plus `budget`, the steps left to the transaction.
 */
export async function answerHostCall(request: ExecutionRequest, limits: ContractLimits, name: string, argsJson: string, spent: number): Promise<string> {
  const meter = request.meter;
  // The run's count is checked here too, in case contract code found a way to tamper with it.
  countSteps(meter, spent);
  // Once the steps are spent or a contract transaction failed, the execution is lost: refuse more work.
  if (meter.exhausted) return JSON.stringify({ e: STEP_LIMIT, budget: 0 });
  if (meter.fatal) return JSON.stringify({ e: meter.fatal.message, budget: 0 });
  let answer: { r?: unknown; e?: string };
  try {
    answer = { r: await request.host.call(name, JSON.parse(argsJson)) };
  } catch (error) {
    if (!(error instanceof BuiltinError)) meter.fatal ??= error as Error;
    answer = { e: (error as Error).message };
  }
  // V8 escapes a lone surrogate of the answer on its slow path here (a stored value of 87,381 took 5.7 ms
  // a load): charged at the rate the isolate's JSON.stringify charges (twenty-third review of 2026-11-26).
  const escaping = loneSurrogateUnits(answer.r);
  if (escaping > 0) countSteps(meter, Math.ceil(escaping / limits.sizeUnit));
  if (meter.exhausted) return JSON.stringify({ e: STEP_LIMIT, budget: 0 });
  return JSON.stringify({ ...answer, budget: meter.limit - meter.used });
}

/** An isolate for contract runs, the run it serves now (`slot.request`), and the references its runs reach the host through. */
export interface HostedIsolate {
  isolate: ivm.Isolate;
  slot: { request?: ExecutionRequest };
  /** Chain built-ins (answerHostCall), Utils crypto (utils-host.ts), and the log. */
  references: [ivm.Reference, ivm.Reference, ivm.Reference];
  /** The request of the run being served; throws when none is. */
  active(): ExecutionRequest;
}

/** A fresh isolate with V8's heap guard, and the host references every language's runs use. */
export function hostedIsolate(limits: ContractLimits): HostedIsolate {
  const isolate = new ivm.Isolate({ memoryLimit: limits.engineHeapMiB });
  const slot: { request?: ExecutionRequest } = {};
  const active = (): ExecutionRequest => {
    if (!slot.request) throw new Error("no contract run is active in this isolate");
    return slot.request;
  };
  const references: HostedIsolate["references"] = [
    new ivm.Reference((name: string, argsJson: string, spent: number) => answerHostCall(active(), limits, name, argsJson, spent)),
    new ivm.Reference(utilsCrypto),
    new ivm.Reference((text: string) => active().log(String(text))),
  ];
  return { isolate, slot, references, active };
}
