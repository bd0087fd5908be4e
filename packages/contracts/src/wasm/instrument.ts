// Deployment-time checks and metering of a WebAssembly contract (docs/wasm-abi.md §1 and §7,
// docs/wasm-design.md "Metering, stack and memory"). What comes out runs the same on every validator:
// instructions are counted into an exported gas global, call frames into a modelled stack, NaN bits never
// become visible, and memory cannot grow past the limit.
import b from "binaryen";
import { CONTRACT_INVALID, ContractFailure } from "../failure.js";
import { APPLY_TYPE, GAS_EXPORT, GROW_FAILED_EXPORT, IMPORT_MODULES, INITIALIZE_TYPE, RESERVED_EXPORT_PREFIX, STACK_EXPORT, STACK_PEAK_EXPORT } from "./abi.js";
import { children, expressions, ir, isKnown, mapChildren } from "./ir.js";
import { limitMemory } from "./memory-section.js";

type Expr = number;

/** WebAssembly 1.0 plus what clang and Go emit and cannot be told not to (docs/wasm-design.md). */
const ALLOWED_FEATURES = b.Features.MutableGlobals | b.Features.NontrappingFPToInt | b.Features.SignExt | b.Features.BulkMemory | b.Features.BulkMemoryOpt;

/** The limits instrumenting builds in. */
export interface WasmLimits {
  maxPages: number;
  stackBytes: number;
}

/** Bulk memory instructions cost one instruction per 2^6 = 64 bytes they touch (docs/wasm-abi.md §7). */
const BULK_BYTES_SHIFT = 6;
/** A page (2^16 bytes) grown costs 2^(16-6) instructions. */
const GROW_SHIFT = 16 - BULK_BYTES_SHIFT;

/**
 * Shapes a module may have, so that checking and metering it takes bounded time and stack, the same on every
 * machine (docs/wasm-abi.md §1). A Go module: 1,322 functions, 579,104 instructions, blocks nested 304 deep,
 * at most 58 children and 147 locals.
 */
const MODULE_SHAPE_LIMITS = { functions: 20_000, instructions: 1_500_000, nesting: 1_024, children: 10_000, locals: 10_000, globals: 10_000 };

/** A function's frame in the stack model: a fixed part and 8 bytes per parameter and local. */
const FRAME_BASE_BYTES = 64;
const FRAME_SLOT_BYTES = 8;

/** Adds a local to a function; binaryen.js has this C entry point but no wrapper for it. */
const addVar = (fn: number, type: number): number => (b as unknown as { _BinaryenFunctionAddVar(fn: number, type: number): number })._BinaryenFunctionAddVar(fn, type);

const refuse = (message: string): never => {
  throw new ContractFailure(CONTRACT_INVALID, message);
};

/** The type of a function as parameter letters, `>`, result letters (abi.ts). */
function signature(params: number, results: number): string {
  const letter = (type: number) => (type === b.i32 ? "i" : type === b.i64 ? "I" : type === b.f32 ? "f" : type === b.f64 ? "F" : "?");
  return `${b.expandType(params).map(letter).join("")}>${b.expandType(results).map(letter).join("")}`;
}

