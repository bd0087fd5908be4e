/**
 * Deterministic metering of JavaScript contracts by source rewriting (docs/contracts.md §13). The contract
 * becomes `(function (<meter functions>) { return (function () {<source>;return {init, main, query}}); })`:
 * the meter functions exist only lexically (no global holds them, and the source may not name anything
 * starting with `__chainsim`), and the inner function has no arguments for `arguments` to reveal. Text is
 * only inserted (a regular-expression literal is replaced), never a line break, so line numbers in
 * exceptions and stacks stay those of the user's source; columns shift and are never shown.
 *
 * Metered (the meter functions are described in bootstrap.ts):
 * - every function body (declarations, expressions, arrows, methods, getters, setters, constructors):
 *   `const __chainsim_t = enter(frame, weight); try { body } finally { leave(__chainsim_t) }` after any
 *   directive prologue: a step, the body's static memory weight, and a frame of the stack model
 *   (frameBytes) that is popped however the body ends;
 * - every loop iteration and class static block: `step(weight)`, so `continue` still pays;
 * - parameter defaults and class field initialisers that call something run before any body: they hold a
 *   frame while they run, `pop(push(frame), value)` (else `function f(n, a = f(n - 1))` would recurse unseen);
 * - spread arguments `f(...a)`: `pop(push(0), f(...args(a)))` charges the copy and holds 16 bytes of stack
 *   per argument during the call; spread in arrays `spread(a)`, in objects `sized(o)`;
 * - what V8 lists or collects natively before any step could count it: `for (k in enumerated(o))`, the
 *   source of a declaration or assignment with an object rest `{a, ...r} = sized(o)` or an array rest
 *   `[a, ...r] = iterated(o)`;
 * - every `+`, `+=` and untagged template: `str(value)` caps the string and charges long ones;
 * - every comparison `a OP b` (===, !==, ==, !=, <, >, <=, >=) becomes `cmp(a , b)` (the operator token
 *   replaced by a comma), and a `switch` discriminant `switched(d, cases)`: comparing long strings is charged;
 * - a body's straight-line code pays 1 step per NODES_PER_STEP syntax nodes on top of its entry step;
 * - every catch block starts with `caught(e)`: a run stopped by a limit stays stopped, V8's own limits
 *   become ours;
 * - every regular-expression literal is built by `regexp(source, flags)` (the linear-time engine);
 * - every write to `o.length` or `o[k]` (k not a literal of another name or an index below 8), as the
 *   target of any assignment, `++`/`--`, destructuring or for-in/of head, becomes `member(o, k).value`: an
 *   array's new length, or elements past the end, are charged before V8 reserves them (docs/contracts.md
 *   §13, "Writes that can make an array longer").
 *
 * Refused (ContractSourceError): a source over the size limit (155), one that does not parse as a classic
 * script (152), and (152) constructs that would escape metering or that a synchronous contract cannot use:
 * the reserved identifier, `eval`, `Function`, `with`, `import()`, async functions, generators, `await`,
 * `yield`, `for await`, and writes to `super[…]` or `super.length` (no helper can be given `super`).
 */
import { createHash } from "node:crypto";
import { Parser, getLineInfo, type Options } from "acorn";
import { instrumenterBuild, type MeteredStore } from "../metered-store.js";

/** The prefix of every name the metering uses; contracts may not mention any name that starts with it. */
export const RESERVED_PREFIX = "__chainsim";

/** The wrapper's parameters, in order: the runtime (bootstrap.ts) passes its meter functions so. */
export const METER_FUNCTIONS = [
  "__chainsim_enter",
  "__chainsim_leave",
  "__chainsim_step",
  "__chainsim_push",
  "__chainsim_pop",
  "__chainsim_args",
  "__chainsim_spread",
  "__chainsim_sized",
  "__chainsim_str",
  "__chainsim_caught",
  "__chainsim_regexp",
  "__chainsim_enumerated",
  "__chainsim_iterated",
  "__chainsim_seq",
  "__chainsim_sne",
  "__chainsim_leq",
  "__chainsim_lne",
  "__chainsim_lt",
  "__chainsim_gt",
  "__chainsim_le",
  "__chainsim_ge",
  "__chainsim_switched",
  "__chainsim_member",
  "__chainsim_keyed",
  "__chainsim_fieldkey",
  "__chainsim_field",
  "__chainsim_classmade",
  "__chainsim_protolink",
  "__chainsim_sub",
  "__chainsim_mul",
  "__chainsim_div",
  "__chainsim_mod",
  "__chainsim_pow",
  "__chainsim_band",
  "__chainsim_bor",
  "__chainsim_bxor",
  "__chainsim_shl",
  "__chainsim_shr",
  "__chainsim_ushr",
  "__chainsim_neg",
  "__chainsim_pos",
  "__chainsim_bnot",
  "__chainsim_pre",
  "__chainsim_post",
  "__chainsim_old",
  "__chainsim_num",
  "__chainsim_closing",
  "__chainsim_compound",
  "__chainsim_key",
  "__chainsim_in",
  "__chainsim_with",
] as const;

/** Property names whose read walks the whole stack when they are a sloppy function's own (docs/contracts.md §13). */
const STACK_WALKING_KEYS = new Set(["caller", "arguments"]);
/** The name a non-computed key or a literal key spells, for STACK_WALKING_KEYS. */
function spelledKey(key: AnyNode, computed: boolean): string | undefined {
  if (!computed && key.type === "Identifier") return key.name;
  if (key.type === "Literal" && typeof key.value === "string") return key.value;
  return undefined;
}

/** Comparison operators become calls of these meter functions: comparing long strings is charged by length. */
const COMPARISONS: Record<string, string> = {
  "===": "__chainsim_seq",
  "!==": "__chainsim_sne",
  "==": "__chainsim_leq",
  "!=": "__chainsim_lne",
  "<": "__chainsim_lt",
  ">": "__chainsim_gt",
  "<=": "__chainsim_le",
  ">=": "__chainsim_ge",
};

/**
 * Arithmetic operators become calls too: V8 reads a whole string to make a number of it (docs/contracts.md
 * §13), so a long one is charged by its length. `+` makes strings, not numbers (`__chainsim_str`).
 */
const ARITHMETIC: Record<string, string> = {
  "-": "__chainsim_sub",
  "*": "__chainsim_mul",
  "/": "__chainsim_div",
  "%": "__chainsim_mod",
  "**": "__chainsim_pow",
  "&": "__chainsim_band",
  "|": "__chainsim_bor",
  "^": "__chainsim_bxor",
  "<<": "__chainsim_shl",
  ">>": "__chainsim_shr",
  ">>>": "__chainsim_ushr",
};
const UNARY: Record<string, string> = { "-": "__chainsim_neg", "+": "__chainsim_pos", "~": "__chainsim_bnot" };
/** `x OP= y` for the arithmetic operators: `x = f(x, y)` for a variable, `compound(member(o, k), f, () => (y))` for a property. */
const arithmeticAssignment = (operator: string): string | undefined => (operator.endsWith("=") ? ARITHMETIC[operator.slice(0, -1)] : undefined);

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

