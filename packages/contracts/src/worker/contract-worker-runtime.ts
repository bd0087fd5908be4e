import { spawn, type ChildProcess } from "node:child_process";
import { setPriority } from "node:os";
import { fileURLToPath } from "node:url";
import { ContractFailure, ENGINE_MEMORY_LIMIT, GuardTripped, TIME_EXPIRED } from "../failure.js";
import { BuiltinError } from "../host.js";
import type { ContractLimits } from "../limits.js";
import type { ExecutionOutcome, ExecutionRequest } from "../js/js-runtime.js";
import type { ContractLanguage, ContractRuntime } from "../runtime.js";
import type { FromWorker, MeteredStoreOptions, MeterState, RunFailure, ToWorker } from "./protocol.js";

/** The error a failure reported by the worker stands for (a host failure is rebuilt by the caller). */
function rebuild(failure: RunFailure): Error {
  if (failure.kind === "contract") return failure.guard ? new GuardTripped(failure.exception) : new ContractFailure(failure.code, failure.exception, failure.linenum, failure.stack);
  if (failure.kind === "error") return new Error(failure.message);
  return new Error("a contract transaction failed");
}

export interface WorkerOptions {
  /** RLIMIT_STACK of the worker in KiB: its isolate threads get that much real stack. */
  stackKiB?: number;
  /** Where a worker's death is reported. */
  log?: (line: string) => void;
  /** The worker's nice value (0 to 19): a worker of queries yields the CPU to the one of ledgers. */
  niceness?: number;
  /** Metered code kept on disk (metered-store.ts), so that a contract is instrumented once. */
  metered?: MeteredStoreOptions;
}

/** The real stack an isolate needs so that the stack model (512 KiB) always trips far earlier (docs/contracts.md §13). */
const MIN_STACK_BYTES = 16 * 1024 * 1024;
const WORKER_PATH = fileURLToPath(new URL("./worker-main.js", import.meta.url));
/**
 * How long past its clock guard a run may go before its worker is killed: V8 checks the clock only between
 * JavaScript steps, so a built-in stuck in native code (a generic `shift` over a huge `length`) would
 * otherwise hold the worker, and every later run, for good.
 */
const OVERRUN_GRACE_MS = 1_000;

interface Child {
  process: ChildProcess;
  /** Why this worker was killed on purpose, for the runs it had. */
  killedFor?: string;
  ready: Promise<void>;
  runs: Map<number, Run>;
  validations: Map<number, { resolve: () => void; reject: (error: Error) => void }>;
  /** Code being prepared or checked (ClockPause): the runs' watchdogs wait meanwhile. */
  pause: ClockPause;
}

/**
 * Preparing a contract's code (instrumenting it on a cache miss) and checking code for deployment are not
 * counted by the clock guard (docs/contracts.md §13, "Preparing a contract's code"): while either goes on in
 * a worker, the watchdogs of its runs are stopped, and afterwards moved by the time it took; a worker stuck
 * that long anyway is killed after PREPARE_LIMIT_MS. Counted, a cold 250 KB contract had its worker killed at
 * each call, before its first step (review of 2026-11-27).
 */
interface ClockPause {
  depth: number;
  since: number;
  watchdog?: NodeJS.Timeout;
}
const PREPARE_LIMIT_MS = 30_000;

interface Run {
  request: ExecutionRequest;
  resolve: (outcome: ExecutionOutcome) => void;
  reject: (error: Error) => void;
  /** performance.now() at which the worker is killed if the run has not ended (moved by uncounted time). */
  killAt: number;
  watchdog?: NodeJS.Timeout;
}

/**
 * Runs contracts in a child process (worker-main.ts), so that nothing a contract does (V8 aborting on
 * out-of-memory included) can end the validator. A dead worker fails the runs it had with a guard trip
 * (GuardTripped "Memory exceeding limit (engine)") and the next run starts a new one. Host calls and logs
 * travel over IPC; the step meter stays here and is sent with every message, so nested runs share one
 * budget as in-process.
 */
export class ContractWorkerRuntime implements ContractRuntime {
  private child?: Child;
  private nextRun = 0;
  private disposed = false;
  private readonly stackKiB: number;
  private readonly killOnExit = () => this.child?.process.kill("SIGKILL");

  constructor(
    private readonly limits: ContractLimits,
    private readonly options: WorkerOptions = {},
  ) {
    this.stackKiB = options.stackKiB ?? 65536;
    process.once("exit", this.killOnExit);
    // Started now, so that no run waits for it (a start takes a few hundred milliseconds).
    this.start().ready.catch(() => {});
  }

