// Runs inside a wasm run's isolate (wasm-runtime.ts): the imports of docs/wasm-abi.md §3 and §6 and one run
// of a module. This function's text is evaluated in the isolate, so it uses nothing from outside itself.
// Every answer is a function of the module, the request and the host's answers: nothing here reads a clock,
// entropy or the machine.

/** A host function the isolate calls (an isolated-vm reference). */
interface HostReference<T> {
  applySync(receiver: undefined, args: unknown[]): T;
  applySyncPromise(receiver: undefined, args: unknown[]): T;
}

export interface WasmBootstrapConfig {
  instructionsPerStep: number;
  builtinSteps: number;
  costlyBuiltinSteps: Record<string, number>;
  sizeUnit: number;
  maxLogLength: number;
  stackBytes: number;
  chainBuiltins: string[];
  cryptoBuiltins: string[];
}

/** One run, as the host asks for it. */
export interface WasmRunRequest {
  /** apply's `code`: 0 init, 1 main, 2 query. */
  entryCode: number;
  /** apply's `action` as a decimal string. */
  action: string;
  /** Values of the environment names of docs/wasm-abi.md §3, by name (the input among them). */
  environment: Record<string, unknown>;
  /** Steps left to the transaction. */
  budget: number;
  /** Steps instantiating the module costs (its memory and data). */
  instantiateSteps: number;
}

/** How a run ended, and what it counted. */
export interface WasmRunReport {
  /** Steps spent since the last host call. */
  spent: number;
  value?: string | boolean;
  memory: number;
  stackPeak: number;
  ending: { kind: "ok" | "fail" | "trap" | "step" | "limit" | "host" | "engine"; message?: string };
}

/**
 * `host` runs a Chain built-in on the chain host: (name, argsJson, spentSteps) → `{r}` or `{e}` with
 * `budget`; `crypto` a Utils built-in of utils-host.ts: (name, argsJson) → JSON; `log` takes a line.
 */