/**
 * Both functions are parenthesized, which makes V8 compile them when the script is compiled (not counted by
 * the clock guard, js-runtime.ts), not at their first call (counted): unparenthesized, the inner one, the
 * whole contract, was parsed again inside the run, 0.1-0.3 s for 1.7 Mi characters of metered arrows, and
 * eight nested calls of such a callee ended on the clock before the step limit (review of 2026-11-27).
 */
const WRAPPER_OPEN = `(function (${METER_FUNCTIONS.join(", ")}) { return (function () {`;
const WRAPPER_CLOSE = `\n;return { init: typeof init === "function" ? init : undefined, main: typeof main === "function" ? main : undefined, query: typeof query === "function" ? query : undefined };\n}); })`;
const TOKEN = "__chainsim_t";
const CAUGHT = "__chainsim_e";
/** Stand for a function's frame size and a body's weight in inserted text until the walk has counted them. */
const FRAME_PLACEHOLDER = "\u0000frame\u0000";
const WEIGHT_PLACEHOLDER = "\u0000weight\u0000";
const STEPS_PLACEHOLDER = "\u0000steps\u0000";
/**
 * Syntax nodes of straight-line code per step: a body of thousands of statements costs more than one step
 * each time it runs (a call or an iteration pays 1 + its own nodes / NODES_PER_STEP; nested functions and
 * loop bodies pay their own).
 */
const NODES_PER_STEP = 128;
/** The frame a class field initialiser holds while it runs (the initialiser and the constructor around it), before its nodes. */
const FIELD_FRAME_BYTES = 256;

/**
 * The stack model (docs/contracts.md §13): a frame costs a fixed overhead plus one slot per parameter, per
 * declared name in the function and per argument of its widest call (V8's interpreter gives each a
 * register), plus FRAME_NODE_BYTES per syntax node of the function's own code (frameNodes): V8 also gives
 * expressions registers, held for as long as the expression is being evaluated, so that a class with 5,000
 * computed members in a loop that never runs made each frame about 80 KB (seventeenth review of 2026-11-26).
 * Measured, no syntax node takes more than about 16 bytes of real stack per model byte's 4 (array patterns
 * weighed as 16 nodes), so the model's 512 KiB limit is always reached long before V8's own stack overflow
 * (the contract worker's isolates get at least 16 MiB of real stack).
 */
export const FRAME_BASE_BYTES = 128;
export const FRAME_SLOT_BYTES = 16;
export const FRAME_NODE_BYTES = 4;

export function frameBytes(slots: number, nodes: number): number {
  return FRAME_BASE_BYTES + FRAME_SLOT_BYTES * slots + FRAME_NODE_BYTES * nodes;
}

/**
 * Syntax nodes a node counts as in the frame: an array pattern holds an iterator record and its closing
 * state, about 65 bytes of real stack a nesting level (780 nested ones in dead code made frames of 51 KB;
 * eighteenth review of 2026-11-26), a default in a pattern a little more than one node.
 */
function frameNodes(node: AnyNode): number {
  return node.type === "ArrayPattern" ? 16 : node.type === "AssignmentPattern" ? 2 : 1;
}

/**
 * Syntax nodes a node counts as in its code's steps (NODES_PER_STEP): an array pattern runs an iterator
 * (a guarded call, its `next`, a close: about 1 µs interpreted) and a step of it for each element, holes
 * included, which the syntax tree holds as nothing (10,000 holes a statement reached the clock; nineteenth
 * review of 2026-11-26).
 */
function stepNodes(node: AnyNode): number {
  if (node.type === "MemberExpression" && node.computed) return COMPUTED_MEMBER_NODES;
  if (node.type !== "ArrayPattern") return 1;
  return 16 + (node.elements as (AnyNode | null)[]).filter((element) => element === null).length;
}

/**
 * A computed member (`o[k]`) counts as this many nodes: V8 caches no miss of an element key, so each one that
 * misses walks the whole prototype chain (up to 37 ns a prototype whose elements are in dictionary mode),
 * which 300 reads a statement made a budget reach the clock on a chain of 255 (twenty-third review of
 * 2026-11-26; the chain limit is guards/kit.ts CHAIN_LIMIT).
 */
const COMPUTED_MEMBER_NODES = 4;

/**
 * Array patterns nested deeper than this are refused: V8's optimizing compiler takes time and memory that
 * grow faster than their nesting (200 levels: 0.4 s and 450 MB, waited for when the isolate is disposed;
 * nineteenth review of 2026-11-26), none of it a step.
 */
export const MAX_ARRAY_PATTERN_NESTING = 32;
/**
 * What lies between an array pattern and one nested in it: the parts of a destructuring pattern, and an
 * assignment in a default (`[x = ([y] = a)] = a`).
 */
const PATTERN_PARTS = new Set(["ArrayPattern", "ObjectPattern", "Property", "AssignmentPattern", "RestElement", "AssignmentExpression"]);

/** Syntax nodes of an expression outside the functions it holds (what its evaluation gives registers). */
function ownNodes(expr: AnyNode): number {
  let count = 0;
  const stack: AnyNode[] = [expr];
  while (stack.length > 0) {
    const node = stack.pop()!;
    count += frameNodes(node);
    if (FUNCTIONS.has(node.type) || node.type === "StaticBlock") continue;
    for (const [, child] of children(node)) stack.push(child);
  }
  return count;
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
  /** The original text up to here is replaced (regular-expression literals, which have no children). */
  deleteTo?: number;
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
  /** Strict mode code (a "use strict" prologue, or a class): decides how a metered write fails. */
  strict: boolean;
  /** The innermost enclosing function's frame, whose slots its declarations add to. */
  owner: FunctionFrame | null;
  /** The innermost function body, loop body or static block, whose weight its allocating nodes add to. */
  body: Weighted | null;
}

/** A function being instrumented: its slot count, its widest call and the inserted texts that carry its frame size. */
interface FunctionFrame {
  slots: number;
  widestCall: number;
  /** Syntax nodes of its own code (not of the functions it holds). */
  nodes: number;
  texts: Insertion[];
}

/** Code that pays on entry (a function body, a loop body, a static block): its static memory weight. */
interface Weighted {
  weight: number;
  /** Syntax nodes in its own straight-line code. */
  nodes: number;
  texts: Insertion[];
}

/**
 * Bytes a node may allocate and keep each time it runs, for the memory model's static weight
 * (docs/contracts.md §13): objects, arrays, closures, and stores into them. Arithmetic is not weighed:
 * its numbers live on only when stored, and storing is. Work that grows with data (strings, spreads,
 * built-ins) is charged when it happens.
 */
function allocationWeight(node: AnyNode): number {
  switch (node.type) {
    case "ArrayExpression":
      return 64 + 16 * node.elements.length;
    case "ObjectExpression":
      return 64 + 32 * node.properties.length;
    case "FunctionExpression":
    case "ArrowFunctionExpression":
    case "FunctionDeclaration":
    case "ClassExpression":
    case "ClassDeclaration":
      return 128;
    case "NewExpression":
      return 64 + 16 * node.arguments.length;
    case "CallExpression":
      return 32 + 16 * node.arguments.length;
    case "TemplateLiteral":
      return 64;
    case "AssignmentExpression":
      return node.left.type === "MemberExpression" ? 64 : 0;
    case "Literal":
      return node.regex ? 64 : 0;
  }
  return 0;
}

