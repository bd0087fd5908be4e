// The contract worker: a child process of a validator that runs contracts (docs/contracts.md §13). Whatever
// a contract does to this process, the validator survives; see contract-worker-runtime.ts for the parent.
import ivm from "isolated-vm";
import { existsSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { ContractFailure, GuardTripped } from "../failure.js";
import { BuiltinError, type ContractHost } from "../host.js";
import { ContractEngines } from "../engines.js";
import { JS_INSTRUMENTER_BUILD, useMeteredStore } from "../js/instrument.js";
import { JsRuntime, type StepMeter } from "../js/js-runtime.js";
import { MeteredStore } from "../metered-store.js";
import { WASM_INSTRUMENTER_BUILD, WasmRuntime } from "../wasm/wasm-runtime.js";
import type { FromWorker, MeterState, RunFailure, ToWorker } from "./protocol.js";

/** Raised in a run when the parent's host failed fatally; the parent keeps the real error. */
class HostFatal extends Error {}

let runtime: ContractEngines | undefined;
let nextCall = 0;
const calls = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void; meter: StepMeter }>();

function send(message: FromWorker): void {
  process.send!(message);
}

function state(meter: StepMeter): MeterState {
  return { used: meter.used, exhausted: meter.exhausted, fatal: meter.fatal !== undefined };
}

/**
 * Bytes of real stack an isolate thread gets here, measured up to `enough`: a plain recursion's depth times
 * its frame (about 73 bytes). Stopping there keeps the start quick with a large stack.
 */
async function isolateStackBytes(enough: number): Promise<number> {
  const isolate = new ivm.Isolate({ memoryLimit: 32 });
  try {
    const context = await isolate.createContext();
    const levels = Math.ceil(enough / 73);
    const depth = (await context.eval(`let d = 0; function f() { if (++d < ${levels}) f(); } try { f(); } catch {} d`, { copy: true })) as number;
    return depth * 73;
  } finally {
    isolate.dispose();
  }
}

async function execute(message: Extract<ToWorker, { type: "execute" }>): Promise<void> {
  const meter: StepMeter = { used: message.meter.used, limit: message.limit, exhausted: message.meter.exhausted };
  const host: ContractHost = {
    call: (name, args) =>
      new Promise((resolve, reject) => {
        const call = nextCall++;
        calls.set(call, { resolve, reject, meter });
        send({ type: "hostCall", id: message.id, call, name, args, meter: state(meter) });
      }),
  };
  let reply: FromWorker;
  try {
    const outcome = await runtime!.execute({
      code: message.code,
      language: message.language,
      entry: message.entry,
      input: message.input,
      env: message.env,
      readOnly: message.readOnly,
      depth: message.depth,
      host,
      meter,
      deadline: performance.now() + message.timeLeftMs,
      preparing: () => send({ type: "preparing", id: message.id }),
      uncounted: (ms) => send({ type: "uncounted", id: message.id, ms }),
      log: (text) => send({ type: "log", id: message.id, text }),
    });
    reply = { type: "done", id: message.id, meter: state(meter), outcome };
  } catch (error) {
    reply = { type: "done", id: message.id, meter: state(meter), failure: describeFailure(error, meter) };
  }
  send(reply);
}

function describeFailure(error: unknown, meter?: StepMeter): RunFailure {
  if (error instanceof HostFatal) return { kind: "host" };
  if (error instanceof ContractFailure) {
    return { kind: "contract", code: error.code, exception: error.exception, linenum: error.linenum, stack: error.contractStack, fatal: meter?.fatal === error, guard: error instanceof GuardTripped };
  }
  return { kind: "error", message: error instanceof Error ? error.message : String(error) };
}

async function validate(message: Extract<ToWorker, { type: "validate" }>): Promise<void> {
  try {
    await runtime!.validate(message.code, message.language);
    send({ type: "validated", id: message.id });
  } catch (error) {
    send({ type: "validated", id: message.id, failure: describeFailure(error) });
  }
}

function answer(message: Extract<ToWorker, { type: "answer" }>): void {
  const pending = calls.get(message.call);
  if (!pending) return;
  calls.delete(message.call);
  // The parent's meter is the truth: nested runs in between spent from it.
  pending.meter.used = message.meter.used;
  if (message.meter.exhausted) pending.meter.exhausted = true;
  if (message.error) pending.reject(message.error.builtin ? new BuiltinError(message.error.message) : new HostFatal(message.error.message));
  else if (message.meter.fatal) pending.reject(new HostFatal("a nested run failed"));
  else pending.resolve(message.result);
}

/** The languages whose metered code has a directory of its own in the store (metered-store.ts). */
const STORE_KINDS = ["js", "wasm"];

/** Removes from the store's directory what an older layout left (one directory per build, not per language). */
function removeOtherLayouts(dir: string): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir)) if (!STORE_KINDS.includes(entry)) rmSync(path.join(dir, entry), { recursive: true, force: true });
}

process.on("message", (message: ToWorker) => {
  switch (message.type) {
    case "init": {
      const { dir, writable } = message.metered ?? {};
      if (dir && writable) removeOtherLayouts(dir);
      const store = (kind: string, build: string) => (dir ? new MeteredStore(path.join(dir, kind), writable!, build) : undefined);
      const jsStore = store("js", JS_INSTRUMENTER_BUILD);
      if (jsStore) useMeteredStore(jsStore);
      const javascript = new JsRuntime(message.limits);
      runtime = new ContractEngines(javascript, new WasmRuntime(message.limits, store("wasm", WASM_INSTRUMENTER_BUILD)));
      void Promise.all([isolateStackBytes(message.minStackBytes), javascript.warm()]).then(([stackBytes]) => send({ type: "ready", stackBytes }));
      break;
    }
    case "execute":
      void execute(message);
      break;
    case "answer":
      answer(message);
      break;
    case "validate":
      void validate(message);
      break;
  }
});
// The parent going away ends the worker: nothing else would. SIGKILL, since an isolate thread stuck in
// native code would keep an orderly exit from finishing.
process.on("disconnect", () => process.kill(process.pid, "SIGKILL"));