/** Refuses a module that breaks a rule of docs/wasm-abi.md §1; binaryen has read it already. */
function check(module: b.Module, maxPages: number): void {
  if (module.getStart()) refuse("the module has a start function; use _initialize");
  for (let i = 0; i < module.getNumGlobals(); i++) {
    if (b.getGlobalInfo(module.getGlobalByIndex(i)).module) refuse("the module imports a global; only functions may be imported");
  }
  for (let i = 0; i < module.getNumTables(); i++) {
    if (b.getTableInfo(module.getTableByIndex(i)).module) refuse("the module imports a table; only functions may be imported");
  }
  const memory = module.hasMemory() ? module.getMemoryInfo() : undefined;
  if (!memory) refuse("the module has no memory");
  if (memory!.module) refuse("the module imports its memory; it must define one");
  if (memory!.shared || memory!.is64) refuse("shared and 64-bit memories are not allowed");
  if (memory!.initial > maxPages) refuse(`the memory starts with ${memory!.initial} pages; at most ${maxPages} are allowed`);
  const exports = new Map<string, b.ExportInfo>();
  for (let i = 0; i < module.getNumExports(); i++) {
    const info = b.getExportInfo(module.getExportByIndex(i));
    if (info.name.startsWith(RESERVED_EXPORT_PREFIX)) refuse(`export "${info.name}": names starting with ${RESERVED_EXPORT_PREFIX} are the engine's`);
    exports.set(info.name, info);
  }
  if (exports.get("memory")?.kind !== b.ExternalMemory) refuse('the module must export its memory as "memory"');
  const exportedType = (name: string) => {
    const info = exports.get(name);
    if (!info) return undefined;
    if (info.kind !== b.ExternalFunction) return "not a function";
    const fn = b.getFunctionInfo(module.getFunction(info.value));
    return signature(fn.params, fn.results);
  };
  const apply = exportedType("apply");
  if (apply !== APPLY_TYPE) refuse(apply ? `export "apply" must be a function (i64, i64, i64) -> ()` : 'the module must export a function "apply"');
  const initialize = exportedType("_initialize");
  if (initialize !== undefined && initialize !== INITIALIZE_TYPE) refuse('export "_initialize" must be a function () -> ()');
  const shape = MODULE_SHAPE_LIMITS;
  if (module.getNumFunctions() > shape.functions) refuse(`the module has ${module.getNumFunctions()} functions; at most ${shape.functions} are allowed`);
  if (module.getNumGlobals() > shape.globals) refuse(`the module has ${module.getNumGlobals()} globals; at most ${shape.globals} are allowed`);
  let instructions = 0;
  for (let i = 0; i < module.getNumFunctions(); i++) {
    const fn = b.getFunctionInfo(module.getFunctionByIndex(i));
    if (!fn.module) {
      if (b.expandType(fn.params).length + fn.vars.length > shape.locals) refuse(`function ${fn.name} has more than ${shape.locals} parameters and locals`);
      // Iterative, with the depth of each expression: what runs after this may recurse as deep as the nesting.
      const stack: [number, number][] = [[fn.body, 1]];
      while (stack.length > 0) {
        const [expression, depth] = stack.pop()!;
        if (++instructions > shape.instructions) refuse(`the module has more than ${shape.instructions} instructions`);
        if (depth > shape.nesting) refuse(`function ${fn.name} nests instructions more than ${shape.nesting} deep`);
        const id = b.getExpressionId(expression);
        if (!isKnown(id)) refuse(`function ${fn.name} uses an instruction contracts may not use`);
        const list = children(expression, id);
        if (list.length > shape.children) refuse(`function ${fn.name} has a block of more than ${shape.children} instructions`);
        for (const child of list) stack.push([child, depth + 1]);
      }
      continue;
    }
    const expected = IMPORT_MODULES[fn.module]?.[fn.base ?? ""];
    if (expected === undefined) refuse(`import "${fn.module}"."${fn.base}" is not offered`);
    const actual = signature(fn.params, fn.results);
    if (actual !== expected) refuse(`import "${fn.module}"."${fn.base}" has type ${actual}; the host offers ${expected}`);
  }
}

/**
 * Checks a contract module and returns it metered (docs/wasm-abi.md): refuses with 156 anything the engine
 * does not run. Deterministic: the same input gives the same bytes.
 */
export function instrumentWasm(bytes: Uint8Array, limits: WasmLimits): Uint8Array {
  // V8 first: binaryen is strict about some things V8 is not, and says less about what is wrong.
  try {
    new WebAssembly.Module(bytes);
  } catch (error) {
    refuse(`not a valid wasm module: ${(error as Error).message}`);
  }
  let module: b.Module;
  try {
    module = b.readBinary(bytes);
  } catch (error) {
    return refuse(`the module cannot be read: ${(error as Error).message}`);
  }
  try {
    module.setFeatures(ALLOWED_FEATURES);
    if (!module.validate()) refuse("the module uses a wasm feature that is not allowed (allowed: 1.0, mutable globals, sign extension, non-trapping float-to-int, bulk memory)");
    check(module, limits.maxPages);
    new Metering(module, limits.stackBytes).run();
    if (!module.validate()) throw new Error("instrumenting made an invalid module");
    return limitMemory(module.emitBinary(), limits.maxPages);
  } finally {
    module.dispose();
  }
}

