// The IPC messages between a validator and its contract worker (contract-worker-runtime.ts, worker-main.ts).
import type { ContractLimits } from "../limits.js";
import type { ExecutionOutcome, ExecutionRequest } from "../js/js-runtime.js";
import type { ContractLanguage } from "../runtime.js";

/** Where a worker keeps metered code on disk (metered-store.ts); only a writable store adds to it. */
export interface MeteredStoreOptions {
  dir: string;
  writable: boolean;
}

/** The shared step meter's state as it travels with each message. */
export interface MeterState {
  used: number;
  exhausted: boolean;
  /** A failure that fails the whole user transaction (a limit, a failed sub-transaction) happened. */
  fatal: boolean;
}

/** How a run failed, so the parent can rebuild the same error. */
export type RunFailure =
  /** `guard`: a GuardTripped (failure.ts), which the node never records as a result. */
  | { kind: "contract"; code: number; exception: string; linenum: number; stack: string; fatal: boolean; guard: boolean }
  /** A failure that came from the parent's host (a failed sub-transaction): the parent holds the error. */
  | { kind: "host" }
  | { kind: "error"; message: string };

export type ToWorker =
  /** `minStackBytes`: the real stack the worker must show its isolates have (measured up to there). */
  | { type: "init"; limits: ContractLimits; minStackBytes: number; metered?: MeteredStoreOptions }
  | (Pick<ExecutionRequest, "code" | "language" | "entry" | "input" | "env" | "readOnly" | "depth"> & {
      type: "execute";
      id: number;
      limit: number;
      meter: MeterState;
      /** Milliseconds left of the wall-clock guard. */
      timeLeftMs: number;
    })
  | { type: "answer"; call: number; meter: MeterState; result?: unknown; error?: { builtin: boolean; message: string } }
  /** Check code before deployment (ContractRuntime.validate). */
  | { type: "validate"; id: number; code: string; language: ContractLanguage };

export type FromWorker =
  | { type: "ready"; stackBytes: number }
  | { type: "hostCall"; id: number; call: number; name: string; args: unknown[]; meter: MeterState }
  | { type: "log"; id: number; text: string }
  | { type: "done"; id: number; meter: MeterState; outcome?: ExecutionOutcome; failure?: RunFailure }
  /** A run prepares its code (instrumenting on a cache miss, compiling a long text): the validator stops its clocks until `uncounted`. */
  | { type: "preparing"; id: number }
  /** A run spent `ms` preparing its code, which its clock guard does not count. */
  | { type: "uncounted"; id: number; ms: number }
  | { type: "validated"; id: number; failure?: RunFailure };
