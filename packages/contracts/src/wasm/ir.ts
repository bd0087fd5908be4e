// Walking binaryen's IR of a contract module: the children of each kind of expression, read and replaced.
// Only the expressions of the wasm features contracts may use (docs/wasm-abi.md §1) are known; a module
// holding any other is refused before instrumenting (instrument.ts).
import b from "binaryen";

type Expr = number;
type Setter = (expression: Expr, child: Expr) => void;

/** binaryen.js has these per-expression getters and setters; its typings do not declare them. */
type Accessors = Record<string, (expression: Expr, ...args: number[]) => number>;
const api = b as unknown as Record<string, Accessors>;

/** Per expression id: each single child as [field of getExpressionInfo, its setter]. */
const SINGLE: Record<number, [string, Setter][]> = {
  [b.IfId]: [["condition", api.If.setCondition], ["ifTrue", api.If.setIfTrue], ["ifFalse", api.If.setIfFalse]],
  [b.LoopId]: [["body", api.Loop.setBody]],
  [b.BreakId]: [["condition", api.Break.setCondition], ["value", api.Break.setValue]],
  [b.SwitchId]: [["condition", api.Switch.setCondition], ["value", api.Switch.setValue]],
  [b.CallIndirectId]: [["target", api.CallIndirect.setTarget]],
  [b.LocalSetId]: [["value", api.LocalSet.setValue]],
  [b.GlobalSetId]: [["value", api.GlobalSet.setValue]],
  [b.LoadId]: [["ptr", api.Load.setPtr]],
  [b.StoreId]: [["ptr", api.Store.setPtr], ["value", api.Store.setValue]],
  [b.UnaryId]: [["value", api.Unary.setValue]],
  [b.BinaryId]: [["left", api.Binary.setLeft], ["right", api.Binary.setRight]],
  [b.SelectId]: [["ifTrue", api.Select.setIfTrue], ["ifFalse", api.Select.setIfFalse], ["condition", api.Select.setCondition]],
  [b.DropId]: [["value", api.Drop.setValue]],
  [b.ReturnId]: [["value", api.Return.setValue]],
  [b.MemoryGrowId]: [["delta", api.MemoryGrow.setDelta]],
  [b.MemoryCopyId]: [["dest", api.MemoryCopy.setDest], ["source", api.MemoryCopy.setSource], ["size", api.MemoryCopy.setSize]],
  [b.MemoryFillId]: [["dest", api.MemoryFill.setDest], ["value", api.MemoryFill.setValue], ["size", api.MemoryFill.setSize]],
  [b.MemoryInitId]: [["dest", api.MemoryInit.setDest], ["offset", api.MemoryInit.setOffset], ["size", api.MemoryInit.setSize]],
};
/** Per expression id: the field holding a list of children, and the setter of one of them. */
const LISTS: Record<number, [string, (expression: Expr, index: number, child: Expr) => void]> = {
  [b.BlockId]: ["children", api.Block.setChildAt],
  [b.CallId]: ["operands", api.Call.setOperandAt],
  [b.CallIndirectId]: ["operands", api.CallIndirect.setOperandAt],
};
/** Expressions without children. */
const LEAVES = new Set([b.ConstId, b.LocalGetId, b.GlobalGetId, b.NopId, b.UnreachableId, b.MemorySizeId, b.DataDropId]);

/** Whether this walker knows the expression's kind (and so every child it has). */
export function isKnown(id: number): boolean {
  return LEAVES.has(id) || id in SINGLE || id in LISTS;
}

/** The children of `expression`, in evaluation order. */
export function children(expression: Expr, id = b.getExpressionId(expression)): Expr[] {
  if (LEAVES.has(id)) return [];
  const info = b.getExpressionInfo(expression) as unknown as Record<string, unknown>;
  const out: Expr[] = [];
  // A call_indirect evaluates its operands before its target.
  if (id in LISTS) out.push(...((info[LISTS[id]![0]] as Expr[]) ?? []));
  for (const [field] of SINGLE[id] ?? []) if (info[field]) out.push(info[field] as Expr);
  return out;
}

/**
 * Replaces each child `c` of `expression` by `map(c)` where that differs. `map` sees the children in
 * evaluation order.
 */
export function mapChildren(expression: Expr, map: (child: Expr) => Expr, id = b.getExpressionId(expression)): void {
  if (LEAVES.has(id)) return;
  const info = b.getExpressionInfo(expression) as unknown as Record<string, unknown>;
  const list = LISTS[id];
  if (list) {
    const items = (info[list[0]] as Expr[]) ?? [];
    items.forEach((child, index) => {
      const mapped = map(child);
      if (mapped !== child) list[1](expression, index, mapped);
    });
  }
  for (const [field, set] of SINGLE[id] ?? []) {
    const child = info[field] as Expr | undefined;
    if (!child) continue;
    const mapped = map(child);
    if (mapped !== child) set(expression, mapped);
  }
}

/** Every expression of a function body, parents before children. */
export function* expressions(root: Expr): Generator<Expr> {
  const stack = [root];
  while (stack.length > 0) {
    const expression = stack.pop()!;
    yield expression;
    stack.push(...children(expression));
  }
}

/** binaryen.js's per-expression namespaces (`If.getIfTrue`, `Block.insertChildAt`, `Store.setValue`...). */
export const ir = api as Record<"If" | "Loop" | "Block" | "Return" | "Store" | "Unary" | "Binary" | "Function" | "MemoryCopy" | "MemoryFill" | "MemoryInit" | "MemoryGrow", Accessors>;
