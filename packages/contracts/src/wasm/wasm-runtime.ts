import ivm from "isolated-vm";
import { createHash } from "node:crypto";
import {
  CONTRACT_EXECUTE_FAIL,
  CONTRACT_INVALID,
  CONTRACT_LIMIT_EXCEEDED,
  ContractFailure,
  ENGINE_MEMORY_LIMIT,
  ENGINE_SUFFIX,
  GuardTripped,
  STEP_LIMIT,
  TIME_EXPIRED,
  truncateUtf8,
} from "../failure.js";
import { countSteps, hostedIsolate } from "../host-bridge.js";
import { NOT_CROSSABLE, type ExecutionOutcome, type ExecutionRequest } from "../js/js-runtime.js";
import type { ContractLimits } from "../limits.js";
import { instrumenterBuild, type MeteredStore } from "../metered-store.js";
import type { ContractRuntime } from "../runtime.js";
import { ENTRY_CODES, stringToName } from "./abi.js";
import { wasmBootstrap, type WasmBootstrapConfig, type WasmRunReport, type WasmRunRequest } from "./bootstrap.js";
import { instrumentWasm } from "./instrument.js";
import { instantiationSize } from "./memory-section.js";

/** The build of the wasm instrumenter, for the store of metered modules (metered-store.ts). */
export const WASM_INSTRUMENTER_BUILD = instrumenterBuild(
  ["./instrument.js", "./ir.js", "./memory-section.js", "./abi.js"].map((file) => new URL(file, import.meta.url).href),
  ["binaryen"],
);

/** The Chain built-ins of docs/wasm-abi.md §3, answered by the chain host. */
const CHAIN_BUILTINS = [
  "load", "store", "del", "getBlockHash", "tlog", "getAccountMetadata", "getBalance", "getAccountAsset", "getAccountPrivilege",
  "getContractProperty", "payCoin", "issueAsset", "payAsset", "delegateCall", "delegateQuery", "contractCall", "contractQuery", "contractCreate",
];
/** The Utils built-ins answered by utils-host.ts. */
const CRYPTO_BUILTINS = ["sha256", "ecVerify", "toAddress", "addressCheck", "bpRangeProofVerify", "pedersenTallyVerify"];

/** Compiled modules kept in memory; a Go module's compiled code is a few MB. */
const CACHED_MODULES = 32;
/** Isolates kept for the next runs; nested runs need one each, and make more. */
const IDLE_ISOLATES = 4;
const WASM_HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

/** A checked, metered and compiled module, ready to instantiate in any isolate. */
interface PreparedModule {
  module: ivm.ExternalCopy<unknown>;
  instantiateSteps: number;
}

/** An isolate with the bootstrap evaluated, and the request its host references serve. */
interface RunIsolate {
  isolate: ivm.Isolate;
  run: ivm.Reference;
  slot: { request?: ExecutionRequest };
  references: ivm.Reference[];
}

/** The bytes of a payload, or the 156 that refuses it (docs/wasm-abi.md §1). */
function decodePayload(payload: string): Uint8Array {
  const bytes = Buffer.from(payload, "base64");
  // Canonical base64 only (padding, no line breaks): it must encode back to itself. A regular expression
  // ran out of V8's backtracking stack on payloads past 4.4 M characters.
  if (bytes.toString("base64") !== payload) throw new ContractFailure(CONTRACT_INVALID, "the payload of a wasm contract must be the base64 of a .wasm file");
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
}

/**
 * A module checked, metered and compiled as a deployment does it; a refusal is a ContractFailure (156)
 * saying why. The SDKs' build commands call it too, so that what they build is what a validator takes.
 */
export function meterWasmModule(bytes: Uint8Array, limits: ContractLimits): { metered: Uint8Array; compiled: WebAssembly.Module } {
  if (bytes.length > limits.wasmCodeBytes) throw new ContractFailure(CONTRACT_INVALID, `the module is ${bytes.length} bytes; at most ${limits.wasmCodeBytes} are allowed`);
  if (!WASM_HEADER.every((byte, i) => bytes[i] === byte)) throw new ContractFailure(CONTRACT_INVALID, "the payload is not a wasm module (no \\0asm version 1 header)");
  try {
    const metered = instrumentWasm(bytes, { maxPages: limits.wasmMaxPages, stackBytes: limits.stackBytes });
    const compiled = new WebAssembly.Module(metered);
    checkInstantiation(compiled);
    return { metered, compiled };
  } catch (error) {
    if (error instanceof ContractFailure) throw error;
    // Anything else (binaryen aborting, V8 out of memory) may depend on the machine: a guard, never a result.
    throw new GuardTripped(`the module could not be metered: ${(error as Error).message}${ENGINE_SUFFIX}`);
  }
}

