// Walking binaryen's IR of a contract module: the children of each kind of expression, read and replaced.
// Only the expressions of the wasm features contracts may use (docs/wasm-abi.md §1) are known; a module
// holding any other is refused before instrumenting (instrument.ts).
import b from "binaryen";

type Expr = number;
type Setter = (expression: Expr, child: Expr) => void;

/** binaryen.js has these per-expression getters and setters; its typings do not declare them. */
type Accessors = Record<string, (expression: Expr, ...args: number[]) => number>;
const api = b as unknown as Record<string, Accessors>;

/** Per expression id: each single child as the namespace and name of its getter (`get<Name>`) and setter (`set<Name>`). */
const SINGLE: Record<number, [string, string][]> = {
  [b.IfId]: [["If", "Condition"], ["If", "IfTrue"], ["If", "IfFalse"]],
  [b.LoopId]: [["Loop", "Body"]],
  [b.BreakId]: [["Break", "Condition"], ["Break", "Value"]],
  [b.SwitchId]: [["Switch", "Condition"], ["Switch", "Value"]],
  [b.CallIndirectId]: [["CallIndirect", "Target"]],
  [b.LocalSetId]: [["LocalSet", "Value"]],
  [b.GlobalSetId]: [["GlobalSet", "Value"]],
  [b.LoadId]: [["Load", "Ptr"]],
  [b.StoreId]: [["Store", "Ptr"], ["Store", "Value"]],
  [b.UnaryId]: [["Unary", "Value"]],
  [b.BinaryId]: [["Binary", "Left"], ["Binary", "Right"]],
  [b.SelectId]: [["Select", "IfTrue"], ["Select", "IfFalse"], ["Select", "Condition"]],
  [b.DropId]: [["Drop", "Value"]],
  [b.ReturnId]: [["Return", "Value"]],
  [b.MemoryGrowId]: [["MemoryGrow", "Delta"]],
  [b.MemoryCopyId]: [["MemoryCopy", "Dest"], ["MemoryCopy", "Source"], ["MemoryCopy", "Size"]],
  [b.MemoryFillId]: [["MemoryFill", "Dest"], ["MemoryFill", "Value"], ["MemoryFill", "Size"]],
  [b.MemoryInitId]: [["MemoryInit", "Dest"], ["MemoryInit", "Offset"], ["MemoryInit", "Size"]],
};
/** Per expression id: the namespace holding a list of children, and the list's name (`getNum<List>`, `get<Item>At`, `set<Item>At`). */
const LISTS: Record<number, [string, string, string]> = {
  [b.BlockId]: ["Block", "Children", "Child"],
  [b.CallId]: ["Call", "Operands", "Operand"],
  [b.CallIndirectId]: ["CallIndirect", "Operands", "Operand"],
};
/** Expressions without children. */
const LEAVES = new Set([b.ConstId, b.LocalGetId, b.GlobalGetId, b.NopId, b.UnreachableId, b.MemorySizeId, b.DataDropId]);

// The accessors as functions, looked up once: binaryen's getExpressionInfo reflects over every field and
// made instrumenting a Go module take 18 s instead of a few.
type Single = { get: (e: Expr) => Expr; set: Setter };
const singles = new Map<number, Single[]>(
  Object.entries(SINGLE).map(([id, fields]) => [Number(id), fields.map(([ns, name]) => ({ get: api[ns]![`get${name}`]!, set: api[ns]![`set${name}`]! }))]),
);
type List = { count: (e: Expr) => number; get: (e: Expr, i: number) => Expr; set: (e: Expr, i: number, child: Expr) => void };
const lists = new Map<number, List>(
  Object.entries(LISTS).map(([id, [ns, list, item]]) => [Number(id), { count: api[ns]![`getNum${list}`]!, get: api[ns]![`get${item}At`]!, set: api[ns]![`set${item}At`]! }]),
);

/** Whether this walker knows the expression's kind (and so every child it has). */
export function isKnown(id: number): boolean {
  return LEAVES.has(id) || singles.has(id) || lists.has(id);
}

/** The children of `expression`, in evaluation order. */
export function children(expression: Expr, id = b.getExpressionId(expression)): Expr[] {
  const out: Expr[] = [];
  if (LEAVES.has(id)) return out;
  // A call_indirect evaluates its operands before its target.
  const list = lists.get(id);
  if (list) for (let i = 0, n = list.count(expression); i < n; i++) out.push(list.get(expression, i));
  for (const single of singles.get(id) ?? []) {
    const child = single.get(expression);
    if (child) out.push(child);
  }
  return out;
}

/**
 * Replaces each child `c` of `expression` by `map(c)` where that differs. `map` sees the children in
 * evaluation order.
 */
export function mapChildren(expression: Expr, map: (child: Expr) => Expr, id = b.getExpressionId(expression)): void {
  if (LEAVES.has(id)) return;
  const list = lists.get(id);
  if (list) {
    for (let i = 0, n = list.count(expression); i < n; i++) {
      const child = list.get(expression, i);
      const mapped = map(child);
      if (mapped !== child) list.set(expression, i, mapped);
    }
  }
  for (const single of singles.get(id) ?? []) {
    const child = single.get(expression);
    if (!child) continue;
    const mapped = map(child);
    if (mapped !== child) single.set(expression, mapped);
  }
}

/** Every expression of a function body, parents before children. */
export function* expressions(root: Expr): Generator<Expr> {
  const stack = [root];
  while (stack.length > 0) {
    const expression = stack.pop()!;
    yield expression;
    // One push at a time: spreading a body of 100,000 children into arguments overflows the stack.
    for (const child of children(expression)) stack.push(child);
  }
}

/** binaryen.js's per-expression namespaces (`If.getIfTrue`, `Block.insertChildAt`, `Store.setValue`...). */
export const ir = api as Record<"If" | "Loop" | "Block" | "Return" | "Store" | "Unary" | "Binary" | "Function" | "MemoryCopy" | "MemoryFill" | "MemoryInit" | "MemoryGrow", Accessors>;
