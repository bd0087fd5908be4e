// Evaluated INSIDE each fresh contract context from its source text: self-contained, no outside references.

export interface BootstrapRefs {
  call: { applySyncPromise(receiver: undefined, args: unknown[]): string };
  crypto: { applySync(receiver: undefined, args: unknown[]): string };
  log: { applySync(receiver: undefined, args: unknown[]): void };
  exhausted: { applySync(receiver: undefined, args: unknown[]): void };
}

export interface BootstrapOptions {
  budget: number;
  builtinSteps: number;
  costlyBuiltinSteps: Record<string, number>;
  stepFunction: string;
  env: unknown;
  readOnly: boolean;
  /** Sample the stack's depth (for callContract's stat.stack_usage); it costs ~0.3 ms a sample. */
  measureStack: boolean;
}

/**
 * Removes every source of non-determinism and every way around step metering (contract-runtime.md §2),
 * then installs the step counter and the Chain/Utils objects. Steps are counted here, in the isolate; the
 * host learns the count at each built-in call (nested calls spend from the same budget) and at the end.
 */
export function bootstrap(global: any, refs: BootstrapRefs, options: BootstrapOptions, installUtils: Function, installChain: Function): void {
  for (const name of ["Date", "Math", "WebAssembly", "Atomics", "SharedArrayBuffer", "WeakRef", "FinalizationRegistry", "Intl", "eval", "Function"]) {
    delete global[name];
  }
  delete global.String.prototype.localeCompare;
  // Code built at run time would escape the step metering: the function constructor is closed.
  const closed = function () {
    throw "Dynamic code is not allowed in contracts";
  };
  Object.defineProperty(Object.getPrototypeOf(function () {}), "constructor", { value: closed, writable: false, configurable: false });

  // Stack use, measured from inside: `probe` recurses until the stack is exhausted, so the frames it still
  // finds room for tell how much stack the contract is using at that moment.
  const probe = (n: number): number => {
    try {
      return probe(n + 1);
    } catch {
      return n;
    }
  };
  // The first runs get the probe optimized (smaller frames); measure the capacity once it is.
  let capacity = 0;
  for (let i = 0; options.measureStack && i < 4; i++) capacity = probe(0);
  let leastRoom = capacity;
  let sinceSample = 63; // the first step samples too, so a short query is measured
  const sample = () => {
    sinceSample = 0;
    const room = probe(0);
    if (room < leastRoom) leastRoom = room;
  };

  let used = 0;
  let budget = options.budget;
  let dead = false;
  const exhausted = (): never => {
    if (!dead) refs.exhausted.applySync(undefined, []);
    dead = true;
    throw "Step exceeding limit";
  };
  const step = () => {
    if (dead || ++used > budget) exhausted();
    if (options.measureStack && ++sinceSample === 64) sample();
  };
  const charge = (extra = 0) => {
    used += options.builtinSteps + extra;
    if (dead || used > budget) exhausted();
    if (options.measureStack) sample();
  };
  const call = (name: string, args: unknown[]) => {
    const spent = used;
    used = 0;
    const answer = JSON.parse(refs.call.applySyncPromise(undefined, [name, JSON.stringify(args), spent]));
    budget = answer.budget;
    if ("e" in answer) throw answer.e;
    return answer.r;
  };
  const hidden = (name: string, value: unknown) => Object.defineProperty(global, name, { value, writable: false, configurable: false, enumerable: false });
  hidden(options.stepFunction, step);
  hidden(options.stepFunction + "_used", () => used);
  hidden(options.stepFunction + "_stack", () => capacity - leastRoom);
  installUtils(global, {
    charge,
    crypto: (name: string, argsJson: string) => {
      const extra = options.costlyBuiltinSteps[name];
      if (extra) charge(extra - options.builtinSteps);
      return refs.crypto.applySync(undefined, [name, argsJson]);
    },
    log: (text: string) => refs.log.applySync(undefined, [text]),
  });
  installChain(global, { charge, call }, options.env, options.readOnly);
}