/** Bytes each field defined on an object holds (a property, as a store). */
const FIELD_BYTES = 32;
const FIELDS_PER_STEP = 32;
const STATIC_FIELDS_PER_STEP = 1;
/**
 * The syntax nodes and static weight of field initialisers (docs/contracts.md §13): the functions and classes
 * among them count as one node and their closure, their bodies pay their own.
 */
function weighInitialisers(values: AnyNode[]): { weight: number; nodes: number } {
  let weight = 0;
  let nodes = 0;
  const pending = [...values];
  while (pending.length > 0) {
    const node = pending.pop()!;
    nodes++;
    weight += allocationWeight(node);
    if (FUNCTIONS.has(node.type) || node.type === "ClassExpression") continue;
    for (const [, child] of children(node)) pending.push(child);
  }
  return { weight, nodes };
}
/** Expressions that take a name from what they are assigned to (ECMAScript's IsAnonymousFunctionDefinition, without an id). */
const ANONYMOUS_DEFINITIONS = new Set(["FunctionExpression", "ArrowFunctionExpression", "ClassExpression"]);
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
  return typeof name === "string" && name.startsWith(RESERVED_PREFIX);
}

/**
 * How many of acorn's recursive productions may be open at once. acorn recurses on the host's own stack,
 * where how deep it gets before overflowing depends on what the process ran before (compiled or still
 * interpreted code): the same source could parse on one validator and not on another. This bound is far
 * below that, so deep nesting is refused the same way everywhere (docs/contracts.md §13). About five
 * productions open per level of parentheses: some 200 levels; a chain of 800 binary operators.
 */
export const MAX_PARSE_NESTING = 800;
/**
 * How many blocks and functions may be open inside one another. acorn looks at every open scope for each
 * identifier it reads, so instrumenting 240 KB inside 790 nested blocks took 2-4 s instead of 0.5 s, work
 * the clock does not count (review of 2026-11-27). Real code nests a few levels.
 */
export const MAX_SCOPE_NESTING = 64;
const RECURSIVE_PRODUCTIONS = ["parseStatement", "parseMaybeAssign", "parseExprOp", "parseMaybeUnary", "parseExprAtom", "parseBindingAtom"];

/**
 * The names a scope declares, as acorn keeps them (an array it pushes to and searches), with a set beside so
 * that a search for a name not there is not a walk of all of them: acorn checks each declaration against
 * the scope's names, and 64,890 names in one `let` took 11 s to parse (review of 2026-11-27). A name found
 * is a redeclaration, which ends the parse, so the walk then is paid once.
 */
class NameList extends Array<string> {
  private readonly names = new Set<string>();

  override push(...items: string[]): number {
    for (const item of items) this.names.add(item);
    return super.push(...items);
  }

  override indexOf(name: string, fromIndex?: number): number {
    return this.names.has(name) ? super.indexOf(name, fromIndex) : -1;
  }
}

// acorn's productions are not in its type declarations: the subclass reaches them untyped.
/* eslint-disable @typescript-eslint/no-explicit-any */
const BoundedParser = Parser.extend((Base: any) => {
  const Bounded = class extends Base {
    nesting = 0;
  };
  for (const name of RECURSIVE_PRODUCTIONS) {
    const production = Base.prototype[name] as (...args: unknown[]) => unknown;
    (Bounded.prototype as any)[name] = function (this: any, ...args: unknown[]) {
      if (++this.nesting > MAX_PARSE_NESTING) this.raise(this.start, `Contract code is nested more than ${MAX_PARSE_NESTING} levels deep`);
      try {
        return production.apply(this, args);
      } finally {
        this.nesting--;
      }
    };
  }
  const enterScope = Base.prototype.enterScope as (flags: number) => void;
  (Bounded.prototype as any).enterScope = function (this: any, flags: number) {
    if (this.scopeStack.length > MAX_SCOPE_NESTING) this.raise(this.start, `Contract code nests blocks and functions more than ${MAX_SCOPE_NESTING} deep`);
    enterScope.call(this, flags);
    const scope = this.scopeStack[this.scopeStack.length - 1];
    for (const kind of ["var", "lexical", "functions"]) scope[kind] = new NameList();
  };
  return Bounded as any;
});

/** acorn's parse with the nesting bound: every parse of a contract goes through here. */
export function parseContract(source: string, options: Options): unknown {
  return BoundedParser.parse(source, options);
}

/**
 * Rewrites a contract into its metered wrapper (see the top of this file). Deterministic: the result
 * depends on `source` only (limits only decide refusal).
 */
