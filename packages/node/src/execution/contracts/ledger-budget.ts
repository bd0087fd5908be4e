// What contracts cost a ledger beyond their steps (docs/contracts.md §13, "Steps per ledger"): the executor
// stops a ledger at LEDGER_STEP_BUDGETS, and a transaction's contracts (engine.ts) may not prepare more than
// that on their own.

/**
 * What starting a run costs on top of its steps: a fresh isolate with chainsim's bootstrap (about 5 ms). A
 * nested run pays it in the transaction's steps, a user's run against the ledger's (engine.ts). Charged as
 * 100 steps, a budget of nested calls reached the clock; uncharged, a user's transaction of 100 operations
 * calling a 25 KB contract took 3 s (reviews of 2026-11-27).
 */
export const RUN_STEPS = 400;

/**
 * Contract steps one ledger may spend, in transactions' budgets (docs/contracts.md §13, "Steps per ledger"):
 * the primary stops adding transactions once its ledger has spent this many, and a backup refuses a value
 * that goes on past them. Every backup runs every transaction of a value before it votes: fifty full-budget
 * transactions (the least a proposal holds) were 5 s of execution on each validator against a 2 s view
 * timeout, and the network changed view for 50 s (twenty-third review of 2026-11-26).
 */
export const LEDGER_STEP_BUDGETS = 4;

/** The contract steps a ledger may spend, for a network whose transactions have `steps` each. */
export function ledgerStepBudget(steps: number): number {
  return LEDGER_STEP_BUDGETS * steps;
}
/**
 * A contract deployed costs the ledger's budget (not the transaction's) a step per this many bytes of its
 * source: instrumenting it takes 1-4 ms a KB, and fifty deployments of 250 KB, cheap in steps, made a ledger
 * of a minute (review of 2026-11-27). A 256 KiB contract counts 32,768 steps: one or two fit a ledger, one a
 * transaction (engine.ts `prepare`).
 */
export const DEPLOYED_BYTES_PER_STEP = 8;
/**
 * A run costs a step per this many bytes of its contract's source, for V8's compilation of it in the run's
 * isolate: a nested run in the transaction's steps, a user's run against the ledger's. Transactions of a step
 * each, calling a contract of 250 KB, were seconds of compiling a ledger (review of 2026-11-27).
 */
export const COMPILED_BYTES_PER_STEP = 64;
/**
 * A wasm module deployed costs the ledger's budget a step per this many characters of its base64 payload:
 * checking and metering a module takes about 2 µs a byte (a Go module of 1.9 MB, 3-5 s). A 4 MiB module
 * (5.6 M characters) counts about 35,000 steps, one a ledger (docs/wasm-abi.md §1).
 */
export const WASM_DEPLOYED_CHARS_PER_STEP = 160;
