import ivm from "isolated-vm";
import { setFlagsFromString } from "node:v8";
import type { ContractEnvironment, ContractHost } from "../host.js";
import { CONTRACT_EXECUTE_FAIL, CONTRACT_LIMIT_EXCEEDED, CONTRACT_SYNTAX_ERROR, ContractFailure, ENGINE_MEMORY_LIMIT, ENGINE_SUFFIX, GuardTripped, STEP_LIMIT, TIME_EXPIRED, truncateUtf8 } from "../failure.js";
import type { ContractLimits } from "../limits.js";
import type { ContractLanguage, ContractRuntime } from "../runtime.js";
import { countSteps, hostedIsolate, LONE_SURROGATE_UNITS } from "../host-bridge.js";
import { bootstrap, type BootstrapConfig, type RunReport } from "./bootstrap.js";
import { installChain } from "./chain-builtins.js";
import { installCallGuards } from "./guards/calls.js";
import { installCollectionGuards } from "./guards/collections.js";
import { installHashTableGuards } from "./guards/hash-tables.js";
import { makeGuardKit } from "./guards/kit.js";
import { installTextGuards } from "./guards/text.js";
import { instrumentContract, validateContract } from "../validate.js";
import { installUtils } from "./utils-builtins.js";

// Every contract regular expression runs on V8's linear-time engine (its `l` flag), so matching time grows
// with the input, never exponentially (docs/contracts.md §13). The flag only adds that engine.
setFlagsFromString("--enable-experimental-regexp-engine");

export type EntryPoint = "init" | "main" | "query";

/** Steps of one user transaction, shared by every contract it reaches. */
export interface StepMeter {
  used: number;
  readonly limit: number;
  exhausted: boolean;
  /** A failure that fails the whole transaction whatever the contract does (a failed sub-transaction, a limit). */
  fatal?: Error;
}

export interface ExecutionRequest {
  /** The contract's payload: JavaScript source, or the base64 of a wasm module. */
  code: string;
  language: ContractLanguage;
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
  /** Told that the contract's code is being prepared (instrumented on a cache miss, or a long metered text compiled). */
  preparing?: () => void;
  /**
   * Told, after `preparing`, the milliseconds preparing took, which the clock guard does not count: the
   * run's own deadline moves by as much, and so should the transaction's.
   */
  uncounted?: (ms: number) => void;
  log: (text: string) => void;
}

export interface ExecutionOutcome {
  /** The entry point's return value: a string, a boolean, or NOT_CROSSABLE. */
  value: unknown;
  /** Bytes of the deterministic memory model the run allocated. */
  memoryUsage: number;
  /** Peak bytes of the deterministic stack model (instrument.ts frameBytes). */
  stackUsage: number;
  applyTimeUs: number;
}

/** What an entry point's return value becomes when it is neither a string nor a boolean. */
export const NOT_CROSSABLE = Object.freeze({ notCrossable: true });

/**
 * Evaluates to the function that prepares a fresh isolate: it runs the bootstrap with the host references
 * and answers the functions the host drives the run with. Everything inside is strict. The parentheses
 * make V8 compile the functions eagerly, so that the code cache holds them.
 */
const BOOTSTRAP_SOURCE = `(function (call, crypto, log, exhausted, utf8Length, configJson) {
  "use strict";
  const api = (${bootstrap.toString()})(globalThis, { call, crypto, log, exhausted, utf8Length }, JSON.parse(configJson), [${[makeGuardKit, installTextGuards, installCollectionGuards, installHashTableGuards, installCallGuards].map((f) => `(${f.toString()})`).join(", ")}], (${installUtils.toString()}), (${installChain.toString()}));
  return api;
})`;

/**
 * Isolates kept prepared: preparing one (about 4 ms) takes longer than a typical run, so two are kept.
 */
const SPARE_ISOLATES = 2;

/**
 * Metered text longer than this is compiled with the validator's clocks stopped (`preparing`, `uncounted`):
 * compiling 2 Mi characters takes V8 a good part of a second, 64 Ki well under a millisecond.
 */
const UNCOUNTED_COMPILE_CHARS = 64 * 1024;

/** Not "contract.js": stack traces keep only the contract's own frames. */
const BOOTSTRAP_FILENAME = "chainsim-bootstrap";

/** An isolate with the bootstrap done, waiting for its one run. */
interface PreparedIsolate {
  isolate: ivm.Isolate;
  context: ivm.Context;
  /** The request the isolate's host references serve. */
  slot: { request?: ExecutionRequest };
  begin: ivm.Reference;
  run: ivm.Reference;
  counts: ivm.Reference;
  references: ivm.Reference[];
}

/**
 * JavaScript contracts in isolated-vm. Every run (each nesting level too) gets an isolate of its own that
 * is disposed afterwards, so nothing a run leaves (symbols, heap, compiled code) reaches the next one; one
 * isolate is kept prepared so that creating it stays off the critical path. Steps, the stack and memory are
 * counted by deterministic models inside the isolate (bootstrap.ts); V8's heap limit and the wall clock
 * are guards only (docs/contracts.md §13).
 */
