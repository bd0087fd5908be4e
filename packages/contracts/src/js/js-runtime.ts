import ivm from "isolated-vm";
import { BuiltinError, type ContractEnvironment, type ContractHost } from "../host.js";
import { CONTRACT_EXECUTE_FAIL, CONTRACT_LIMIT_EXCEEDED, CONTRACT_SYNTAX_ERROR, ContractFailure, truncateUtf8 } from "../failure.js";
import type { ContractLimits } from "../limits.js";
import { utilsCrypto } from "../utils-host.js";
import { bootstrap } from "./bootstrap.js";
import { installChain } from "./chain-builtins.js";
import { ContractSourceError, STEP_FUNCTION, instrumentCached } from "./instrument.js";
import { lintContract } from "./lint.js";
import { installUtils } from "./utils-builtins.js";

export type EntryPoint = "init" | "main" | "query";

/** Steps of one user transaction, shared by every contract it reaches. */
export interface StepMeter {
  used: number;
  readonly limit: number;
  exhausted: boolean;
  /** A failure that fails the whole transaction whatever the contract does (a failed sub-transaction). */
  fatal?: Error;
}

export interface ExecutionRequest {
  code: string;
  entry: EntryPoint;
  input: string;
  env: ContractEnvironment;
  /** query: the write built-ins are absent. */
  readOnly: boolean;
  /** Nesting level, 0 for a contract reached by a user's operation. */
  depth: number;
  host: ContractHost;
  meter: StepMeter;
  /** performance.now() by which the user transaction must be done (the wall-clock guard). */
  deadline: number;
  log: (text: string) => void;
}

export interface ExecutionOutcome {
  /** The entry point's return value, copied out of the isolate. */
  value: unknown;
  memoryUsage: number;
  /** Peak bytes of the deterministic stack model (instrument.ts frameBytes). */
  stackUsage: number;
  applyTimeUs: number;
}

/** Evaluates to a function that prepares a fresh context; compiled once per isolate. */
const BOOTSTRAP_SOURCE = `(function (call, crypto, log, exhausted, optionsJson) {
  (${bootstrap.toString()})(globalThis, { call, crypto, log, exhausted }, JSON.parse(optionsJson), ${installUtils.toString()}, ${installChain.toString()});
})`;
const STACK_EXCEEDED = "Stack exceeding limit";
/** What an entry point's return value becomes when it cannot be copied out of the isolate. */
export const NOT_CROSSABLE = Object.freeze({ notCrossable: true });

/** Source characters of compiled scripts kept per isolate (a small share of the 30 MiB heap). */
const SCRIPT_CACHE_BYTES = 1024 * 1024;

/**
 * JavaScript contracts in isolated-vm. One isolate per nesting depth, reused across executions (a caller's
 * isolate is blocked while its callee runs); every execution gets a fresh context, so contract globals never
 * leak between runs. An isolate killed by its heap limit is replaced.
 */
export class JsRuntime {
  private readonly isolates: (ivm.Isolate | undefined)[] = [];
  /** Compiling costs more than running a typical contract, so scripts are compiled once per isolate. */
  private readonly scripts = new WeakMap<ivm.Isolate, Map<string, ivm.Script>>();

  constructor(private readonly limits: ContractLimits) {}

  /** Checks code before deployment: parses and instruments it (152 / 155 on failure), and lints it if the network asks (152). */
  validate(code: string): void {
    this.instrument(code);
    if (!this.limits.lint) return;
    const warnings = lintContract(code);
    if (warnings.length > 0) throw new ContractFailure(CONTRACT_SYNTAX_ERROR, JSON.stringify(warnings));
  }

