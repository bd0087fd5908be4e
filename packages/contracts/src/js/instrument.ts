/**
 * Deterministic step metering of JavaScript contracts by source rewriting (contract-runtime.md §2,
 * "Decision, determinism"): every function entry and every loop iteration first calls STEP_FUNCTION(),
 * which the runtime defines inside the isolate. Text is only ever inserted, never a line break, so line
 * numbers in exceptions and stacks stay those of the user's source (§6 `linenum`).
 *
 * Metered:
 * - function declarations, function expressions, arrow functions (block and expression bodies), object and
 *   class methods, getters, setters, class constructors: a step at body entry, after any directive prologue,
 *   which also pushes the function's frame on a deterministic stack model (`STEP(bytes); try { body }
 *   finally { STEP_leave(bytes) }`, see frameBytes), so the stack limit does not depend on V8's JIT;
 * - class static blocks: a step at entry;
 * - for, for-in, for-of, while, do-while (block or single-statement bodies, labeled or not): a step at the
 *   start of every iteration's body, so `continue` still pays for each iteration;
 * - parameter default values and class field initializers that contain a call (`f()`, `new F()`, a tagged
 *   template): wrapped `(STEP(), value)`, because they run before the function body's step (otherwise
 *   `function f(a = f()) {}` or `class A { x = new A() }` would recurse without paying).
 *
 * Refused (ContractSourceError): a source over the size limit (155), one that does not parse as a classic
 * script (152), and (152) constructs that would escape metering or that a synchronous contract cannot use:
 * the reserved identifier, `eval`, `Function`, `with`, `import()`, async functions, generators, `await`,
 * `yield`, `for await`.
 */
import { createHash } from "node:crypto";
import { getLineInfo, parse } from "acorn";

/** The metering function the runtime installs in the isolate; contracts may not mention it (nor any name it prefixes). */
export const STEP_FUNCTION = "__chainsim_step";

/** 152 contract syntax error; 155 contract limit exceeded (here: code size, compat.md §8). */
export type ContractSourceErrorCode = 152 | 155;

/** A contract source refused before execution. `line` is 1-based, `column` 0-based (as in acorn). */
export class ContractSourceError extends Error {
  override readonly name = "ContractSourceError";
  constructor(
    message: string,
    readonly code: ContractSourceErrorCode = 152,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(message);
  }
}

/** The grammar is frozen (not "latest") so that an acorn upgrade cannot change which contracts are accepted. */
const ECMA_VERSION = 2022;

const STEP_CALL = `${STEP_FUNCTION}();`;
const WRAP_OPEN = `(${STEP_FUNCTION}(), `;
/** Leaves a frame entered by STEP_FUNCTION(bytes). */
export const LEAVE_FUNCTION = `${STEP_FUNCTION}_leave`;
/** Stands for a function's frame size in inserted text until the walk has counted its slots. */
const FRAME_PLACEHOLDER = "\u0000frame\u0000";

/**
 * The stack model (docs/contracts.md, "Limits"): a frame costs a fixed overhead plus one slot per
 * parameter and per declared name in the function. Chosen above what V8's interpreter really uses per
 * frame, so that the model's 512 KiB limit is always reached before V8's own stack overflow, whose depth
 * varies with JIT state and machine.
 */
export const FRAME_BASE_BYTES = 128;
export const FRAME_SLOT_BYTES = 16;

export function frameBytes(slots: number): number {
  return FRAME_BASE_BYTES + FRAME_SLOT_BYTES * slots;
}

// acorn's ESTree nodes, read structurally.
interface AnyNode {
  type: string;
  start: number;
  end: number;
  [key: string]: any;
}

interface Insertion {
  pos: number;
  text: string;
  /** Closing text (`)` or `}`): at one position closings come before openings, the innermost first. */
  close: boolean;
  depth: number;
  seq: number;
}

interface Frame {
  node: AnyNode;
  parent: AnyNode | null;
  key: string;
  depth: number;
  /** Inside a function's parameter list (defaults there run before the body's step). */
  inParams: boolean;
  /** The innermost enclosing function's frame, whose slots its declarations add to. */
  owner: FunctionFrame | null;
}

