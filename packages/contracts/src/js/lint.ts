/**
 * The deployment lint of this chain family (contract-runtime.md §2), offered as the network setting
 * `[contracts] lint` (off by default). It refuses constructs the family's lint refuses: a missing
 * `"use strict"`, loose equality, `++`/`--`, `try`, and wrapper constructors. (`eval`, `Function` and
 * `with` are refused by instrumentation whatever the setting.) Only `lint.ts` knows the rules.
 */
import { parseContract } from "./instrument.js";

export interface LintWarning {
  line: number;
  column: number;
  reason: string;
}

/** At most this many warnings are reported: enough to fix a contract, short enough for a record. */
export const MAX_LINT_WARNINGS = 10;

interface AnyNode {
  type: string;
  start: number;
  loc: { start: { line: number; column: number } };
  [key: string]: any;
}

const LITERAL_NOTATION: Record<string, string> = {
  Array: "Use the array literal notation [].",
  Object: "Use the object literal notation {}.",
  Number: "Do not use Number as a constructor.",
  String: "Do not use String as a constructor.",
  Boolean: "Do not use Boolean as a constructor.",
};

function ruleFor(node: AnyNode): string | undefined {
  switch (node.type) {
    case "BinaryExpression":
      if (node.operator === "==") return "Expected '===' and instead saw '=='.";
      if (node.operator === "!=") return "Expected '!==' and instead saw '!='.";
      return undefined;
    case "UpdateExpression":
      return `Unexpected '${node.operator}'.`;
    case "TryStatement":
      return "Unexpected 'try'.";
    case "NewExpression":
      return node.callee.type === "Identifier" ? LITERAL_NOTATION[node.callee.name] : undefined;
  }
  return undefined;
}

/** Lint warnings of a source that parses (syntax errors are instrumentation's to report), in source order. */
export function lintContract(source: string): LintWarning[] {
  const program = parseContract(source, { ecmaVersion: 2022, sourceType: "script", locations: true }) as AnyNode;
  const warnings: LintWarning[] = [];
  const warn = (node: AnyNode, reason: string) => warnings.push({ line: node.loc.start.line, column: node.loc.start.column, reason });
  const first = program.body[0] as AnyNode | undefined;
  if (first?.type !== "ExpressionStatement" || first.directive !== "use strict") warn(first ?? program, "Missing 'use strict' statement.");
  // Iterative walk: deeply nested code must not overflow the host's stack.
  const stack: AnyNode[] = [program];
  while (stack.length > 0 && warnings.length < MAX_LINT_WARNINGS) {
    const node = stack.pop()!;
    const reason = ruleFor(node);
    if (reason) warn(node, reason);
    const children: AnyNode[] = [];
    for (const key of Object.keys(node)) {
      if (key === "loc") continue;
      const value = node[key];
      for (const child of Array.isArray(value) ? value : [value]) {
        if (child && typeof child === "object" && typeof child.type === "string") children.push(child);
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return warnings.sort((a, b) => a.line - b.line || a.column - b.column).slice(0, MAX_LINT_WARNINGS);
}
