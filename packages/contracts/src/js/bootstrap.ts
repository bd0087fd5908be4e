// Evaluated INSIDE each fresh contract context from its source text: self-contained, no outside references.

export interface BootstrapRefs {
  call: { applySyncPromise(receiver: undefined, args: unknown[]): string };
  crypto: { applySync(receiver: undefined, args: unknown[]): string };
  log: { applySync(receiver: undefined, args: unknown[]): void };
  exhausted: { applySync(receiver: undefined, args: unknown[]): void };
}

export interface BootstrapOptions {
  budget: number;
  /** Bytes of the deterministic stack model (instrument.ts frameBytes) a run may hold at once. */
  stackBytes: number;
  builtinSteps: number;
  costlyBuiltinSteps: Record<string, number>;
  stepFunction: string;
  env: unknown;
  readOnly: boolean;
}

/**
 * Removes every source of non-determinism and every way around step metering (contract-runtime.md §2),
 * then installs the step counter and the Chain/Utils objects. Steps are counted here, in the isolate; the
 * host learns the count at each built-in call (nested calls spend from the same budget) and at the end.
 */
export function bootstrap(global: any, refs: BootstrapRefs, options: BootstrapOptions, installUtils: Function, installChain: Function): void {
  for (const name of ["Date", "Math", "WebAssembly", "Atomics", "SharedArrayBuffer", "WeakRef", "FinalizationRegistry", "Intl", "eval", "Function", "console"]) {
    delete global[name];
  }
  // Locale-dependent results would differ between validators with different LANG settings.
  delete global.String.prototype.localeCompare;
  delete global.String.prototype.toLocaleUpperCase;
  delete global.String.prototype.toLocaleLowerCase;
  // %TypedArray%.prototype holds the typed arrays' one.
  for (const proto of [global.Object.prototype, global.Number.prototype, global.BigInt.prototype, global.Array.prototype, Object.getPrototypeOf(global.Int8Array.prototype)]) {
    delete proto.toLocaleString;
  }
  // Code built at run time would escape the step metering: the function constructor is closed.
  const closed = function () {
    throw "Dynamic code is not allowed in contracts";
  };
  Object.defineProperty(Object.getPrototypeOf(function () {}), "constructor", { value: closed, writable: false, configurable: false });

  let used = 0;
  let budget = options.budget;
  let dead = false;
  let stack = 0;
  let stackPeak = 0;
  // Both limits fail the whole transaction even if the contract catches what is thrown here.
  const exhausted = (reason = "Step exceeding limit"): never => {
    if (!dead) refs.exhausted.applySync(undefined, [reason]);
    dead = true;
    throw reason;
  };
  /** A loop iteration, or (with the frame's size) a function entry. */
  const step = (frame?: number) => {
    if (dead || ++used > budget) exhausted();
    if (frame === undefined) return;
    if (stack + frame > options.stackBytes) exhausted("Stack exceeding limit");
    stack += frame;
    if (stack > stackPeak) stackPeak = stack;
  };
  const leave = (frame: number) => {
    stack -= frame;
  };
  const charge = (extra = 0) => {
    used += options.builtinSteps + extra;
    if (dead || used > budget) exhausted();
  };
  // Contract code runs after this and may replace globals or poison prototypes: everything the bridge
  // uses is taken now, and arguments are serialized here by hand (no toJSON hooks).
  const parse = JSON.parse;
  const quote = JSON.stringify;
  const isArray = Array.isArray;
  const hasOwn = Object.prototype.hasOwnProperty;
  const encode = (value: unknown): string => {
    if (typeof value === "string" || typeof value === "boolean") return quote(value);
    if (typeof value === "number") return value === value && value !== Infinity && value !== -Infinity ? "" + value : "null";
    if (value !== null && typeof value === "object" && !isArray(value)) {
      const key = value as { issuer?: unknown; code?: unknown };
      return "{\"issuer\":" + encode(key.issuer) + ",\"code\":" + encode(key.code) + "}";
    }
    return "null";
  };
  const encodeArgs = (args: unknown[]): string => {
    let out = "[";
    for (let i = 0; i < args.length; i++) out += (i ? "," : "") + encode(args[i]);
    return out + "]";
  };
  const call = (name: string, args: unknown[]) => {
    const spent = used;
    used = 0;
    const answer = parse(refs.call.applySyncPromise(undefined, [name, encodeArgs(args), spent]));
    budget = answer.budget;
    if (hasOwn.call(answer, "e")) throw answer.e;
    return answer.r;
  };
  const hidden = (name: string, value: unknown) => Object.defineProperty(global, name, { value, writable: false, configurable: false, enumerable: false });
  hidden(options.stepFunction, step);
  hidden(options.stepFunction + "_leave", leave);
  hidden(options.stepFunction + "_used", () => used);
  hidden(options.stepFunction + "_stack", () => stackPeak);
  installUtils(global, {
    charge,
    crypto: (name: string, argsJson: string) => {
      if (hasOwn.call(options.costlyBuiltinSteps, name)) charge(options.costlyBuiltinSteps[name] - options.builtinSteps);
      return refs.crypto.applySync(undefined, [name, argsJson]);
    },
    log: (text: string) => refs.log.applySync(undefined, [text]),
  });
  installChain(global, { charge, call }, options.env, options.readOnly);
}