/** A function being instrumented: its slot count and the inserted texts that carry its frame size. */
interface FunctionFrame {
  slots: number;
  texts: Insertion[];
}

const LOOPS = new Set(["ForStatement", "ForInStatement", "ForOfStatement", "WhileStatement", "DoWhileStatement"]);
const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);
const NON_NODE_KEYS = new Set(["type", "start", "end", "loc", "range", "raw", "regex", "bigint", "directive", "sourceType"]);

function isNode(value: unknown): value is AnyNode {
  return typeof value === "object" && value !== null && typeof (value as AnyNode).type === "string";
}

/** The child nodes of `node`, in source order as far as acorn's property order gives it. */
function children(node: AnyNode): [string, AnyNode][] {
  const out: [string, AnyNode][] = [];
  for (const key of Object.keys(node)) {
    if (NON_NODE_KEYS.has(key)) continue;
    const value = node[key];
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) out.push([key, item]);
    } else if (isNode(value)) {
      out.push([key, value]);
    }
  }
  return out;
}

/** True when `expr` calls something while it is evaluated (nested function bodies and field values excluded). */
function containsCall(expr: AnyNode): boolean {
  const stack: AnyNode[] = [expr];
  while (stack.length > 0) {
    const node = stack.pop()!;
    switch (node.type) {
      case "CallExpression":
      case "NewExpression":
      case "TaggedTemplateExpression":
      case "ImportExpression":
        return true;
      case "FunctionExpression":
      case "FunctionDeclaration":
      case "ArrowFunctionExpression":
      case "StaticBlock":
        continue;
      case "PropertyDefinition":
        if (node.computed) stack.push(node.key);
        continue;
    }
    for (const [, child] of children(node)) stack.push(child);
  }
  return false;
}

/** Whether an Identifier is a variable reference or binding, as opposed to a property name or a label. */
function isVariableName(parent: AnyNode | null, key: string): boolean {
  if (!parent) return true;
  switch (parent.type) {
    case "MemberExpression":
      return key !== "property" || parent.computed;
    case "Property":
    case "MethodDefinition":
    case "PropertyDefinition":
      return key !== "key" || parent.computed;
    case "LabeledStatement":
    case "BreakStatement":
    case "ContinueStatement":
      return key !== "label";
    case "MetaProperty":
      return false;
  }
  return true;
}

function isReserved(name: unknown): boolean {
  return typeof name === "string" && name.startsWith(STEP_FUNCTION);
}

/**
 * Rewrites a contract so that each function entry and each loop iteration calls STEP_FUNCTION() first.
 * Deterministic: the result depends on `source` only (limits only decide refusal).
 */
export function instrument(source: string, limits: { codeBytes: number }): string {
  checkSize(source, limits);
  let program: AnyNode;
  try {
    program = parse(source, { ecmaVersion: ECMA_VERSION, sourceType: "script", allowHashBang: false }) as unknown as AnyNode;
  } catch (error) {
    throw syntaxError(source, error);
  }
  let insertions: Insertion[];
  try {
    insertions = collect(source, program);
  } catch (error) {
    if (error instanceof ContractSourceError) throw error;
    if (error instanceof RangeError) throw new ContractSourceError("SyntaxError: Contract code is nested too deeply");
    throw error;
  }
  return apply(source, insertions);
}

function checkSize(source: string, limits: { codeBytes: number }): void {
  if (Buffer.byteLength(source, "utf8") > limits.codeBytes) throw new ContractSourceError("Contract code is too large", 155);
}

function syntaxError(source: string, error: unknown): ContractSourceError {
  if (error instanceof SyntaxError) {
    const { pos, loc } = error as SyntaxError & { pos?: number; loc?: { line: number; column: number } };
    const where = loc ?? (typeof pos === "number" ? getLineInfo(source, pos) : undefined);
    return new ContractSourceError(`SyntaxError: ${error.message}`, 152, where?.line, where?.column);
  }
  // acorn is recursive: absurd nesting ends its parse with a RangeError (stack overflow).
  if (error instanceof RangeError) return new ContractSourceError("SyntaxError: Contract code is nested too deeply");
  throw error;
}

