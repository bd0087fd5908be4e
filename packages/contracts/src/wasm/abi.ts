// What a contract module may import and must export, and how actions are named (docs/wasm-abi.md).

/**
 * A function type written as parameter letters, `>`, result letters: `i` is i32, `I` is i64. The host
 * interface of docs/wasm-abi.md §3.
 */
export const ENV_IMPORTS: Record<string, string> = {
  call: "iiii>i",
  result: "i>",
};

/** The WASI functions the engine answers (docs/wasm-abi.md §6), with their preview1 types. */
export const WASI_IMPORTS: Record<string, string> = {
  args_get: "ii>i",
  args_sizes_get: "ii>i",
  environ_get: "ii>i",
  environ_sizes_get: "ii>i",
  clock_res_get: "ii>i",
  clock_time_get: "iIi>i",
  random_get: "ii>i",
  fd_write: "iiii>i",
  proc_exit: "i>",
  sched_yield: ">i",
  fd_prestat_get: "ii>i",
  fd_prestat_dir_name: "iii>i",
  poll_oneoff: "iiii>i",
  fd_close: "i>i",
  fd_seek: "iIii>i",
  fd_read: "iiii>i",
  fd_fdstat_get: "ii>i",
  fd_fdstat_set_flags: "ii>i",
  fd_filestat_get: "ii>i",
  path_open: "iiiiiIIii>i",
  path_filestat_get: "iiiii>i",
};

export const IMPORT_MODULES: Record<string, Record<string, string>> = { env: ENV_IMPORTS, wasi_snapshot_preview1: WASI_IMPORTS };

/** Exports the engine looks for; `apply` is required, `_initialize` optional (docs/wasm-abi.md §1-§2). */
export const APPLY_TYPE = "III>";
export const INITIALIZE_TYPE = ">";

/** The entry point as `apply`'s `code` (docs/wasm-abi.md §2). */
export const ENTRY_CODES = { init: 0, main: 1, query: 2 } as const;

/** Names of what the instrumenter adds: exported globals a contract's own code never sees. */
export const GAS_EXPORT = "__chainsim_gas";
export const STACK_EXPORT = "__chainsim_stack";
export const STACK_PEAK_EXPORT = "__chainsim_stack_peak";
/** Set when a memory.grow failed: a trap after it is the memory limit's. */
export const GROW_FAILED_EXPORT = "__chainsim_grow_failed";
export const RESERVED_EXPORT_PREFIX = "__chainsim_";

const NAME_CHARS = ".12345abcdefghijklmnopqrstuvwxyz";

/**
 * An action name as 64 bits (docs/wasm-abi.md §4): 5 bits for each of the first 12 characters from the top,
 * 4 for a thirteenth. Undefined for text that is no name.
 */
export function stringToName(text: string): bigint | undefined {
  if (text.length === 0 || text.length > 13) return undefined;
  let name = 0n;
  for (let i = 0; i < text.length; i++) {
    const value = NAME_CHARS.indexOf(text[i]!);
    if (value < 0) return undefined;
    if (i < 12) name |= BigInt(value) << BigInt(64 - 5 * (i + 1));
    else if (value > 15) return undefined;
    else name |= BigInt(value);
  }
  return name;
}