export class JsRuntime implements ContractRuntime {
  /** Isolates being prepared or ready, oldest first. */
  private readonly spares: Promise<PreparedIsolate>[] = [];
  private readonly live = new Set<ivm.Isolate>();
  /** V8's code cache of the bootstrap, shared by every isolate: compiling it is most of preparing one. */
  private bootstrapCache?: ivm.ExternalCopy<ArrayBuffer>;
  private disposed = false;

  constructor(private readonly limits: ContractLimits) {}

  async validate(code: string): Promise<void> {
    validateContract(code, this.limits);
  }

  async execute(request: ExecutionRequest): Promise<ExecutionOutcome> {
    const started = performance.now();
    const code = this.instrument(request);
    // Instrumenting is deterministic work bounded by the source's size, slow only on a cache miss (a new
    // worker, a validator restarted): the clock starts after it, so that a miss cannot decide a run.
    let deadline = request.deadline + (performance.now() - started);
    const prepared = await this.take();
    const { isolate, context } = prepared;
    prepared.slot.request = request;
    let counted = false;
    try {
      await prepared.begin.apply(undefined, [request.meter.limit - request.meter.used, JSON.stringify(request.env), request.readOnly, code.length]);
      let script: ivm.Script;
      // V8's compile of the metered text (at most 2 Mi characters) is no more the run's than instrumenting.
      // Only a long text's is worth the validator's stopping its clocks: a short one compiles in a millisecond.
      const long = code.length > UNCOUNTED_COMPILE_CHARS;
      if (long) request.preparing?.();
      const compiling = performance.now();
      try {
        script = await isolate.compileScript(code, { filename: "contract.js" });
      } catch (error) {
        if (isolate.isDisposed) throw error;
        // isolated-vm appends "[contract.js:line:column]"; the column is one of the instrumented text (a build detail).
        const message = String((error as Error).message);
        const where = / \[contract\.js:(\d+):\d+\]$/.exec(message);
        throw new ContractFailure(CONTRACT_SYNTAX_ERROR, truncateUtf8(where ? message.slice(0, where.index) : message), where ? Number(where[1]) : 0);
      } finally {
        const ms = performance.now() - compiling;
        deadline += ms;
        if (long) request.uncounted?.(ms);
      }
      const timeout = () => Math.max(1, Math.floor(deadline - performance.now()));
      const wrapper = (await script.run(context, { reference: true, timeout: timeout() })) as ivm.Reference;
      const reportJson = (await prepared.run.apply(undefined, [wrapper.derefInto(), request.entry, request.input], { timeout: timeout(), result: { copy: true } })) as string;
      wrapper.release();
      const report = JSON.parse(reportJson) as RunReport;
      counted = true;
      countSteps(request.meter, report.used);
      // A failed sub-transaction or a limit fails the execution even when the contract caught it.
      if (request.meter.fatal || request.meter.exhausted || report.dead) throw new Error("the run died on a limit");
      if (report.lost) throw new ContractFailure(CONTRACT_EXECUTE_FAIL, `Lost of ${request.entry} function`);
      if (report.thrown) {
        const { exception, linenum, stack } = report.thrown;
        throw new ContractFailure(CONTRACT_EXECUTE_FAIL, truncateUtf8(exception), linenum, truncateUtf8(stack, 2048));
      }
      return {
        value: report.other ? NOT_CROSSABLE : report.value,
        memoryUsage: report.memory,
        stackUsage: report.stackPeak,
        applyTimeUs: Math.round((performance.now() - started) * 1000),
      };
    } catch (error) {
      if (!counted) await this.countAfterStop(prepared, request.meter);
      throw this.failure(error, isolate, request);
    } finally {
      prepared.slot.request = undefined;
      this.discard(prepared);
    }
  }

  /** The metered text of the request's code; on a cache miss, the validator is told before and after (its clocks stop meanwhile). */
  private instrument(request: ExecutionRequest): string {
    const started = performance.now();
    let missed = false;
    try {
      return instrumentContract(request.code, this.limits, () => {
        missed = true;
        request.preparing?.();
      });
    } finally {
      // Told even when the code is refused (callContract's code is not checked first): `preparing` stopped the clock.
      if (missed) request.uncounted?.(performance.now() - started);
    }
  }

  /** Prepares the spare isolates now (the first one also fills the code cache), so the first run need not. */
  async warm(): Promise<void> {
    while (this.spares.length < SPARE_ISOLATES) this.spares.push(this.prepare());
    await Promise.all(this.spares);
  }

  dispose(): void {
    this.disposed = true;
    for (const isolate of this.live) if (!isolate.isDisposed) isolate.dispose();
    this.live.clear();
    this.spares.length = 0;
  }