function refuse(source: string, pos: number, what: string): never {
  const { line, column } = getLineInfo(source, pos);
  throw new ContractSourceError(`${what} (${line}:${column})`, 152, line, column);
}

const SYNC = "contracts are synchronous";
const DYNAMIC = "code built from strings cannot be metered";

/** Walks the whole tree (iteratively: deep nesting must not overflow the host's stack), refusing and collecting insertions. */
function collect(source: string, program: AnyNode): Insertion[] {
  const insertions: Insertion[] = [];
  let seq = 0;
  const add = (pos: number, text: string, close: boolean, depth: number) => {
    insertions.push({ pos, text, close, depth, seq: seq++ });
  };
  /** Where a block's entry code goes (after its directive prologue if asked), and `;` if ASI ended the prologue. */
  const blockEntry = (block: AnyNode, directives: boolean): { pos: number; prefix: string } => {
    if (directives) {
      let last: AnyNode | undefined;
      for (const statement of block.body as AnyNode[]) {
        if (statement.type !== "ExpressionStatement" || typeof statement.directive !== "string") break;
        last = statement;
      }
      // A directive ended by automatic semicolon insertion needs its semicolon before the inserted call.
      if (last) return { pos: last.end, prefix: source.charCodeAt(last.end - 1) !== 0x3b /* ; */ ? ";" : "" };
    }
    return { pos: block.start + 1, prefix: "" };
  };
  /** `{ STEP(); …` at a block's entry. */
  const enterBlock = (block: AnyNode, depth: number, directives: boolean) => {
    const { pos, prefix } = blockEntry(block, directives);
    add(pos, prefix + STEP_CALL, false, depth);
  };
  /** A function body inside `STEP(bytes); try { … } finally { STEP_leave(bytes) }`: the frame is popped however the body ends. */
  const enterFunction = (fn: AnyNode, depth: number): FunctionFrame => {
    const frame: FunctionFrame = { slots: fn.params.length, texts: [] };
    const enter = `${STEP_FUNCTION}(${FRAME_PLACEHOLDER});try{`;
    const leave = `}finally{${LEAVE_FUNCTION}(${FRAME_PLACEHOLDER})}`;
    const body = fn.body as AnyNode;
    if (body.type === "BlockStatement") {
      const { pos, prefix } = blockEntry(body, true);
      // An empty body: one insertion, since at one position closings would go before openings.
      if (pos === body.end - 1) {
        add(pos, prefix + enter + leave, false, depth);
      } else {
        add(pos, prefix + enter, false, depth);
        frame.texts.push(insertions[insertions.length - 1]!);
        add(body.end - 1, leave, true, depth);
      }
    } else {
      // An expression body becomes a block returning it; `return(` so a line break after `=>` cannot end the statement.
      add(arrowEnd(source, fn), `{${enter}return(`, false, depth);
      frame.texts.push(insertions[insertions.length - 1]!);
      add(fn.end, `)${leave}}`, true, depth);
    }
    frame.texts.push(insertions[insertions.length - 1]!);
    return frame;
  };
  /** `(STEP(), expr)`: an expression that pays one step each time it is evaluated. */
  const wrap = (expr: AnyNode, depth: number) => {
    add(expr.start, WRAP_OPEN, false, depth);
    add(expr.end, ")", true, depth);
  };

  const functions: FunctionFrame[] = [];
  const stack: Frame[] = [{ node: program, parent: null, key: "", depth: 0, inParams: false, owner: null }];
  while (stack.length > 0) {
    const { node, parent, key, depth, inParams, owner } = stack.pop()!;
    let childOwner = owner;
    switch (node.type) {
      case "VariableDeclarator":
      case "FunctionDeclaration":
      case "ClassDeclaration":
        if (owner) owner.slots++;
        break;
    }
    switch (node.type) {
      case "Identifier":
        if (isReserved(node.name)) refuse(source, node.start, `Reserved identifier ${STEP_FUNCTION} is not allowed in contracts (found "${node.name}")`);
        if (isVariableName(parent, key)) {
          if (node.name === "eval") {
            const direct = parent?.type === "CallExpression" && key === "callee";
            refuse(source, node.start, `${direct ? "Direct eval" : "eval"} is not allowed in contracts: ${DYNAMIC}`);
          }
          if (node.name === "Function") refuse(source, node.start, `The Function constructor is not allowed in contracts: ${DYNAMIC}`);
        }
        break;
      case "PrivateIdentifier":
        if (isReserved(node.name)) refuse(source, node.start, `Reserved identifier ${STEP_FUNCTION} is not allowed in contracts (found "#${node.name}")`);
        break;
      case "Literal":
        if (isReserved(node.value)) refuse(source, node.start, `Reserved identifier ${STEP_FUNCTION} is not allowed in contracts (found the string "${node.value}")`);
        break;
      case "TemplateElement":
        if (isReserved(node.value?.cooked)) refuse(source, node.start, `Reserved identifier ${STEP_FUNCTION} is not allowed in contracts (found the template "${node.value.cooked}")`);
        break;
      case "WithStatement":
        refuse(source, node.start, "'with' statement is not allowed in contracts: it would escape step metering");
      case "ImportExpression":
        refuse(source, node.start, "import() is not allowed in contracts");
      case "MetaProperty":
        if (node.meta?.name === "import") refuse(source, node.start, "import.meta is not allowed in contracts");
        break;
      case "AwaitExpression":
        refuse(source, node.start, `await is not allowed in contracts: ${SYNC}`);
      case "YieldExpression":
        refuse(source, node.start, `yield is not allowed in contracts: ${SYNC}`);
      case "StaticBlock":
        enterBlock({ ...node, start: staticBlockBrace(source, node) }, depth, false);
        break;
      case "PropertyDefinition":
        if (node.value && containsCall(node.value)) wrap(node.value, depth + 1);
        break;
      case "AssignmentPattern":
        if (inParams && containsCall(node.right)) wrap(node.right, depth + 1);
        break;
    }

    if (FUNCTIONS.has(node.type)) {
      // A method's FunctionExpression starts at its parameters: point at the method itself.
      const isMethod = parent?.type === "MethodDefinition" || (parent?.type === "Property" && (parent.method || parent.kind !== "init"));
      const at = isMethod ? parent!.start : node.start;
      if (node.async) refuse(source, at, `Async ${isMethod ? "method" : "function"} is not allowed in contracts: ${SYNC}`);
      if (node.generator) refuse(source, at, `Generator ${isMethod ? "method" : "function"} is not allowed in contracts: ${SYNC}`);
      childOwner = enterFunction(node, depth + 1);
      functions.push(childOwner);
    } else if (LOOPS.has(node.type)) {
      if (node.type === "ForOfStatement" && node.await) refuse(source, node.start, `for await is not allowed in contracts: ${SYNC}`);
      const body = node.body as AnyNode;
      if (body.type === "BlockStatement") {
        enterBlock(body, depth + 1, false);
      } else {
        add(body.start, `{${STEP_CALL}`, false, depth + 1);
        add(body.end, "}", true, depth + 1);
      }
    }

    // Children go on the stack in reverse, so that the walk (and the first refusal reported) follows source order.
    const isFunction = FUNCTIONS.has(node.type);
    const mark = stack.length;
    for (const childKey in node) {
      const value = node[childKey];
      if (typeof value !== "object" || value === null || NON_NODE_KEYS.has(childKey)) continue;
      const childInParams = isFunction ? childKey === "params" : inParams;
      if (Array.isArray(value)) {
        for (const item of value) {
          if (isNode(item)) stack.push({ node: item, parent: node, key: childKey, depth: depth + 1, inParams: childInParams, owner: childOwner });
        }
      } else if (isNode(value)) {
        stack.push({ node: value, parent: node, key: childKey, depth: depth + 1, inParams: childInParams, owner: childOwner });
      }
    }
    reverseFrom(stack, mark);
  }
  for (const { slots, texts } of functions) {
    for (const insertion of texts) insertion.text = insertion.text.replaceAll(FRAME_PLACEHOLDER, String(frameBytes(slots)));
  }
  return insertions;
}