/**
 * Refuses (156) a module that cannot be instantiated, such as one whose data does not fit its memory: found
 * at deployment, not in every run. Nothing of the module runs (it has no start function), so the imports
 * are never called.
 */
function checkInstantiation(module: WebAssembly.Module): void {
  const imports: Record<string, Record<string, unknown>> = {};
  for (const { module: from, name } of WebAssembly.Module.imports(module)) (imports[from] ??= {})[name] = () => {};
  try {
    new WebAssembly.Instance(module, imports);
  } catch (error) {
    throw new ContractFailure(CONTRACT_INVALID, `the module cannot be instantiated: ${(error as Error).message}`);
  }
}

/** `apply`'s action: StringToName of the input's method, the entry's own name for an empty input (docs/wasm-abi.md §2). */
function actionOf(entry: string, input: string): bigint {
  let method: unknown = entry;
  if (input !== "") {
    try {
      const parsed: unknown = JSON.parse(input);
      method = parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as { method?: unknown }).method : undefined;
    } catch {
      method = undefined;
    }
  }
  return typeof method === "string" ? (stringToName(method) ?? 0n) : 0n;
}

function environmentOf(request: ExecutionRequest): Record<string, unknown> {
  const { env } = request;
  return {
    input: request.input,
    thisAddress: env.thisAddress,
    "block.timestamp": env.block.timestamp,
    "block.number": env.block.number,
    "tx.initiator": env.tx.initiator,
    "tx.sender": env.tx.sender,
    "tx.hash": env.tx.hash,
    "tx.gasPrice": env.tx.gasPrice,
    "tx.feeLimit": env.tx.feeLimit,
    "msg.initiator": env.msg.initiator,
    "msg.sender": env.msg.sender,
    "msg.coinAmount": env.msg.coinAmount ?? null,
    "msg.nonce": env.msg.nonce,
    "msg.operationIndex": env.msg.operationIndex,
    "msg.asset": env.msg.asset ?? null,
  };
}

/**
 * WebAssembly contracts (C++ and Go), run in isolated-vm isolates. A module is checked and metered once per
 * code (instrument.ts), compiled once, and instantiated fresh for every run, so that nothing a run leaves
 * reaches the next; an isolate only holds the bootstrap and is reused. Steps, the stack and memory are
 * counted by the instrumented module itself; the wall clock is a guard only (docs/wasm-abi.md §7).
 */
export class WasmRuntime implements ContractRuntime {
  private readonly modules = new Map<string, PreparedModule>();
  private readonly idle: RunIsolate[] = [];
  private readonly live = new Set<ivm.Isolate>();
  private disposed = false;

  constructor(
    private readonly limits: ContractLimits,
    /** Metered modules on disk, so that a module is instrumented once per validator. */
    private readonly store?: MeteredStore,
  ) {}

  async validate(payload: string): Promise<void> {
    this.prepared(payload);
  }

  async execute(request: ExecutionRequest): Promise<ExecutionOutcome> {
    const preparing = performance.now();
    const prepared = this.prepared(request.code, request);
    // Preparing the module (on a cache miss) is not the run's: its clock and apply_time start after it.
    const started = performance.now();
    const deadline = request.deadline + (started - preparing);
    const worker = await this.take();
    worker.slot.request = request;
    let reusable = false;
    try {
      const run: WasmRunRequest = {
        entryCode: ENTRY_CODES[request.entry],
        action: actionOf(request.entry, request.input).toString(),
        environment: environmentOf(request),
        budget: request.meter.limit - request.meter.used,
        instantiateSteps: prepared.instantiateSteps,
      };
      const timeout = Math.max(1, Math.floor(deadline - performance.now()));
      const reportJson = (await worker.run.apply(undefined, [prepared.module.copyInto(), JSON.stringify(run)], { timeout, result: { copy: true } })) as string;
      reusable = true;
      const report = JSON.parse(reportJson) as WasmRunReport;
      countSteps(request.meter, report.spent);
      this.check(report, request);
      return {
        value: report.value ?? NOT_CROSSABLE,
        memoryUsage: report.memory,
        stackUsage: report.stackPeak,
        applyTimeUs: Math.round((performance.now() - started) * 1000),
      };
    } catch (error) {
      throw this.failure(error, worker.isolate, request);
    } finally {
      worker.slot.request = undefined;
      this.release(worker, reusable);
    }
  }

  dispose(): void {
    this.disposed = true;
    for (const isolate of this.live) if (!isolate.isDisposed) isolate.dispose();
    this.live.clear();
    this.idle.length = 0;
    // A copy not released keeps the process alive.
    for (const prepared of this.modules.values()) prepared.module.release();
    this.modules.clear();
  }

