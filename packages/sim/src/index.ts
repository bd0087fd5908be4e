export * from "./invariants/checker.js";
export type * from "./invariants/history.js";