export function instrument(source: string, limits: { codeBytes: number }): string {
  checkSize(source, limits);
  let program: AnyNode;
  try {
    program = parseContract(source, { ecmaVersion: ECMA_VERSION, sourceType: "script", allowHashBang: false }) as AnyNode;
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
  insertions.push({ pos: 0, text: WRAPPER_OPEN, close: false, depth: -1, seq: -1 });
  insertions.push({ pos: source.length, text: WRAPPER_CLOSE, close: true, depth: -1, seq: -1 });
  const metered = apply(source, insertions);
  const limit = meteredLimit(source.length);
  if (metered.length > limit) {
    throw new ContractSourceError(`SyntaxError: Contract code would be ${metered.length} characters metered, more than ${limit}: write fewer, larger functions`);
  }
  return metered;
}

/**
 * The metered text V8 compiles in each run: at most 2 Mi characters (8 times the largest source). Metering
 * wraps every function, so 250 KB of nested arrows became 8.6 MB that V8 compiled for 0.3-1.6 s in each run,
 * at one step (review of 2026-11-27).
 */
export const MAX_METERED_CHARS = 2 * 1024 * 1024;
/**
 * And at most this many characters per character of source, plus METERED_SLACK_CHARS: compiling is charged
 * by the source's length (a step per 64 bytes), so the metered text must not outgrow it. 53 KB of one-line
 * arrows became 1.7 Mi characters, and eight nested calls of it compiled for a second at 1,200 steps each
 * (review of 2026-11-27). Ordinary code grows 2-4 times, the small examples of docs/contracts.md at most 7.
 */
export const METERED_PER_SOURCE_CHAR = 8;
export const METERED_SLACK_CHARS = 4096;

/** The most characters of metered text a source of `length` characters may become. */
export function meteredLimit(length: number): number {
  return Math.min(MAX_METERED_CHARS, METERED_PER_SOURCE_CHAR * length + METERED_SLACK_CHARS);
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

/** Where the binary operator `operator` starts between `from` and `to` (parentheses, comments and spaces around it). */
function operatorAt(source: string, from: number, to: number, operator: string): number {
  const between = source.slice(from, to);
  // Most often only spaces surround the operator: no need to tokenize.
  const at = between.indexOf(operator);
  if (at >= 0 && between.trim() === operator) return from + at;
  // A leading operand makes `/` a division for the tokenizer, not the start of a regular expression.
  for (const token of Parser.tokenizer("0" + between, { ecmaVersion: ECMA_VERSION })) {
    if (token.start > 0 && between.slice(token.start - 1, token.end - 1) === operator) return from + token.start - 1;
  }
  throw new Error(`instrument: no ${operator} between ${from} and ${to}`);
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
  let fieldIds = 0;
  /** What the first instance field and the first static field of a class pay for all of its fields of that kind. */
  const fieldCharges = new Map<AnyNode, { weight: number; steps: number }>();
  const chargeFields = (body: AnyNode) => {
    for (const isStatic of [false, true]) {
      const fields = (body.body as AnyNode[]).filter((m) => m.type === "PropertyDefinition" && Boolean(m.static) === isStatic);
      if (fields.length === 0) continue;
      const { weight, nodes } = weighInitialisers(fields.map((f) => f.value as AnyNode | null).filter((v): v is AnyNode => v !== null));
      // Defining a field costs V8 about 10 ns on an instance and 2.5 µs on a class (a function object whose
      // properties go to a dictionary): 1 step per FIELDS_PER_STEP of each kind.
      const defining = Math.ceil(fields.length / (isStatic ? STATIC_FIELDS_PER_STEP : FIELDS_PER_STEP));
      fieldCharges.set(fields[0]!, { weight: weight + FIELD_BYTES * fields.length, steps: 1 + Math.floor(nodes / NODES_PER_STEP) + defining });
    }
  };
  const add = (pos: number, text: string, close: boolean, depth: number) => {
    insertions.push({ pos, text, close, depth, seq: seq++ });
  };
  /**
   * Where a block's entry code goes (after its directive prologue if asked; a program's at its start, a `{`
   * block's after the brace), and `;` if ASI ended the prologue.
   */
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
    return { pos: block.type === "Program" ? block.start : block.start + 1, prefix: "" };
  };
  /** `{ step(W); …` at a block's entry (loop bodies, static blocks); the block is weighted from here. */
  const enterBlock = (block: AnyNode, key: number, prefixText = ""): Weighted => {
    const weighted: Weighted = { weight: 0, nodes: 0, texts: [] };
    add(block.start + 1, `${prefixText}__chainsim_step(${WEIGHT_PLACEHOLDER},${STEPS_PLACEHOLDER});`, false, key);
    weighted.texts.push(insertions[insertions.length - 1]!);
    return weighted;
  };
  /** A function body inside `const t = enter(F, W); try { … } finally { leave(t) }`: the frame is popped however the body ends. */
  const enterFunction = (fn: AnyNode, key: number): [FunctionFrame, Weighted] => {
    const frame: FunctionFrame = { slots: (fn.params as AnyNode[]).reduce((sum, param) => sum + bindingCount(param), 0), widestCall: 0, nodes: 0, texts: [] };
    const weighted: Weighted = { weight: 0, nodes: 0, texts: [] };
    const enter = `const ${TOKEN}=__chainsim_enter(${FRAME_PLACEHOLDER},${WEIGHT_PLACEHOLDER},${STEPS_PLACEHOLDER});try{`;
    const leave = `}finally{__chainsim_leave(${TOKEN})}`;
    const body = fn.body as AnyNode;
    if (body.type === "BlockStatement") {
      const { pos, prefix } = blockEntry(body, true);
      // An empty body: one insertion, since at one position closings would go before openings.
      if (pos === body.end - 1) {
        add(pos, prefix + enter + leave, false, key);
      } else {
        add(pos, prefix + enter, false, key);
        add(body.end - 1, leave, true, key);
        frame.texts.push(insertions[insertions.length - 2]!);
        weighted.texts.push(insertions[insertions.length - 2]!);
        return [frame, weighted];
      }
    } else {
      // An expression body becomes a block returning it; `return(` so a line break after `=>` cannot end the statement.
      add(arrowEnd(source, fn), `{${enter}return(`, false, key);
      add(fn.end, `)${leave}}`, true, key);
      frame.texts.push(insertions[insertions.length - 2]!);
      weighted.texts.push(insertions[insertions.length - 2]!);
      return [frame, weighted];
    }
    frame.texts.push(insertions[insertions.length - 1]!);
    weighted.texts.push(insertions[insertions.length - 1]!);
    return [frame, weighted];
  };
  /** `open + expr + close` around a node. */
  const wrap = (node: AnyNode, key: number, open: string, close = ")") => {
    // `f((a, b))`: the comma expression's range excludes its parentheses, and would become two arguments.
    const sequence = node.type === "SequenceExpression";
    add(node.start, sequence ? open + "(" : open, false, key);
    add(node.end, sequence ? ")" + close : close, true, key);
  };
  /** Where wrapRestSource can charge a pattern's source: the whole target of a declarator with a value, or of `=`. */
  const restSourceSeen = (pattern: AnyNode, parent: AnyNode | null | undefined, key: string | undefined) =>
    (parent?.type === "VariableDeclarator" && key === "id" && parent.init != null) || (parent?.type === "AssignmentExpression" && key === "left" && parent.operator === "=" && pattern === parent.left);
  /** A pattern with a rest element at its top level copies what is left of its source natively: charged first. */
  const wrapRestSource = (pattern: AnyNode, source: AnyNode, key: number) => {
    if (pattern.type === "ObjectPattern" && (pattern.properties as AnyNode[]).some((p) => p.type === "RestElement")) wrap(source, key, "__chainsim_sized(");
    if (pattern.type === "ArrayPattern" && (pattern.elements as (AnyNode | null)[]).some((e) => e?.type === "RestElement")) wrap(source, key, "__chainsim_iterated(");
  };
  /** The node a spread call must be wrapped at: the whole optional chain it is part of, so `?.` still short-circuits. */
  const callSite = (call: AnyNode): AnyNode => {
    let node = call;
    let chain: AnyNode | undefined;
    for (let up = parents.get(node); up; node = up, up = parents.get(node)) {
      if (up.type === "ChainExpression") chain = up;
      else if (!((up.type === "MemberExpression" && up.object === node) || (up.type === "CallExpression" && up.callee === node))) break;
    }
    return chain ?? call;
  };

  const functions: FunctionFrame[] = [];
  const bodies: Weighted[] = [];
  const parents = new Map<AnyNode, AnyNode>();
  // The top level runs once per run, as a body does: its straight-line code pays 1 step per NODES_PER_STEP
  // nodes and its weight (after its directives, which must stay first).
  const topLevel: Weighted = { weight: 0, nodes: 0, texts: [] };
  const topEntry = blockEntry(program, true);
  add(topEntry.pos, `${topEntry.prefix}__chainsim_step(${WEIGHT_PLACEHOLDER},${STEPS_PLACEHOLDER});`, false, 1);
  topLevel.texts.push(insertions[insertions.length - 1]!);
  bodies.push(topLevel);
  const stack: Frame[] = [{ node: program, parent: null, key: "", depth: 0, inParams: false, strict: hasUseStrict(program), owner: null, body: topLevel }];
  while (stack.length > 0) {
    const { node, parent, key, depth, inParams, strict, owner, body } = stack.pop()!;
    // Insertion order keys: text around a node at depth k sorts at 2k, text inside it around its children at 2k + 1.
    const around = 2 * depth;
    const inside = 2 * depth + 1;
    if (parent) parents.set(node, parent);
    let childOwner = owner;
    let childBody = body;
    if (body) {
      body.weight += allocationWeight(node);
      body.nodes += stepNodes(node);
    }
    if (owner) owner.nodes += frameNodes(node);
    switch (node.type) {
      case "VariableDeclarator":
        // V8 gives every name a destructuring pattern binds a register of its own.
        if (owner) owner.slots += bindingCount(node.id as AnyNode);
        break;
      case "CatchClause":
        if (owner && node.param) owner.slots += bindingCount(node.param as AnyNode);
        break;
      case "FunctionDeclaration":
      case "ClassDeclaration":
        if (owner) owner.slots++;
        break;
    }
    switch (node.type) {
      case "Identifier":
        if (isReserved(node.name)) refuse(source, node.start, `Reserved identifier ${RESERVED_PREFIX}… is not allowed in contracts (found "${node.name}")`);
        if (isVariableName(parent, key)) {
          if (node.name === "eval") {
            const direct = parent?.type === "CallExpression" && key === "callee";
            refuse(source, node.start, `${direct ? "Direct eval" : "eval"} is not allowed in contracts: ${DYNAMIC}`);
          }
          if (node.name === "Function") refuse(source, node.start, `The Function constructor is not allowed in contracts: ${DYNAMIC}`);
        }
        break;
      case "PrivateIdentifier":
        if (isReserved(node.name)) refuse(source, node.start, `Reserved identifier ${RESERVED_PREFIX}… is not allowed in contracts (found "#${node.name}")`);
        break;
      case "Literal":
        if (isReserved(node.value)) refuse(source, node.start, `Reserved identifier ${RESERVED_PREFIX}… is not allowed in contracts (found the string "${node.value}")`);
        if (node.bigint !== undefined) refuse(source, node.start, "BigInt is not supported in contracts: count int64 values as strings with Utils.int64*");
        if (node.regex) {
          insertions.push({ pos: node.start, text: `__chainsim_regexp(${JSON.stringify(node.regex.pattern)},${JSON.stringify(node.regex.flags)})`, deleteTo: node.end, close: false, depth: around, seq: seq++ });
        }
        break;
      case "TemplateElement":
        if (isReserved(node.value?.cooked)) refuse(source, node.start, `Reserved identifier ${RESERVED_PREFIX}… is not allowed in contracts (found the template "${node.value.cooked}")`);
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
        childBody = enterBlock({ ...node, start: staticBlockBrace(source, node) }, inside);
        bodies.push(childBody);
        break;
      case "ClassBody":
        chargeFields(node);
        // Runs before any static field or block of the contract's: the class's prototype chains are checked
        // once it exists (docs/contracts.md §13, prototype chains).
        add(node.start + 1, "static{__chainsim_classmade(this)}", false, inside);
        break;
      case "PropertyDefinition": {
        if (node.value && containsCall(node.value)) wrap(node.value, inside, `__chainsim_pop(__chainsim_push(${FIELD_FRAME_BYTES + FRAME_NODE_BYTES * ownNodes(node.value)}),`);
        // A computed field key can be an index far past an instance's elements (docs/contracts.md §13): the
        // key, converted once, sets what defining it costs, paid by each instance as its initialiser runs.
        const site = node.computed ? fieldIds++ : -1;
        const key = node.key as AnyNode;
        if (node.computed) wrap(key, inside, "__chainsim_fieldkey(", `,${site}${node.static ? ",1" : ""})`);
        // The first field of each kind also pays for all of them: their initialisers' steps and weight run
        // at each construction (instance fields) or definition (static fields), in no function of the contract.
        const charge = fieldCharges.get(node);
        if (!charge && (node.static || site < 0)) break;
        const head = `__chainsim_field(${site},${charge?.weight ?? 0},${charge?.steps ?? 0}`;
        const value = node.value as AnyNode | null;
        if (value) {
          // `__chainsim_field` names an anonymous function after its field, as V8 would have.
          const anonymous = ANONYMOUS_DEFINITIONS.has(value.type) && !value.id;
          const name = node.computed ? "" : key.type === "PrivateIdentifier" ? `#${key.name}` : key.type === "Identifier" ? key.name : String(key.value);
          wrap(value, around, `${head},`, anonymous ? `,1,${JSON.stringify(name)})` : ")");
        } else {
          add(node.computed ? operatorAt(source, key.end, node.end, "]") + 1 : key.end, ` = ${head})`, false, around);
        }
        break;
      }
      case "AssignmentPattern":
        if (inParams && owner && containsCall(node.right)) {
          wrap(node.right, inside, `__chainsim_pop(__chainsim_push(${FRAME_PLACEHOLDER}),`);
          owner.texts.push(insertions[insertions.length - 2]!);
        }
        break;
      case "CallExpression":
      case "NewExpression":
        if (owner) owner.widestCall = Math.max(owner.widestCall, node.arguments.length);
        if ((node.arguments as AnyNode[]).some((a) => a.type === "SpreadElement")) wrap(callSite(node), around, "__chainsim_pop(__chainsim_push(0),");
        for (const argument of node.arguments as AnyNode[]) {
          if (argument.type === "SpreadElement") wrap(argument.argument, 2 * (depth + 1) + 1, "__chainsim_args(");
        }
        break;
      case "ArrayExpression":
        for (const element of node.elements as (AnyNode | null)[]) {
          if (element?.type === "SpreadElement") wrap(element.argument, 2 * (depth + 1) + 1, "__chainsim_spread(");
        }
        break;
      case "ObjectExpression":
        for (const property of node.properties as AnyNode[]) {
          if (property.type === "SpreadElement") wrap(property.argument, 2 * (depth + 1) + 1, "__chainsim_sized(");
          // A computed key can be an index far past the new object's elements (docs/contracts.md §13).
          else if (property.computed) wrap(property.key, 2 * (depth + 1) + 1, "__chainsim_keyed(");
          else if (isProtoSetter(property)) wrap(property.value, 2 * (depth + 1) + 1, "__chainsim_protolink(");
        }
        break;
      case "MethodDefinition":
        if (node.computed) wrap(node.key as AnyNode, inside, "__chainsim_key(");
        break;
      case "ObjectPattern":
      case "ArrayPattern":
        if (node.type === "ArrayPattern") {
          let nesting = 1;
          for (let up = parents.get(node); up && PATTERN_PARTS.has(up.type); up = parents.get(up)) if (up.type === "ArrayPattern") nesting++;
          if (nesting > MAX_ARRAY_PATTERN_NESTING) refuse(source, node.start, `Array patterns nested more than ${MAX_ARRAY_PATTERN_NESTING} deep are not allowed in contracts: V8's compiler takes time and memory no step counts for them`);
        }
        if (node.type === "ObjectPattern") {
          for (const property of node.properties as AnyNode[]) {
            if (property.type !== "Property") continue;
            const keyNode = property.key as AnyNode;
            if (property.computed) {
              wrap(keyNode, 2 * (depth + 1) + 1, "__chainsim_key(");
            } else if (STACK_WALKING_KEYS.has(spelledKey(keyNode, false) ?? "")) {
              // `{ caller } = f` becomes `{ [__chainsim_key("caller")]: caller } = f`: the read is charged.
              if (property.shorthand) add(keyNode.start, `[__chainsim_key(${JSON.stringify(keyNode.name)})]:`, false, 2 * (depth + 1) + 1);
              else if (keyNode.type === "Identifier") wrap(keyNode, 2 * (depth + 1) + 1, `[__chainsim_key("`, `")]`);
              else wrap(keyNode, 2 * (depth + 1) + 1, "[__chainsim_key(", ")]");
            }
          }
        }
        if ((node.type === "ObjectPattern" ? node.properties : node.elements).some((e: AnyNode | null) => e?.type === "RestElement") && !restSourceSeen(node, parent, key)) {
          refuse(source, node.start, "A rest element is allowed in contracts only in a declaration or an assignment of its own (const { a, ...rest } = value): here (a parameter, a nested pattern, a loop or catch binding) the copy it makes could not be metered");
        }
        break;
      case "ForInStatement":
        wrap(node.right, inside, "__chainsim_enumerated(");
        break;
      case "ForOfStatement":
        // A contract's iterator is closed through chainsim when the loop ends early (bootstrap.ts closingIterable).
        wrap(node.right, inside, "__chainsim_closing(");
        break;
      case "MemberExpression":
        if (isWriteTarget(parent, key, parent ? parents.get(parent) : undefined) && (mayGrow(node) || mustSeeWrite(node, parent))) memberWrite(node, around, inside, strict);
        // Any other computed key (a read, a call, `delete`) is seen as V8 looks it up: a long one is charged.
        // `super[k]` and `delete o[k]` word a failed conversion as a key's (kit.asPropertyKey).
        else if (node.computed && (node.property as AnyNode).type !== "Literal") {
          const keyMessages = (node.object as AnyNode).type === "Super" || (parent?.type === "UnaryExpression" && parent.operator === "delete");
          wrap(node.property as AnyNode, inside, "__chainsim_key(", keyMessages ? ",1)" : ")");
        } else if (STACK_WALKING_KEYS.has(spelledKey(node.property as AnyNode, node.computed) ?? "")) {
          // `o.caller` becomes `o[__chainsim_key("caller")]` (`o?.caller`, `o?.[…]`): the key meter charges the walk.
          const property = node.property as AnyNode;
          if (node.computed) {
            wrap(property, inside, "__chainsim_key(");
          } else {
            const dot = node.optional ? property.start : operatorAt(source, (node.object as AnyNode).end, property.start, ".");
            insertions.push({ pos: dot, text: `[__chainsim_key(${JSON.stringify(property.name)})]`, deleteTo: property.end, close: false, depth: inside, seq: seq++ });
          }
        }
        break;
      case "VariableDeclarator":
        if (node.init) wrapRestSource(node.id, node.init, inside);
        break;
      case "BinaryExpression":
        if (node.operator === "+") wrap(node, around, "__chainsim_str(");
        else if (COMPARISONS[node.operator] || ARITHMETIC[node.operator] || (node.operator === "in" && (node.left as AnyNode).type !== "PrivateIdentifier")) {
          // `a OP b` becomes `f(a , b)`: the operator token (found between the operands, past any parenthesis
          // or comment) is replaced by a comma.
          const between = operatorAt(source, (node.left as AnyNode).end, (node.right as AnyNode).start, node.operator);
          add(node.start, `${COMPARISONS[node.operator] ?? ARITHMETIC[node.operator] ?? "__chainsim_in"}(`, false, around);
          insertions.push({ pos: between, text: ",", deleteTo: between + node.operator.length, close: false, depth: inside, seq: seq++ });
          add(node.end, ")", true, around);
        }
        break;
      case "SwitchStatement":
        // Each case compares the discriminant with ===.
        wrap(node.discriminant, inside, "__chainsim_switched(", `,${(node.cases as AnyNode[]).length})`);
        break;
      case "AssignmentExpression": {
        if (node.operator === "+=") wrap(node, around, "__chainsim_str(");
        if (node.operator === "=") wrapRestSource(node.left, node.right, inside);
        const operate = arithmeticAssignment(node.operator);
        const left = node.left as AnyNode;
        const right = node.right as AnyNode;
        const reread = operate && readAgain(left);
        if (reread) {
          // `x -= y` becomes `x = f(x, y)`: the target is read once either way.
          const at = operatorAt(source, left.end, right.start, node.operator);
          insertions.push({ pos: at, text: `=${operate}(${reread},`, deleteTo: at + node.operator.length, close: false, depth: inside, seq: seq++ });
          add(node.end, ")", true, around);
        } else if (operate && left.type === "MemberExpression" && throughMember(left)) {
          // `o[k] -= y` becomes `compound(member(o, k), f, () => (y))`: the property read, then `y`, then both
          // converted in chainsim's hands, in V8's order (bootstrap.ts compound).
          add(node.start, "__chainsim_compound(", false, around);
          const at = operatorAt(source, left.end, right.start, node.operator);
          insertions.push({ pos: at, text: `,${operate},()=>(`, deleteTo: at + node.operator.length, close: false, depth: inside, seq: seq++ });
          add(node.end, "))", true, around);
        } else if (operate && isPrivateOfOther(left)) {
          // `o.#p -= y` becomes `with(o, (t) => t.#p = f(t.#p, y))`: `o` evaluated once, then as above.
          if (source.slice(left.end, operatorAt(source, left.end, right.start, node.operator)).includes(")")) {
            refuse(source, node.start, "A parenthesized private field of another object is not allowed as the target of an arithmetic compound assignment in contracts: write o.#p -= y");
          }
          const target = `${PRIVATE_TARGET}.#${(left.property as AnyNode).name}`;
          privateOfOther(left, `${target}=${operate}(${target},`, around);
          const at = operatorAt(source, left.end, right.start, node.operator);
          insertions.push({ pos: at, text: "", deleteTo: at + node.operator.length, close: false, depth: inside, seq: seq++ });
          add(node.end, "))", true, around);
        }
        break;
      }
      case "UnaryExpression": {
        const operate = UNARY[node.operator];
        const argument = node.argument as AnyNode;
        if (operate && !(argument.type === "Literal" && typeof argument.value === "number")) {
          insertions.push({ pos: node.start, text: `${operate}(`, deleteTo: node.start + 1, close: false, depth: around, seq: seq++ });
          add(node.end, ")", true, around);
        }
        break;
      }
      case "UpdateExpression": {
        const argument = node.argument as AnyNode;
        const name = readAgain(argument);
        const delta = node.operator === "++" ? 1 : -1;
        const valueUsed = !node.prefix && parent?.type !== "ExpressionStatement" && !(parent?.type === "ForStatement" && key === "update");
        const update = (target: string) => (valueUsed ? `__chainsim_old(${target}=__chainsim_post(${target},${delta}))` : `__chainsim_num(${target}=__chainsim_pre(${target},${delta}))`);
        if (name) {
          // The whole expression is replaced (parentheses around the name included), by a call: text that
          // starts with a name keeps automatic semicolon insertion as it was (`i = 0\ni++`).
          insertions.push({ pos: node.start, text: update(name), deleteTo: node.end, close: false, depth: around, seq: seq++ });
        } else if (isPrivateOfOther(argument)) {
          // `o.#p++` becomes `with(o, (t) => old(t.#p = post(t.#p, 1)))`, the operator token dropped.
          const target = `${PRIVATE_TARGET}.#${(argument.property as AnyNode).name}`;
          const operator = node.prefix ? node.start : node.end - 2;
          insertions.push({ pos: operator, text: "", deleteTo: operator + 2, close: false, depth: around, seq: seq++ });
          privateOfOther(argument, `${update(target)})`, inside);
        }
        break; // any other property goes through __chainsim_member
      }
      case "TemplateLiteral":
        if (parent?.type !== "TaggedTemplateExpression") wrap(node, around, "__chainsim_str(");
        break;
      case "CatchClause":
        catchClause(node, inside);
        break;
      case "TryStatement":
        // `finally { return }` (or break, continue) would drop V8's own overflow without a catch seeing it:
        // a catch that only shows the exception to the meter and rethrows it keeps the meaning.
        if (!node.handler) add((node.block as AnyNode).end, ` catch (${CAUGHT}) { __chainsim_caught(${CAUGHT}); throw ${CAUGHT}; }`, false, inside);
        break;
    }

    if (FUNCTIONS.has(node.type)) {
      // A method's FunctionExpression starts at its parameters: point at the method itself.
      const isMethod = parent?.type === "MethodDefinition" || (parent?.type === "Property" && (parent.method || parent.kind !== "init"));
      const at = isMethod ? parent!.start : node.start;
      if (node.async) refuse(source, at, `Async ${isMethod ? "method" : "function"} is not allowed in contracts: ${SYNC}`);
      if (node.generator) refuse(source, at, `Generator ${isMethod ? "method" : "function"} is not allowed in contracts: ${SYNC}`);
      [childOwner, childBody] = enterFunction(node, inside);
      functions.push(childOwner);
      bodies.push(childBody);
    } else if (LOOPS.has(node.type)) {
      if (node.type === "ForOfStatement" && node.await) refuse(source, node.start, `for await is not allowed in contracts: ${SYNC}`);
      const loopBody = node.body as AnyNode;
      let weighted: Weighted;
      if (loopBody.type === "BlockStatement") {
        weighted = enterBlock(loopBody, inside);
      } else {
        weighted = enterBlock({ ...loopBody, start: loopBody.start - 1 }, inside, "{");
        add(loopBody.end, "}", true, inside);
      }
      bodies.push(weighted);
      // What runs every iteration (body, test, update, the for-in/of binding) weighs on the iteration's step.
      const mark = stack.length;
      for (const [childKey, child] of children(node)) {
        const once = childKey === "init" || childKey === "right";
        stack.push({ node: child, parent: node, key: childKey, depth: depth + 1, inParams, strict, owner: childOwner, body: once ? childBody : weighted });
      }
      reverseFrom(stack, mark);
      continue;
    }

    // Children go on the stack in reverse, so that the walk (and the first refusal reported) follows source order.
    const isFunction = FUNCTIONS.has(node.type);
    const mark = stack.length;
    for (const childKey in node) {
      const value = node[childKey];
      if (typeof value !== "object" || value === null || NON_NODE_KEYS.has(childKey)) continue;
      const childInParams = isFunction ? childKey === "params" : inParams;
      const childStrict = strict || node.type === "ClassDeclaration" || node.type === "ClassExpression" || (isFunction && node.body.type === "BlockStatement" && hasUseStrict(node.body));
      if (Array.isArray(value)) {
        for (const item of value) {
          if (isNode(item)) stack.push({ node: item, parent: node, key: childKey, depth: depth + 1, inParams: childInParams, strict: childStrict, owner: childOwner, body: childBody });
        }
      } else if (isNode(value)) {
        stack.push({ node: value, parent: node, key: childKey, depth: depth + 1, inParams: childInParams, strict: childStrict, owner: childOwner, body: childBody });
      }
    }
    reverseFrom(stack, mark);
  }
  for (const { slots, widestCall, nodes, texts } of functions) {
    for (const insertion of texts) insertion.text = insertion.text.replaceAll(FRAME_PLACEHOLDER, String(frameBytes(slots + widestCall, nodes)));
  }
  for (const body of bodies) {
    const { weight, nodes, texts } = body;
    // The top level has no entry step of its own (a run's steps are its entry point's), only its code's.
    const steps = (body === topLevel ? 0 : 1) + Math.floor(nodes / NODES_PER_STEP);
    for (const insertion of texts) insertion.text = insertion.text.replaceAll(WEIGHT_PLACEHOLDER, String(weight)).replaceAll(STEPS_PLACEHOLDER, String(steps));
  }
  return insertions;

  /**
   * A write to `o[k]` or `o.length` (docs/contracts.md §13): `__chainsim_member(o, k).value`, through which
   * an array's new length is charged before V8 reserves it. Insertions and token swaps only: `[` and `.`
   * become `,`, and `]` or the name `length` close the call.
   */
  function memberWrite(node: AnyNode, around: number, inside: number, strict: boolean): void {
    const object = node.object as AnyNode;
    const property = node.property as AnyNode;
    if (object.type === "Super") refuse(source, node.start, "Writing super[…] or super.length is not allowed in contracts: the write could not be metered");
    // `++`/`--` read through `numeric`, which converts the value as V8 would at once (bootstrap.ts Member); an
    // arithmetic compound assignment hands the Member itself to __chainsim_compound.
    const parent = parents.get(node);
    const accessor = parent?.type === "UpdateExpression" ? ".numeric" : parent?.type === "AssignmentExpression" && arithmeticAssignment(parent.operator as string) ? "" : ".value";
    const close = `${strict ? "" : ",1"})${accessor}`;
    add(node.start, "__chainsim_member(", false, around);
    const opener = operatorAt(source, object.end, property.start, node.computed ? "[" : ".");
    insertions.push({ pos: opener, text: ",", deleteTo: opener + 1, close: false, depth: inside, seq: seq++ });
    if (node.computed) {
      const closer = operatorAt(source, property.end, node.end, "]");
      insertions.push({ pos: closer, text: close, deleteTo: closer + 1, close: true, depth: around, seq: seq++ });
    } else {
      insertions.push({ pos: property.start, text: `${JSON.stringify(property.name)}${close}`, deleteTo: property.end, close: true, depth: around, seq: seq++ });
    }
  }

  /**
   * `o.#p` of an object other than `this`, updated: `__chainsim_with(o,(t)=>` + `body`, so that `o` is
   * evaluated once and the field read and converted in chainsim's hands (`body` uses `t.#p`).
   */
  function privateOfOther(member: AnyNode, body: string, depth: number): void {
    const object = member.object as AnyNode;
    add(member.start, "__chainsim_with(", false, depth);
    const dot = operatorAt(source, object.end, (member.property as AnyNode).start, ".");
    insertions.push({ pos: dot, text: `,(${PRIVATE_TARGET})=>${body}`, deleteTo: member.end, close: true, depth, seq: seq++ });
  }

  /**
   * `catch (e) { caught(e); … }`. A missing binding gets one; a destructuring pattern moves into the block:
   * `catch (__chainsim_e) { caught(__chainsim_e); let PATTERN = __chainsim_e; if (1) { … } }` (insertions only).
   */
  function catchClause(node: AnyNode, key: number): void {
    const param = node.param as AnyNode | null;
    const block = node.body as AnyNode;
    if (!param) {
      add(node.start + "catch".length, ` (${CAUGHT})`, false, key);
      add(block.start + 1, `__chainsim_caught(${CAUGHT});`, false, key);
    } else if (param.type === "Identifier") {
      add(block.start + 1, `__chainsim_caught(${param.name});`, false, key);
    } else {
      add(param.start, `${CAUGHT}) { __chainsim_caught(${CAUGHT}); let `, false, key);
      add(param.end, ` = ${CAUGHT}; if (1`, true, key);
      add(block.end, "}", true, key);
    }
  }
}

/**
 * The text of an update's target that can be read again without effects, so that `t -= y` can become
 * `t = f(t, y)` and the conversion happen in chainsim's hands: a variable, and `this.#p` or `super.p`, which
 * cannot go through __chainsim_member (docs/contracts.md §13). Undefined for any other target.
 */
function readAgain(target: AnyNode): string | undefined {
  if (target.type === "Identifier") return target.name as string;
  if (target.type !== "MemberExpression" || target.computed) return undefined;
  const object = (target.object as AnyNode).type;
  const property = target.property as AnyNode;
  if (object === "ThisExpression" && property.type === "PrivateIdentifier") return `this.#${property.name}`;
  if (object === "Super" && property.type === "Identifier") return `super.${property.name}`;
  return undefined;
}

/** The parameter naming the object whose private field chainsim updates (instrument.ts privateOfOther). */
const PRIVATE_TARGET = "__chainsim_o";

/** `o.#p` where `o` is not `this` (which readAgain reads again): updated through __chainsim_with. */
function isPrivateOfOther(target: AnyNode): boolean {
  return target.type === "MemberExpression" && !target.computed && (target.property as AnyNode).type === "PrivateIdentifier" && (target.object as AnyNode).type !== "ThisExpression";
}

/** Whether a block (a program or a function body) starts with a "use strict" directive. */
function hasUseStrict(block: AnyNode): boolean {
  for (const statement of block.body as AnyNode[]) {
    if (statement.type !== "ExpressionStatement" || typeof statement.directive !== "string") return false;
    if (statement.directive === "use strict") return true;
  }
  return false;
}

/** Whether a member expression is written to: by an assignment, `++`/`--`, destructuring or a for-in/of head. */
function isWriteTarget(parent: AnyNode | null, key: string, grandparent: AnyNode | undefined): boolean {
  switch (parent?.type) {
    case "AssignmentExpression":
    case "AssignmentPattern":
    case "ForInStatement":
    case "ForOfStatement":
      return key === "left";
    case "UpdateExpression":
    case "RestElement":
      return key === "argument";
    case "ArrayPattern":
      return key === "elements";
    case "Property":
      return key === "value" && grandparent?.type === "ObjectPattern";
  }
  return false;
}

/**
 * Whether writing to a member expression can lengthen an array or an object's elements: its key can be
 * "length" or an index of SMALL_INDEX or more. Smaller literal indices make V8 reserve at most a few dozen
 * slots, which the static weight of a store covers.
 */
const SMALL_INDEX = 8;
/**
 * Whether a property written must be seen by __chainsim_member (docs/contracts.md §13), beyond one that may
 * grow an object (mayGrow): read and made a number (`o.p++`, `o[k] -= y`, a long string charged); an
 * element written with a value that is not a literal, or by destructuring or a for-in/of head (`t[0] = s`: a
 * typed array's element makes a number of it); a function's `prototype` (the prototype chains of the objects
 * it will construct are checked). Not `super.p` or `o.#p`, which cannot go through it.
 */
function mustSeeWrite(node: AnyNode, parent: AnyNode | null | undefined): boolean {
  const property = node.property as AnyNode;
  if (!throughMember(node)) return false;
  if (!node.computed && property.type === "Identifier" && property.name === "prototype") return true;
  if (parent?.type === "UpdateExpression") return true;
  if (parent?.type !== "AssignmentExpression") return node.computed === true; // a pattern or a for-in/of head
  if (arithmeticAssignment(parent.operator as string) !== undefined) return true;
  return parent.operator === "=" && node.computed === true && (parent.right as AnyNode).type !== "Literal";
}

/** Whether a property can be read and written through __chainsim_member: not `super.p` or `o.#p`. */
function throughMember(node: AnyNode): boolean {
  return (node.object as AnyNode).type !== "Super" && (node.property as AnyNode).type !== "PrivateIdentifier";
}

/** `__proto__: value` in an object literal sets the new object's prototype (a computed or shorthand one does not). */
function isProtoSetter(property: AnyNode): boolean {
  const key = property.key as AnyNode;
  return property.kind === "init" && !property.method && !property.shorthand && (key.type === "Identifier" ? key.name === "__proto__" : key.value === "__proto__");
}

function mayGrow(node: AnyNode): boolean {
  const property = node.property as AnyNode;
  if (!node.computed) return property.type === "Identifier" && property.name === "length";
  if (property.type !== "Literal") return true;
  const key = property.value;
  if (key === "length") return true;
  const index = typeof key === "number" ? key : typeof key === "string" && String(Number(key)) === key ? Number(key) : -1;
  return Number.isInteger(index) && index >= SMALL_INDEX;
}

/** Names a binding pattern declares (at least one slot, as for a plain name). */
function bindingCount(pattern: AnyNode): number {
  let names = 0;
  const pending: AnyNode[] = [pattern];
  while (pending.length > 0) {
    const node = pending.pop()!;
    switch (node.type) {
      case "Identifier":
        names++;
        break;
      case "ObjectPattern":
        for (const property of node.properties as AnyNode[]) pending.push(property.type === "RestElement" ? property : (property.value as AnyNode));
        break;
      case "ArrayPattern":
        for (const element of node.elements as (AnyNode | null)[]) if (element) pending.push(element);
        break;
      case "AssignmentPattern":
        pending.push(node.left as AnyNode);
        break;
      case "RestElement":
        pending.push(node.argument as AnyNode);
        break;
    }
  }
  return Math.max(1, names);
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
  for (const { pos, text, deleteTo } of insertions) {
    if (pos > last) parts.push(source.slice(last, pos));
    parts.push(text);
    last = Math.max(last, deleteTo ?? pos);
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

/** Where metered texts the memory cache lost are found again (MeteredStore), if this process has one. */
let store: MeteredStore | undefined;

/** This instrumenter's build: its own compiled code and acorn's version decide what a source meters to. */
export const JS_INSTRUMENTER_BUILD = instrumenterBuild([import.meta.url], ["acorn"]);

/** Gives instrumentCached a store on disk behind its memory cache (the contract worker, at start-up). */
export function useMeteredStore(metered: MeteredStore): void {
  store = metered;
}

/**
 * instrument() behind a bounded LRU cache keyed by the sha256 of the source, and the MeteredStore if one is
 * in use. The size limit is checked on every call (limits may differ between calls); refusals are not
 * cached. `onMiss` is told before instrumenting starts.
 */
export function instrumentCached(source: string, limits: { codeBytes: number }, onMiss?: () => void): string {
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
  let result = store?.get(key);
  if (result === undefined) {
    onMiss?.();
    result = instrument(source, limits);
    store?.put(key, result);
  }
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