  /** Throws how a run that the bootstrap saw to its end failed, if it did. */
  private check(report: WasmRunReport, request: ExecutionRequest): void {
    const { kind, message = "" } = report.ending;
    if (request.meter.fatal) throw request.meter.fatal;
    if (kind === "step" || request.meter.exhausted) {
      request.meter.exhausted = true;
      throw new ContractFailure(CONTRACT_LIMIT_EXCEEDED, STEP_LIMIT);
    }
    if (kind === "limit") throw new ContractFailure(CONTRACT_LIMIT_EXCEEDED, message);
    // V8's own stack ran out before the model's limit: a guard, like the clock (docs/contracts.md §13).
    if (kind === "engine") throw new GuardTripped(`Stack exceeding limit${ENGINE_SUFFIX}`);
    if (kind !== "ok") throw new ContractFailure(CONTRACT_EXECUTE_FAIL, truncateUtf8(message));
  }

  private failure(error: unknown, isolate: ivm.Isolate, request: ExecutionRequest): Error {
    if (request.meter.fatal) return request.meter.fatal;
    if (error instanceof ContractFailure) return error;
    if (isolate.isDisposed) return new GuardTripped(ENGINE_MEMORY_LIMIT);
    const message = error instanceof Error ? error.message : String(error);
    if (/Script execution timed out/.test(message)) return new GuardTripped(TIME_EXPIRED);
    return new ContractFailure(CONTRACT_EXECUTE_FAIL, truncateUtf8(message));
  }

  /** The module of `payload`, checked, metered and compiled; preparing it tells `request` (its clocks stop). */
  private prepared(payload: string, request?: ExecutionRequest): PreparedModule {
    const key = createHash("sha256").update(payload).digest("hex");
    const hit = this.modules.get(key);
    if (hit) {
      this.modules.delete(key);
      this.modules.set(key, hit);
      return hit;
    }
    const started = performance.now();
    request?.preparing?.();
    try {
      const bytes = decodePayload(payload);
      const stored = this.store?.getBytes(key);
      const { metered, compiled } = stored ? { metered: stored, compiled: new WebAssembly.Module(stored) } : meterWasmModule(bytes, this.limits);
      if (!stored) this.store?.putBytes(key, metered);
      const { initialPages, dataBytes } = instantiationSize(metered);
      const prepared: PreparedModule = {
        module: new ivm.ExternalCopy(compiled),
        // Zeroing the initial memory and copying the data in: a step a page, and one per size unit of data.
        instantiateSteps: initialPages + Math.ceil(dataBytes / this.limits.sizeUnit),
      };
      this.modules.set(key, prepared);
      for (const [oldKey, old] of this.modules) {
        if (this.modules.size <= CACHED_MODULES) break;
        this.modules.delete(oldKey);
        old.module.release();
      }
      return prepared;
    } finally {
      request?.uncounted?.(performance.now() - started);
    }
  }

  private async take(): Promise<RunIsolate> {
    if (this.disposed) throw new Error("the contract runtime is disposed");
    return this.idle.pop() ?? (await this.create());
  }

  private release(worker: RunIsolate, reusable: boolean): void {
    if (reusable && !this.disposed && !worker.isolate.isDisposed && this.idle.length < IDLE_ISOLATES) {
      this.idle.push(worker);
      return;
    }
    for (const reference of [worker.run, ...worker.references]) reference.release();
    this.live.delete(worker.isolate);
    if (!worker.isolate.isDisposed) worker.isolate.dispose();
  }

  private async create(): Promise<RunIsolate> {
    const { isolate, slot, references } = hostedIsolate(this.limits);
    this.live.add(isolate);
    const context = await isolate.createContext();
    const factory = (await context.eval(`(${wasmBootstrap.toString()})`, { reference: true })) as ivm.Reference;
    const config: WasmBootstrapConfig = {
      instructionsPerStep: this.limits.wasmInstructionsPerStep,
      builtinSteps: this.limits.builtinSteps,
      costlyBuiltinSteps: this.limits.costlyBuiltinSteps,
      sizeUnit: this.limits.sizeUnit,
      maxLogLength: this.limits.maxLogLength,
      stackBytes: this.limits.stackBytes,
      chainBuiltins: CHAIN_BUILTINS,
      cryptoBuiltins: CRYPTO_BUILTINS,
    };
    const run = (await factory.apply(undefined, [...references, JSON.stringify(config)], { result: { reference: true } })) as ivm.Reference;
    factory.release();
    return { isolate, run, slot, references };
  }
}