function reverseFrom<T>(array: T[], from: number): void {
  for (let i = from, j = array.length - 1; i < j; i++, j--) {
    const t = array[i]!;
    array[i] = array[j]!;
    array[j] = t;
  }
}

/** Position of the `{` of `static {`: only whitespace and comments can stand between. */
function staticBlockBrace(source: string, node: AnyNode): number {
  return findOutsideComments(source, node.start + "static".length, node.end, "{");
}

/**
 * Position just after an expression-bodied arrow's `=>`. After the last parameter only `)`, `,`,
 * whitespace and comments can stand before it; with no parameters, `(` too.
 */
function arrowEnd(source: string, fn: AnyNode): number {
  const params = fn.params as AnyNode[];
  const from = params.length > 0 ? params[params.length - 1]!.end : fn.start;
  return findOutsideComments(source, from, fn.body.start, "=>") + 2;
}

/** First position of `token` in source[from, end) that is not inside a comment. */
function findOutsideComments(source: string, from: number, end: number, token: string): number {
  let i = from;
  while (i < end) {
    if (source.startsWith(token, i)) return i;
    if (source[i] === "/" && source[i + 1] === "/") {
      while (i < end && !"\n\r\u2028\u2029".includes(source[i]!)) i++;
    } else if (source[i] === "/" && source[i + 1] === "*") {
      const close = source.indexOf("*/", i + 2);
      i = close < 0 ? end : close + 2;
    } else {
      i++;
    }
  }
  throw new Error(`instrument: no '${token}' between ${from} and ${end}`);
}