/**
 * The passes over every defined function: NaNs canonicalised where they could be observed, instruction
 * counts charged per straight-line segment into a local counter that is moved into the gas global at loop
 * entry, before calls and at exits, and each frame added to the stack model.
 */
class Metering {
  private fn = 0;
  /** The current function's gas counter (a local). */
  private counter = 0;
  private temporaries = new Map<number, number>();

  constructor(
    private readonly module: b.Module,
    private readonly stackBytes: number,
  ) {}

  run(): void {
    const m = this.module;
    m.addGlobal(GAS_EXPORT, b.i64, true, m.i64.const(0n));
    m.addGlobal(STACK_EXPORT, b.i32, true, m.i32.const(0));
    m.addGlobal(STACK_PEAK_EXPORT, b.i32, true, m.i32.const(0));
    m.addGlobal(GROW_FAILED_EXPORT, b.i32, true, m.i32.const(0));
    for (const name of [GAS_EXPORT, STACK_EXPORT, STACK_PEAK_EXPORT, GROW_FAILED_EXPORT]) m.addGlobalExport(name, name);
    for (let i = 0; i < m.getNumFunctions(); i++) {
      const fn = m.getFunctionByIndex(i);
      const info = b.getFunctionInfo(fn);
      if (info.module) continue;
      const frame = FRAME_BASE_BYTES + FRAME_SLOT_BYTES * (b.expandType(info.params).length + info.vars.length);
      this.fn = fn;
      this.temporaries = new Map();
      this.counter = addVar(fn, b.i64);
      this.rewrite(info.body);
      this.meter(info.body);
      const body = this.exits(this.wrap(info.body), frame);
      ir.Function.setBody(fn, this.enclose(body, info.results, frame));
    }
  }

  private temporary(type: number): number {
    let index = this.temporaries.get(type);
    if (index === undefined) {
      index = addVar(this.fn, type);
      this.temporaries.set(type, index);
    }
    return index;
  }

  // ---- NaN bits (docs/wasm-abi.md §7 "Floats")

  /** `value` with any NaN replaced by the canonical one of its type. */
  private canonical(value: Expr, type: number): Expr {
    const m = this.module;
    const t = this.temporary(type);
    const get = () => m.local.get(t, type);
    const nan = type === b.f32 ? m.f32.const_bits(0x7fc00000) : m.f64.const_bits(0x7ff8000000000000n);
    const same = type === b.f32 ? m.f32.eq(get(), get()) : m.f64.eq(get(), get());
    return m.block(null, [m.local.set(t, value), m.select(same, get(), nan)], type);
  }

  /**
   * Work that grows with an operand, not with the instructions: the operand shifted right (a size in bytes)
   * or left (a count of pages) by `shift` is added to the gas counter when it is evaluated. It is the last
   * operand evaluated, so nothing runs in between.
   */
  private sized(operand: Expr, shift: number): Expr {
    const m = this.module;
    const t = this.temporary(b.i32);
    const value = m.i64.extend_u(m.local.get(t, b.i32));
    const units = shift >= 0 ? m.i64.shr_u(value, m.i64.const(BigInt(shift))) : m.i64.shl(value, m.i64.const(BigInt(-shift)));
    // Checked at once: straight-line code would otherwise do the work before any check.
    return m.block(null, [m.local.set(t, operand), m.local.set(this.counter, m.i64.add(m.local.get(this.counter, b.i64), units)), this.flush(), m.local.get(t, b.i32)], b.i32);
  }