  /** Checks code in the worker: instrumenting it takes up to seconds, which the validator's event loop cannot spare. */
  async validate(code: string, language: ContractLanguage): Promise<void> {
    const child = this.start();
    await child.ready;
    const id = this.nextRun++;
    this.pauseClock(child);
    return new Promise<void>((resolve, reject) => {
      child.validations.set(id, { resolve, reject });
      this.send(child, { type: "validate", id, code, language });
    }).finally(() => this.resumeClock(child));
  }

  /** The worker's process id, once started (tests kill it). */
  get pid(): number | undefined {
    return this.child?.process.pid;
  }

  async execute(request: ExecutionRequest): Promise<ExecutionOutcome> {
    const child = this.start();
    const waitStarted = performance.now();
    await child.ready;
    // A run whose worker was still starting does not lose that time to the clock guard.
    const waited = performance.now() - waitStarted;
    const id = this.nextRun++;
    const timeLeftMs = Math.max(1, request.deadline + waited - performance.now());
    let run!: Run;
    return new Promise<ExecutionOutcome>((resolve, reject) => {
      run = { request, resolve, reject, killAt: performance.now() + timeLeftMs + OVERRUN_GRACE_MS };
      child.runs.set(id, run);
      this.arm(child, id, run);
      this.send(child, {
        type: "execute",
        id,
        code: request.code,
        language: request.language,
        entry: request.entry,
        input: request.input,
        env: request.env,
        readOnly: request.readOnly,
        depth: request.depth,
        limit: request.meter.limit,
        meter: meterState(request),
        timeLeftMs,
      });
    }).finally(() => clearTimeout(run.watchdog));
  }

  /** (Re)sets the run's watchdog: the worker is killed at `run.killAt` if the run is still in it (not while the clock is paused). */
  private arm(child: Child, id: number, run: Run): void {
    clearTimeout(run.watchdog);
    if (child.pause.depth > 0) return;
    run.watchdog = setTimeout(() => {
      if (!child.runs.has(id)) return;
      child.killedFor ??= TIME_EXPIRED;
      child.process.kill("SIGKILL");
    }, Math.max(0, run.killAt - performance.now()));
  }

  private pauseClock(child: Child): void {
    const { pause } = child;
    if (pause.depth++ > 0) return;
    pause.since = performance.now();
    for (const run of child.runs.values()) clearTimeout(run.watchdog);
    pause.watchdog = setTimeout(() => {
      child.killedFor ??= TIME_EXPIRED;
      child.process.kill("SIGKILL");
    }, PREPARE_LIMIT_MS);
  }

  private resumeClock(child: Child): void {
    const { pause } = child;
    if (pause.depth === 0 || --pause.depth > 0) return;
    clearTimeout(pause.watchdog);
    const paused = performance.now() - pause.since;
    for (const [id, run] of child.runs) {
      run.killAt += paused;
      this.arm(child, id, run);
    }
  }

  dispose(): void {
    this.disposed = true;
    process.removeListener("exit", this.killOnExit);
    const child = this.child;
    this.child = undefined;
    if (!child) return;
    child.process.kill("SIGKILL");
    for (const run of child.runs.values()) run.reject(new Error("the contract runtime is disposed"));
    for (const validation of child.validations.values()) validation.reject(new Error("the contract runtime is disposed"));
    child.runs.clear();
    child.validations.clear();
  }