/**
 * Applies insertions. Equivalent to splicing them in from the end of the string backwards (so that every
 * position still refers to the original text), done as one pass over sorted positions to stay linear.
 */
function apply(source: string, insertions: Insertion[]): string {
  insertions.sort((a, b) => {
    if (a.pos !== b.pos) return a.pos - b.pos;
    if (a.close !== b.close) return a.close ? -1 : 1;
    if (a.depth !== b.depth) return a.close ? b.depth - a.depth : a.depth - b.depth;
    return a.seq - b.seq;
  });
  const parts: string[] = [];
  let last = 0;
  for (const { pos, text } of insertions) {
    if (pos > last) parts.push(source.slice(last, pos));
    parts.push(text);
    last = pos;
  }
  parts.push(source.slice(last));
  return parts.join("");
}

// ---------------------------------------------------------------------------------------------------------
// Cache: the runtime instruments on every execution.

const CACHE_MAX_ENTRIES = 256;
/** Bound on the cached instrumented text, in UTF-16 code units (about 2 bytes each). */
const CACHE_MAX_CHARS = 32 * 1024 * 1024;
const cache = new Map<string, string>();
let cachedChars = 0;

/**
 * instrument() behind a bounded LRU cache keyed by the sha256 of the source. The size limit is checked on
 * every call (limits may differ between calls); refusals are not cached.
 */
export function instrumentCached(source: string, limits: { codeBytes: number }): string {
  checkSize(source, limits);
  // UTF-16LE hashes the exact string: UTF-8 would map every lone surrogate to U+FFFD, and two different
  // sources could then share one cache entry.
  const key = createHash("sha256").update(source, "utf16le").digest("hex");
  const hit = cache.get(key);
  if (hit !== undefined) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const result = instrument(source, limits);
  if (result.length <= CACHE_MAX_CHARS) {
    cache.set(key, result);
    cachedChars += result.length;
    for (const [oldKey, oldValue] of cache) {
      if (cache.size <= CACHE_MAX_ENTRIES && cachedChars <= CACHE_MAX_CHARS) break;
      cache.delete(oldKey);
      cachedChars -= oldValue.length;
    }
  }
  return result;
}

/** Empties the instrumentation cache (tests, or to release memory). */
export function clearInstrumentCache(): void {
  cache.clear();
  cachedChars = 0;
}

/** Number of cached instrumented sources. */
export function instrumentCacheSize(): number {
  return cache.size;
}