  /** NaNs canonicalised where their bits could be observed; bulk memory work charged by its size. */
  private rewrite(body: Expr): void {
    for (const expression of expressions(body)) {
      const id = b.getExpressionId(expression);
      if (id === b.MemoryCopyId) ir.MemoryCopy.setSize(expression, this.sized(ir.MemoryCopy.getSize(expression), BULK_BYTES_SHIFT));
      else if (id === b.MemoryFillId) ir.MemoryFill.setSize(expression, this.sized(ir.MemoryFill.getSize(expression), BULK_BYTES_SHIFT));
      else if (id === b.MemoryInitId) ir.MemoryInit.setSize(expression, this.sized(ir.MemoryInit.getSize(expression), BULK_BYTES_SHIFT));
      // A page grown is 64 KiB zeroed: charged as memory.fill of as much.
      else if (id === b.MemoryGrowId) ir.MemoryGrow.setDelta(expression, this.sized(ir.MemoryGrow.getDelta(expression), -GROW_SHIFT));
      else if (id === b.StoreId) {
        const type = ir.Store.getValueType(expression);
        if (type === b.f32 || type === b.f64) ir.Store.setValue(expression, this.canonical(ir.Store.getValue(expression), type));
      } else if (id === b.UnaryId) {
        const op = ir.Unary.getOp(expression);
        if (op === b.ReinterpretFloat32) ir.Unary.setValue(expression, this.canonical(ir.Unary.getValue(expression), b.f32));
        if (op === b.ReinterpretFloat64) ir.Unary.setValue(expression, this.canonical(ir.Unary.getValue(expression), b.f64));
      } else if (id === b.BinaryId) {
        const op = ir.Binary.getOp(expression);
        if (op === b.CopySignFloat32) ir.Binary.setRight(expression, this.canonical(ir.Binary.getRight(expression), b.f32));
        if (op === b.CopySignFloat64) ir.Binary.setRight(expression, this.canonical(ir.Binary.getRight(expression), b.f64));
      }
    }
  }

  // ---- Gas (docs/wasm-design.md "Gas": exact segment costs in a local, moved at loops, calls and exits)

  /** Adds `cost` instructions to the function's counter. */
  private charge(cost: number): Expr {
    const m = this.module;
    return m.local.set(this.counter, m.i64.add(m.local.get(this.counter, b.i64), m.i64.const(BigInt(cost))));
  }

  /** Moves the counter into the gas global; traps when the gas is spent. */
  private flush(): Expr {
    const m = this.module;
    const gas = () => m.global.get(GAS_EXPORT, b.i64);
    return m.block(null, [
      m.global.set(GAS_EXPORT, m.i64.sub(gas(), m.local.get(this.counter, b.i64))),
      m.local.set(this.counter, m.i64.const(0n)),
      m.if(m.i64.lt_s(gas(), m.i64.const(0n)), m.unreachable()),
    ]);
  }

  private chargeSegment(cost: number, calls: boolean): Expr {
    return calls ? this.module.block(null, [this.charge(cost), this.flush()]) : this.charge(cost);
  }

  /**
   * The cost of evaluating `expression` within the current segment: its instructions up to the first
   * nested control structure (whose arms are segments of their own), whether it holds a named block (which
   * ends the segment, being a branch target), and whether it holds a call (whose segment is flushed first).
   */
  private flat(expression: Expr): [cost: number, control: boolean, calls: boolean] {
    const id = b.getExpressionId(expression);
    if (id === b.IfId) {
      const [cost, , calls] = this.flat(ir.If.getCondition(expression));
      return [cost + 1, false, calls];
    }
    if (id === b.BlockId) return [1, (ir.Block.getName(expression) as unknown as string | null) != null, false];
    if (id === b.LoopId) return [1, false, false];
    let cost = 1;
    let control = false;
    let calls = id === b.CallId || id === b.CallIndirectId;
    for (const child of children(expression, id)) {
      const [c, k, f] = this.flat(child);
      cost += c;
      control ||= k;
      calls ||= f;
    }
    return [cost, control, calls];
  }

  /** `expression` as a segment of its own: charged at its start (a block charges its own segments). */
  private wrap(expression: Expr, before: Expr[] = []): Expr {
    const m = this.module;
    if (b.getExpressionId(expression) === b.BlockId) return before.length > 0 ? m.block(null, [...before, expression], b.getExpressionType(expression)) : expression;
    const [cost, , calls] = this.flat(expression);
    return m.block(null, [...before, this.chargeSegment(cost, calls), expression], b.getExpressionType(expression));
  }