  private start(): Child {
    if (this.disposed) throw new Error("the contract runtime is disposed");
    if (this.child) return this.child;
    const flags = ["--no-node-snapshot", "--enable-experimental-regexp-engine"];
    // `ulimit -s` before exec: isolated-vm's isolate threads take the process's stack limit as their stack size.
    const process_ = spawn("/bin/sh", ["-c", 'ulimit -s "$0" && exec "$@"', String(this.stackKiB), process.execPath, ...flags, WORKER_PATH], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      serialization: "advanced",
    });
    if (this.options.niceness && process_.pid !== undefined) setPriority(process_.pid, this.options.niceness);
    let started = false;
    let ready!: () => void;
    let failed!: (error: Error) => void;
    const child: Child = { process: process_, ready: new Promise((resolve, reject) => ((ready = resolve), (failed = reject))), runs: new Map(), validations: new Map(), pause: { depth: 0, since: 0 } };
    child.ready.catch(() => {});
    this.child = child;
    process_.on("message", (message: FromWorker) => {
      if (message.type === "ready") {
        if (message.stackBytes >= MIN_STACK_BYTES) {
          started = true;
          ready();
        }
        else {
          failed(new Error(`the contract worker's isolates have less than ${MIN_STACK_BYTES / 2 ** 20} MiB of stack (${(message.stackBytes / 2 ** 20).toFixed(1)} MiB): raise the hard limit of \`ulimit -s\` (${this.stackKiB} KiB is asked)`));
          process_.kill("SIGKILL");
        }
      } else {
        this.receive(child, message);
      }
    });
    process_.on("error", (error) => failed(error));
    process_.on("exit", (code, signal) => {
      failed(new Error(`the contract worker exited during start-up (${signal ?? `code ${code}`}); is \`ulimit -s ${this.stackKiB}\` allowed here?`));
      if (this.child === child) this.child = undefined;
      // A run in flight when its worker died becomes a guard trip, never a recorded result.
      const reason = child.killedFor ?? ENGINE_MEMORY_LIMIT;
      if (child.runs.size > 0) this.options.log?.(`contract worker ${process_.pid} ${child.killedFor ? "killed" : "died"} (${signal ?? `code ${code}`}) with ${child.runs.size} run(s): they fail with 155 ${reason}`);
      for (const run of child.runs.values()) {
        clearTimeout(run.watchdog);
        run.request.meter.fatal ??= new GuardTripped(reason);
        run.reject(new GuardTripped(reason));
      }
      child.runs.clear();
      clearTimeout(child.pause.watchdog);
      // A deployment whose check was in the dying worker is not decided either way: a guard trip too.
      for (const validation of child.validations.values()) validation.reject(new GuardTripped(reason));
      child.validations.clear();
      // A worker that had started is replaced at once; one that failed to start is retried by the next run.
      if (started && !this.disposed && this.child === undefined) this.start().ready.catch(() => {});
    });
    this.send(child, { type: "init", limits: this.limits, minStackBytes: MIN_STACK_BYTES, metered: this.options.metered });
    return child;
  }

  private send(child: Child, message: ToWorker): void {
    if (child.process.connected) child.process.send(message);
  }

  private receive(child: Child, message: FromWorker): void {
    if (message.type === "validated") {
      const validation = child.validations.get(message.id);
      child.validations.delete(message.id);
      if (!message.failure) validation?.resolve();
      else validation?.reject(rebuild(message.failure));
      return;
    }
    const run = child.runs.get((message as { id: number }).id);
    if (!run) return;
    const { request } = run;
    switch (message.type) {
      case "log":
        request.log(message.text);
        return;
      case "preparing":
        this.pauseClock(child);
        return;
      case "uncounted":
        this.resumeClock(child);
        request.uncounted?.(message.ms);
        return;
      case "hostCall":
        void this.hostCall(child, request, message);
        return;
      case "done": {
        child.runs.delete(message.id);
        applyMeter(request, message.meter);
        if (message.outcome) return run.resolve(message.outcome);
        const failure = message.failure!;
        if (failure.kind === "host") return run.reject(request.meter.fatal ?? new Error("a contract transaction failed"));
        const error = rebuild(failure);
        // A limit fails the whole user transaction, even in a run that catches the nested failure.
        if (failure.kind === "contract" && failure.fatal) request.meter.fatal ??= error;
        return run.reject(request.meter.fatal && failure.kind === "contract" && failure.fatal ? request.meter.fatal : error);
      }
    }
  }

  private async hostCall(child: Child, request: ExecutionRequest, message: Extract<FromWorker, { type: "hostCall" }>): Promise<void> {
    applyMeter(request, message.meter);
    let reply: ToWorker;
    try {
      const result = await request.host.call(message.name, message.args);
      reply = { type: "answer", call: message.call, meter: meterState(request), result };
    } catch (error) {
      const builtin = error instanceof BuiltinError;
      if (!builtin) request.meter.fatal ??= error as Error;
      reply = { type: "answer", call: message.call, meter: meterState(request), error: { builtin, message: (error as Error).message } };
    }
    if (this.child === child) this.send(child, reply);
  }
}

function meterState(request: ExecutionRequest): MeterState {
  return { used: request.meter.used, exhausted: request.meter.exhausted, fatal: request.meter.fatal !== undefined };
}

function applyMeter(request: ExecutionRequest, state: MeterState): void {
  request.meter.used = state.used;
  if (state.exhausted) request.meter.exhausted = true;
}