  async execute(request: ExecutionRequest): Promise<ExecutionOutcome> {
    const started = performance.now();
    const code = this.instrument(request.code);
    const isolate = this.isolate(request.depth);
    let context: ivm.Context | undefined;
    let counted = false;
    const refs = [
      new ivm.Reference((name: string, argsJson: string, spent: number) => this.hostCall(request, name, argsJson, spent)),
      new ivm.Reference(utilsCrypto),
      new ivm.Reference((text: string) => request.log(String(text))),
      new ivm.Reference((reason: unknown) => {
        if (reason === STACK_EXCEEDED) request.meter.fatal ??= new ContractFailure(CONTRACT_LIMIT_EXCEEDED, STACK_EXCEEDED);
        else request.meter.exhausted = true;
      }),
    ];
    try {
      context = await isolate.createContext();
      const options = {
        budget: request.meter.limit - request.meter.used,
        stackBytes: this.limits.stackBytes,
        builtinSteps: this.limits.builtinSteps,
        costlyBuiltinSteps: this.limits.costlyBuiltinSteps,
        stepFunction: STEP_FUNCTION,
        env: request.env,
        readOnly: request.readOnly,
      };
      const prepare = (await (await this.compile(isolate, BOOTSTRAP_SOURCE, "bootstrap.js")).run(context, { reference: true })) as ivm.Reference;
      try {
        await prepare.apply(undefined, [...refs, JSON.stringify(options)]);
      } finally {
        prepare.release();
      }
      const value = await this.run(isolate, context, code, request);
      counted = true;
      const stackUsage = await this.countSteps(context, request.meter);
      // A failed sub-transaction or the step limit fails the execution even when the contract caught it.
      if (request.meter.fatal || request.meter.exhausted) throw new Error("failed inside a caught exception");
      return {
        value,
        memoryUsage: (await isolate.getHeapStatistics()).used_heap_size,
        stackUsage,
        applyTimeUs: Math.round((performance.now() - started) * 1000),
      };
    } catch (error) {
      if (context && !counted) await this.countSteps(context, request.meter);
      throw this.failure(error, isolate, request);
    } finally {
      if (context && !isolate.isDisposed) context.release();
      refs.forEach((r) => r.release());
    }
  }

  /**
   * Adds the steps the isolate counted since its last host call to the meter (checking the total too) and
   * answers the run's stack peak. Async: a synchronous call would block Node's event loop for as long as
   * another run occupies the isolate.
   */
  private async countSteps(context: ivm.Context, meter: StepMeter): Promise<number> {
    let counts: unknown;
    try {
      counts = await context.eval(`[${STEP_FUNCTION}_used(), ${STEP_FUNCTION}_stack()]`, { copy: true });
    } catch {
      return 0; // the context died with its isolate: the execution failed anyway
    }
    const [spent, stack] = Array.isArray(counts) ? counts : [];
    if (typeof spent === "number" && Number.isInteger(spent) && spent >= 0) meter.used += spent;
    else meter.exhausted = true;
    if (meter.used > meter.limit) meter.exhausted = true;
    return typeof stack === "number" ? stack : 0;
  }

  dispose(): void {
    for (const isolate of this.isolates) if (isolate && !isolate.isDisposed) isolate.dispose();
    this.isolates.length = 0;
  }

  private async run(isolate: ivm.Isolate, context: ivm.Context, code: string, request: ExecutionRequest): Promise<unknown> {
    const script = await this.compile(isolate, code, "contract.js").catch((error: Error) => {
      throw new ContractFailure(CONTRACT_SYNTAX_ERROR, truncateUtf8(String(error.message)));
    });
    const timeout = () => Math.max(1, Math.floor(request.deadline - performance.now()));
    await script.run(context, { timeout: timeout() });
    const entry = await context.global.get(request.entry, { reference: true });
    if (entry.typeof !== "function") {
      entry.release();
      throw new ContractFailure(CONTRACT_EXECUTE_FAIL, `Lost of ${request.entry} function`);
    }
    try {
      return await entry.apply(undefined, [request.input], { timeout: timeout(), result: { copy: true } });
    } catch (error) {
      // A function or symbol cannot leave the isolate; only strings and booleans cross anyway.
      if (error instanceof Error && /could not be cloned|Unsupported type/.test(error.message)) return NOT_CROSSABLE;
      throw error;
    } finally {
      entry.release();
    }
  }