  /** The prepared isolate, and the preparation of the next one started. */
  private async take(): Promise<PreparedIsolate> {
    if (this.disposed) throw new Error("the contract runtime is disposed");
    const next = this.spares.shift() ?? this.prepare();
    // Refilled once the event loop is free (while runs wait for host calls, or between them): creating an
    // isolate blocks this thread for about 1.5 ms.
    setImmediate(() => {
      while (!this.disposed && this.spares.length < SPARE_ISOLATES) {
        const spare = this.prepare();
        spare.catch(() => {}); // a failure surfaces when that isolate is taken
        this.spares.push(spare);
      }
    });
    return next;
  }

  private async prepare(): Promise<PreparedIsolate> {
    const hosted = hostedIsolate(this.limits);
    const { isolate, slot, active } = hosted;
    this.live.add(isolate);
    const references = [
      ...hosted.references,
      new ivm.Reference((reason: unknown) => {
        const meter = active().meter;
        if (reason === STEP_LIMIT) meter.exhausted = true;
        else meter.fatal ??= String(reason).endsWith(ENGINE_SUFFIX) ? new GuardTripped(String(reason)) : new ContractFailure(CONTRACT_LIMIT_EXCEEDED, String(reason));
      }),
      new ivm.Reference((text: string) => Buffer.byteLength(text, "utf8")),
    ];
    try {
      const context = await isolate.createContext();
      const script = await isolate.compileScript(BOOTSTRAP_SOURCE, {
        filename: BOOTSTRAP_FILENAME,
        ...(this.bootstrapCache ? { cachedData: this.bootstrapCache } : { produceCachedData: true }),
      });
      const produced = (script as ivm.Script & ivm.CachedDataResult).cachedData;
      if (!this.bootstrapCache && produced) this.bootstrapCache = produced;
      const factory = (await script.run(context, { reference: true })) as ivm.Reference;
      const api = (await factory.apply(undefined, [...references, JSON.stringify(this.bootstrapConfig())], { result: { reference: true } })) as ivm.Reference;
      factory.release();
      const [begin, run, counts] = await Promise.all(["begin", "run", "counts"].map((name) => api.get(name, { reference: true }) as Promise<ivm.Reference>));
      api.release();
      return { isolate, context, slot, begin: begin!, run: run!, counts: counts!, references };
    } catch (error) {
      references.forEach((r) => r.release());
      this.live.delete(isolate);
      if (!isolate.isDisposed) isolate.dispose();
      throw error;
    }
  }

  private bootstrapConfig(): BootstrapConfig {
    const l = this.limits;
    return {
      stackBytes: l.stackBytes,
      memoryBytes: l.memoryBytes,
      builtinSteps: l.builtinSteps,
      costlyBuiltinSteps: l.costlyBuiltinSteps,
      sizeUnit: l.sizeUnit,
      maxStringLength: l.maxStringLength,
      maxReturnLength: l.maxReturnLength,
      maxLogLength: l.maxLogLength,
      guards: { maxStringLength: l.maxStringLength, unit: l.sizeUnit, memoryBytes: l.memoryBytes, loneSurrogateUnits: LONE_SURROGATE_UNITS },
    };
  }

  private discard(prepared: PreparedIsolate): void {
    for (const reference of [prepared.begin, prepared.run, prepared.counts, ...prepared.references]) reference.release();
    this.live.delete(prepared.isolate);
    if (!prepared.isolate.isDisposed) prepared.isolate.dispose();
  }

  /** Steps of a run the host stopped (time guard) or that threw past the bootstrap; nothing if the isolate is gone. */
  private async countAfterStop(prepared: PreparedIsolate, meter: StepMeter): Promise<void> {
    if (prepared.isolate.isDisposed) return;
    try {
      const counts = JSON.parse((await prepared.counts.apply(undefined, [], { timeout: 100, result: { copy: true } })) as string) as number[];
      countSteps(meter, counts[0]);
    } catch {
      // the isolate cannot answer: the execution failed anyway
    }
  }

  /** Maps how an execution ended to a ContractFailure, or the fatal error of a failed sub-transaction. */
  private failure(error: unknown, isolate: ivm.Isolate, request: ExecutionRequest): Error {
    if (request.meter.fatal) return request.meter.fatal;
    if (error instanceof ContractFailure) return error;
    if (request.meter.exhausted) return new ContractFailure(CONTRACT_LIMIT_EXCEEDED, STEP_LIMIT);
    // isolated-vm disposes an isolate that reaches V8's heap limit: a guard, like the clock.
    if (isolate.isDisposed) return new GuardTripped(ENGINE_MEMORY_LIMIT);
    const message = error instanceof Error ? error.message : String(error);
    if (/Script execution timed out/.test(message)) return new GuardTripped(TIME_EXPIRED);
    // Anything else escaped the bootstrap's own handling (V8 refused to run the code): the same on every validator.
    return new ContractFailure(CONTRACT_EXECUTE_FAIL, truncateUtf8(message));
  }
}