export function wasmBootstrap(host: HostReference<string>, crypto: HostReference<string>, log: HostReference<void>, configJson: string) {
  "use strict";
  const config = JSON.parse(configJson) as WasmBootstrapConfig;
  const K = BigInt(config.instructionsPerStep);
  const CHAIN = new Set(config.chainBuiltins);
  const CRYPTO = new Set(config.cryptoBuiltins);
  const EBADF = 8;
  const ENOSYS = 52;
  const KEPT_OUTPUT = 1024;
  /** Longest built-in name (bytes); longer ones are refused before anything is decoded. */
  const MAX_NAME_BYTES = 64;
  /** What a `fail` message is read of (bytes): the report keeps 256. */
  const MAX_FAIL_BYTES = 1024;
  /** fd_write's iovecs read for one step. */
  const IOVECS_PER_STEP = 16;

  class End {
    constructor(
      readonly kind: WasmRunReport["ending"]["kind"],
      readonly message: string,
    ) {}
  }

  function utf8Decode(bytes: Uint8Array): string {
    const units: number[] = [];
    let out = "";
    for (let i = 0; i < bytes.length; ) {
      const first = bytes[i]!;
      let point = 0xfffd;
      let size = 1;
      if (first < 0x80) point = first;
      else {
        const need = first >= 0xf0 && first <= 0xf4 ? 3 : first >= 0xe0 ? (first <= 0xef ? 2 : 0) : first >= 0xc2 ? 1 : 0;
        let value = need === 3 ? first & 7 : need === 2 ? first & 15 : first & 31;
        let ok = need > 0;
        for (let k = 1; ok && k <= need; k++) {
          const next = bytes[i + k];
          if (next === undefined || (next & 0xc0) !== 0x80) ok = false;
          else value = (value << 6) | (next & 0x3f);
        }
        const min = need === 1 ? 0x80 : need === 2 ? 0x800 : 0x10000;
        if (ok && value >= min && value <= 0x10ffff && (value < 0xd800 || value > 0xdfff)) {
          point = value;
          size = need + 1;
        }
      }
      i += size;
      if (point > 0xffff) units.push(0xd800 + ((point - 0x10000) >> 10), 0xdc00 + ((point - 0x10000) & 0x3ff));
      else units.push(point);
      if (units.length >= 8192) out += String.fromCharCode(...units.splice(0));
    }
    return out + String.fromCharCode(...units);
  }

  function utf8Encode(text: string): Uint8Array {
    const out: number[] = [];
    for (let i = 0; i < text.length; i++) {
      let point = text.charCodeAt(i);
      if (point >= 0xd800 && point <= 0xdbff && i + 1 < text.length) {
        const low = text.charCodeAt(i + 1);
        if (low >= 0xdc00 && low <= 0xdfff) {
          point = 0x10000 + ((point - 0xd800) << 10) + (low - 0xdc00);
          i++;
        }
      }
      if (point >= 0xd800 && point <= 0xdfff) point = 0xfffd;
      if (point < 0x80) out.push(point);
      else if (point < 0x800) out.push(0xc0 | (point >> 6), 0x80 | (point & 63));
      else if (point < 0x10000) out.push(0xe0 | (point >> 12), 0x80 | ((point >> 6) & 63), 0x80 | (point & 63));
      else out.push(0xf0 | (point >> 18), 0x80 | ((point >> 12) & 63), 0x80 | ((point >> 6) & 63), 0x80 | (point & 63));
    }
    return Uint8Array.from(out);
  }

  return function run(module: unknown, requestJson: string): string {
    const request = JSON.parse(requestJson) as WasmRunRequest;
    type Global = { value: bigint | number };
    let memory: { buffer: ArrayBuffer } | undefined;
    let gas: Global | undefined;
    let stack: Global | undefined;
    let peak: Global | undefined;
    let growFailed: Global | undefined;
    /** Gas when last settled; instructions spent in all; steps of them reported to the host. */
    let mark = 0n;
    let total = 0n;
    let reported = 0;
    let pending: Uint8Array = new Uint8Array(0);
    let value: string | boolean | undefined;
    let output = "";

    const buffer = () => memory!.buffer;
    const view = () => new DataView(buffer());
    function bytesAt(ptr: number, length: number): Uint8Array {
      ptr >>>= 0;
      length >>>= 0;
      if (ptr + length > buffer().byteLength) throw new End("trap", "memory access out of bounds");
      return new Uint8Array(buffer(), ptr, length);
    }
    /** Spends steps from the gas global, as if the module had run that many instructions. */
    function charge(steps: number): void {
      if (steps <= 0) return;
      gas!.value = (gas!.value as bigint) - BigInt(steps) * K;
      if ((gas!.value as bigint) < 0n) throw new End("step", "Step exceeding limit");
    }
    /** Steps the module's instructions took since the last settling, rounded up as a whole. */
    function settle(): number {
      const now = gas!.value as bigint;
      total += mark - now;
      mark = now;
      const steps = Number((total + K - 1n) / K);
      const due = steps - reported;
      reported = steps;
      return due;
    }
    /** The transaction's steps left, in gas; what the last reported step paid ahead stays available. */
    function refill(budget: number): void {
      gas!.value = BigInt(budget) * K + (BigInt(reported) * K - total);
      mark = gas!.value as bigint;
    }
    function parseArgs(name: string, text: string): unknown[] {
      let args: unknown;
      try {
        args = JSON.parse(text);
      } catch {
        args = undefined;
      }
      if (!Array.isArray(args)) throw new End("fail", `the arguments of ${name} are not a JSON array`);
      return args;
    }

    const env = {
      call(namePtr: number, nameLength: number, argsPtr: number, argsLength: number): number {
        // Paid before any work: a step, and one per size unit begun of what is read.
        const sizeSteps = Math.ceil(((nameLength >>> 0) + (argsLength >>> 0)) / config.sizeUnit);
        charge(1 + sizeSteps);
        if (nameLength >>> 0 > MAX_NAME_BYTES) throw new End("fail", "unknown built-in (name too long)");
        const name = utf8Decode(bytesAt(namePtr, nameLength));
        let result: unknown;
        if (Object.hasOwn(request.environment, name)) {
          result = request.environment[name];
        } else if (name === "fail") {
          // A report keeps 256 bytes of the message: a longer argument is not worth decoding whole.
          if (argsLength >>> 0 > MAX_FAIL_BYTES) throw new End("fail", utf8Decode(bytesAt(argsPtr, MAX_FAIL_BYTES)));
          const [message] = parseArgs(name, utf8Decode(bytesAt(argsPtr, argsLength)));
          throw new End("fail", typeof message === "string" ? message : JSON.stringify(message ?? ""));
        } else if (name === "return") {
          const [returned] = parseArgs(name, utf8Decode(bytesAt(argsPtr, argsLength)));
          if (typeof returned !== "string" && typeof returned !== "boolean") throw new End("fail", "return: the value must be a string or a boolean");
          value = returned;
          result = true;
        } else if (CHAIN.has(name)) {
          const argsText = utf8Decode(bytesAt(argsPtr, argsLength));
          parseArgs(name, argsText);
          const due = settle() + config.builtinSteps;
          const answer = JSON.parse(host.applySyncPromise(undefined, [name, argsText, due])) as { r?: unknown; e?: string; budget: number };
          refill(answer.budget);
          if (answer.e !== undefined) throw new End("host", answer.e);
          result = answer.r;
        } else if (CRYPTO.has(name)) {
          charge(config.builtinSteps + (config.costlyBuiltinSteps[name] ?? 0));
          const argsText = utf8Decode(bytesAt(argsPtr, argsLength));
          parseArgs(name, argsText);
          result = JSON.parse(crypto.applySync(undefined, [name, argsText]));
        } else if (name === "log") {
          charge(config.builtinSteps);
          const [text] = parseArgs(name, utf8Decode(bytesAt(argsPtr, argsLength)));
          log.applySync(undefined, [(typeof text === "string" ? text : JSON.stringify(text ?? null)).slice(0, config.maxLogLength)]);
          result = true;
        } else {
          throw new End("fail", `unknown built-in "${name}"`);
        }
        const json = JSON.stringify(result ?? null);
        charge(Math.ceil(json.length / config.sizeUnit));
        pending = utf8Encode(json);
        return pending.length;
      },
      result(ptr: number): void {
        charge(1 + Math.ceil(pending.length / config.sizeUnit));
        bytesAt(ptr, pending.length).set(pending);
      },
    };

    const setZeros = (...ptrs: number[]) => {
      for (const ptr of ptrs) view().setUint32(ptr, 0, true);
      return 0;
    };
    const wasi = {
      args_sizes_get: (count: number, size: number) => setZeros(count, size),
      environ_sizes_get: (count: number, size: number) => setZeros(count, size),
      args_get: () => 0,
      environ_get: () => 0,
      clock_time_get(_id: number, _precision: bigint, ptr: number): number {
        // The block's time (µs) in nanoseconds.
        view().setBigUint64(ptr, BigInt(request.environment["block.timestamp"] as number) * 1000n, true);
        return 0;
      },
      clock_res_get(_id: number, ptr: number): number {
        view().setBigUint64(ptr, 1000n, true);
        return 0;
      },
      random_get(ptr: number, length: number): number {
        charge(Math.ceil((length >>> 0) / config.sizeUnit));
        bytesAt(ptr, length).fill(0);
        return 0;
      },
      fd_write(fd: number, iovs: number, count: number, written: number): number {
        charge(1 + Math.ceil((count >>> 0) / IOVECS_PER_STEP));
        let sum = 0;
        for (let i = 0; i < count >>> 0; i++) sum += view().getUint32(iovs + 8 * i + 4, true);
        charge(Math.ceil(sum / config.sizeUnit));
        if (fd === 1 || fd === 2) {
          // Only the last KEPT_OUTPUT bytes are kept: gathered from the end, decoded once.
          const parts: Uint8Array[] = [];
          let kept = 0;
          for (let i = (count >>> 0) - 1; i >= 0 && kept < KEPT_OUTPUT; i--) {
            const length = view().getUint32(iovs + 8 * i + 4, true);
            const take = Math.min(length, KEPT_OUTPUT - kept);
            parts.unshift(bytesAt(view().getUint32(iovs + 8 * i, true) + length - take, take));
            kept += take;
          }
          const joined = new Uint8Array(kept);
          let at = 0;
          for (const part of parts) {
            joined.set(part, at);
            at += part.length;
          }
          output = (output + utf8Decode(joined)).slice(-KEPT_OUTPUT);
        }
        view().setUint32(written, sum, true);
        return 0;
      },
      proc_exit(code: number): never {
        throw new End(code === 0 ? "ok" : "fail", `exit code ${code}`);
      },
      sched_yield: () => 0,
      fd_prestat_get: () => EBADF,
      fd_prestat_dir_name: () => EBADF,
      // Every subscription fires at once: the clock stands still during a run, and Go's runtime sleeps
      // here before it prints a panic (docs/wasm-abi.md §6).
      poll_oneoff(subscriptions: number, events: number, count: number, eventCount: number): number {
        charge(Math.ceil(((count >>> 0) * 80) / config.sizeUnit));
        for (let i = 0; i < count; i++) {
          const event = bytesAt(events + 32 * i, 32);
          event.fill(0);
          event.set(bytesAt(subscriptions + 48 * i, 8), 0);
          event[10] = bytesAt(subscriptions + 48 * i + 8, 1)[0]!;
        }
        view().setUint32(eventCount, count, true);
        return 0;
      },
      fd_close: () => ENOSYS,
      fd_seek: () => ENOSYS,
      fd_read: () => ENOSYS,
      fd_fdstat_get: () => ENOSYS,
      fd_fdstat_set_flags: () => ENOSYS,
      fd_filestat_get: () => ENOSYS,
      path_open: () => ENOSYS,
      path_filestat_get: () => ENOSYS,
    };

    // Every WASI call costs a step before it does anything.
    for (const [name, answer] of Object.entries(wasi) as [string, (...args: number[]) => number][]) {
      (wasi as Record<string, unknown>)[name] = (...args: number[]) => {
        charge(1);
        return answer(...args);
      };
    }

    function classify(error: unknown): WasmRunReport["ending"] {
      if (error instanceof End) return error.kind === "fail" && output ? { kind: "fail", message: `${error.message}: ${output.trim()}`.slice(0, 1024) } : { kind: error.kind, message: error.message };
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof RangeError && /call stack/i.test(message)) return { kind: "engine", message };
      if (gas && (gas.value as bigint) < 0n) return { kind: "step", message: "Step exceeding limit" };
      if (stack && (stack.value as number) > config.stackBytes) return { kind: "limit", message: "Stack exceeding limit" };
      if (growFailed && growFailed.value === 1) return { kind: "limit", message: "Memory exceeding limit" };
      return { kind: "trap", message: output ? `${message}: ${output.trim()}` : message };
    }

    let ending: WasmRunReport["ending"] = { kind: "ok" };
    try {
      const W = (globalThis as unknown as { WebAssembly: { Instance: new (m: unknown, i: unknown) => { exports: Record<string, unknown> } } }).WebAssembly;
      const instance = new W.Instance(module, { env, wasi_snapshot_preview1: wasi });
      const exports = instance.exports;
      memory = exports.memory as { buffer: ArrayBuffer };
      gas = exports.__chainsim_gas as Global;
      stack = exports.__chainsim_stack as Global;
      peak = exports.__chainsim_stack_peak as Global;
      growFailed = exports.__chainsim_grow_failed as Global;
      gas.value = BigInt(Math.max(0, request.budget)) * K;
      mark = gas.value as bigint;
      charge(request.instantiateSteps);
      if (typeof exports._initialize === "function") (exports._initialize as () => void)();
      (exports.apply as (r: bigint, c: bigint, a: bigint) => void)(0n, BigInt(request.entryCode), BigInt(request.action));
    } catch (error) {
      ending = classify(error);
    }
    const report: WasmRunReport = {
      spent: gas ? settle() : 0,
      memory: memory ? buffer().byteLength : 0,
      stackPeak: peak ? (peak.value as number) : 0,
      ending,
    };
    if (value !== undefined) report.value = value;
    return JSON.stringify(report);
  };
}