  /** A built-in's host operation; always answers JSON `{r}` or `{e}` plus the remaining step budget. */
  private async hostCall(request: ExecutionRequest, name: string, argsJson: string, spent: number): Promise<string> {
    const meter = request.meter;
    // The isolate's count is checked here too, in case contract code found a way to tamper with it.
    if (typeof spent !== "number" || !Number.isInteger(spent) || spent < 0) meter.exhausted = true;
    else meter.used += spent;
    if (meter.used > meter.limit) meter.exhausted = true;
    // Once the steps are spent or a contract transaction failed, the execution is lost: refuse more work.
    if (meter.exhausted) return JSON.stringify({ e: "Step exceeding limit", budget: 0 });
    if (meter.fatal) return JSON.stringify({ e: meter.fatal.message, budget: 0 });
    let answer: { r?: unknown; e?: string };
    try {
      answer = { r: await request.host.call(name, JSON.parse(argsJson)) };
    } catch (error) {
      if (!(error instanceof BuiltinError)) meter.fatal ??= error as Error;
      answer = { e: (error as Error).message };
    }
    return JSON.stringify({ ...answer, budget: meter.limit - meter.used });
  }

  /** Maps how an execution ended to a ContractFailure, or the fatal error of a failed sub-transaction. */
  private failure(error: unknown, isolate: ivm.Isolate, request: ExecutionRequest): Error {
    if (request.meter.fatal) return request.meter.fatal;
    if (error instanceof ContractFailure) return error;
    if (request.meter.exhausted) return new ContractFailure(CONTRACT_LIMIT_EXCEEDED, "Step exceeding limit");
    if (isolate.isDisposed) {
      if (this.isolates[request.depth] === isolate) this.isolates[request.depth] = undefined;
      return new ContractFailure(CONTRACT_LIMIT_EXCEEDED, "Memory exceeding limit");
    }
    const message = error instanceof Error ? error.message : String(error);
    if (/Script execution timed out/.test(message)) return new ContractFailure(CONTRACT_LIMIT_EXCEEDED, "Time expired");
    // V8's own limit, should a contract find a way past the model's (deep recursion inside a built-in).
    if (/Maximum call stack size exceeded/.test(message)) return new ContractFailure(CONTRACT_LIMIT_EXCEEDED, STACK_EXCEEDED);
    // Only the contract's own frames: the record is part of the ledger, so it must not depend on where or
    // which version of this node runs it.
    const frames = (error instanceof Error ? (error.stack ?? "") : "").split("\n").filter((l) => l.includes("contract.js:"));
    const line = /contract\.js:(\d+)/.exec(frames[0] ?? "");
    const exception = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return new ContractFailure(CONTRACT_EXECUTE_FAIL, truncateUtf8(exception), line ? Number(line[1]) : 0, truncateUtf8(frames.map((l) => l.trim()).join("\n"), 2048));
  }

  /**
   * A compiled script, kept per isolate while small: compiled code lives in the isolate's heap, which the
   * contracts' own limit shares, so the cache holds at most SCRIPT_CACHE_BYTES of source, least recently
   * used first out. An evicted script is left to the garbage collector (a running execution may hold it).
   */
  private async compile(isolate: ivm.Isolate, source: string, filename: string): Promise<ivm.Script> {
    let cache = this.scripts.get(isolate);
    if (!cache) this.scripts.set(isolate, (cache = new Map()));
    const cached = cache.get(source);
    if (cached) {
      cache.delete(source);
      cache.set(source, cached);
      return cached;
    }
    const script = await isolate.compileScript(source, { filename });
    if (source.length <= SCRIPT_CACHE_BYTES / 8) {
      cache.set(source, script);
      let total = 0;
      for (const key of cache.keys()) total += key.length;
      for (const key of cache.keys()) {
        if (total <= SCRIPT_CACHE_BYTES) break;
        cache.delete(key);
        total -= key.length;
      }
    }
    return script;
  }

  private instrument(code: string): string {
    try {
      return instrumentCached(code, this.limits);
    } catch (error) {
      if (error instanceof ContractSourceError) throw new ContractFailure(error.code, truncateUtf8(error.message));
      throw error;
    }
  }

  private isolate(depth: number): ivm.Isolate {
    let isolate = this.isolates[depth];
    if (!isolate || isolate.isDisposed) {
      isolate = new ivm.Isolate({ memoryLimit: this.limits.heapMiB });
      this.isolates[depth] = isolate;
    }
    return isolate;
  }
}