  private meter(expression: Expr): void {
    const id = b.getExpressionId(expression);
    for (const child of children(expression, id)) this.meter(child);
    if (id === b.BlockId) {
      const list = children(expression, id);
      const segments: [start: number, cost: number, calls: boolean][] = [];
      let start = 0;
      let cost = 0;
      let calls = false;
      list.forEach((child: Expr, i: number) => {
        const [c, control, f] = this.flat(child);
        cost += c;
        calls ||= f;
        if (control || i === list.length - 1) {
          segments.push([start, cost, calls]);
          start = i + 1;
          cost = 0;
          calls = false;
        }
      });
      // The block's list is built once: inserting child by child copies it each time (quadratic).
      const charged: Expr[] = [];
      let next = 0;
      list.forEach((child: Expr, i: number) => {
        if (next < segments.length && segments[next]![0] === i) {
          charged.push(this.chargeSegment(segments[next]![1], segments[next]![2]));
          next++;
        }
        charged.push(child);
      });
      ir.Block.setChildren(expression, charged as unknown as number);
    } else if (id === b.IfId) {
      ir.If.setIfTrue(expression, this.wrap(ir.If.getIfTrue(expression)));
      const otherwise = ir.If.getIfFalse(expression);
      if (otherwise) ir.If.setIfFalse(expression, this.wrap(otherwise));
    } else if (id === b.LoopId) {
      // Flushed on every entry and back-edge: a loop cannot run on without the gas being checked.
      ir.Loop.setBody(expression, this.wrap(ir.Loop.getBody(expression), [this.flush()]));
    }
  }

  // ---- Exits and the stack model (docs/wasm-abi.md §7)

  private enter(frame: number): Expr {
    const m = this.module;
    const stack = () => m.global.get(STACK_EXPORT, b.i32);
    return m.block(null, [
      m.global.set(STACK_EXPORT, m.i32.add(stack(), m.i32.const(frame))),
      m.if(m.i32.gt_u(stack(), m.i32.const(this.stackBytes)), m.unreachable()),
      m.if(m.i32.gt_u(stack(), m.global.get(STACK_PEAK_EXPORT, b.i32)), m.global.set(STACK_PEAK_EXPORT, stack())),
    ]);
  }

  private leave(frame: number): Expr {
    const m = this.module;
    return m.global.set(STACK_EXPORT, m.i32.sub(m.global.get(STACK_EXPORT, b.i32), m.i32.const(frame)));
  }

  /**
   * Every `return` of `expression` first moves the gas counter and leaves the frame; a `memory.grow` that
   * fails is noted, so that a trap after it is told apart as the memory limit.
   */
  private exits(expression: Expr, frame: number): Expr {
    const m = this.module;
    mapChildren(expression, (child) => this.exits(child, frame));
    if (b.getExpressionId(expression) === b.MemoryGrowId) {
      const t = this.temporary(b.i32);
      const failed = m.if(m.i32.eq(m.local.get(t, b.i32), m.i32.const(-1)), m.global.set(GROW_FAILED_EXPORT, m.i32.const(1)));
      return m.block(null, [m.local.set(t, expression), failed, m.local.get(t, b.i32)], b.i32);
    }
    if (b.getExpressionId(expression) !== b.ReturnId) return expression;
    const value = ir.Return.getValue(expression);
    if (!value) return m.block(null, [this.flush(), this.leave(frame), expression]);
    const type = b.getExpressionType(value);
    if (type === b.unreachable) return expression;
    const t = this.temporary(type);
    return m.block(null, [m.local.set(t, value), this.flush(), this.leave(frame), m.return(m.local.get(t, type))]);
  }

  /** The function body between entering the frame and, at its end, the last flush and leaving it. */
  private enclose(body: Expr, results: number, frame: number): Expr {
    const m = this.module;
    if (results === b.none) return m.block(null, [this.enter(frame), body, this.flush(), this.leave(frame)]);
    const t = this.temporary(results);
    return m.block(null, [this.enter(frame), m.local.set(t, body), this.flush(), this.leave(frame), m.local.get(t, results)], results);
  }
}
