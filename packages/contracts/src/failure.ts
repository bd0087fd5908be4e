/** How a contract execution failed, with the code the transaction record gets (compat.md §7). */
export class ContractFailure extends Error {
  constructor(
    readonly code: number,
    /** The thrown value as a string, at most 256 bytes (contract-runtime.md §6). */
    readonly exception: string,
    readonly linenum = 0,
    readonly contractStack = "",
  ) {
    super(exception);
    this.name = "ContractFailure";
  }

  /** The record's error_desc: `{"contract","exception","linenum","stack"}`. */
  describe(contract: string): string {
    return JSON.stringify({ contract, exception: this.exception, linenum: this.linenum, stack: this.contractStack });
  }
}

/**
 * A run ended by a guard instead of a model: the wall clock, V8's own stack or heap limit, or the death of
 * the worker process. Unlike every other failure this depends on the machine (its speed, its load, its
 * memory), so it is never recorded as a transaction's result: the node leaves the transaction out of a
 * ledger it proposes, refuses a proposal whose execution trips one, and retries a decided ledger later
 * (docs/contracts.md §13, "When a guard trips"). A query answers it as any other 155.
 */
export class GuardTripped extends ContractFailure {
  constructor(exception: string) {
    super(CONTRACT_LIMIT_EXCEEDED, exception);
    this.name = "GuardTripped";
  }
}

/** What a limit's message gets when V8 or the worker, not the model, stopped the run. */
export const ENGINE_SUFFIX = " (engine)";
/** The guard trips of the clock, and of V8's heap or a dead worker, as records and queries show them. */
export const TIME_EXPIRED = "Time expired";
/** What a run that spent its transaction's steps ends with (bootstrap.ts says the same inside the isolate). */
export const STEP_LIMIT = "Step exceeding limit";
export const ENGINE_MEMORY_LIMIT = "Memory exceeding limit" + ENGINE_SUFFIX;

export const CONTRACT_EXECUTE_FAIL = 151;
export const CONTRACT_SYNTAX_ERROR = 152;
export const CONTRACT_TOO_MANY_RECURSION = 153;
export const CONTRACT_TOO_MANY_TRANSACTIONS = 154;
export const CONTRACT_LIMIT_EXCEEDED = 155;
export const CONTRACT_INVALID = 156;

/** Truncates to at most `max` UTF-8 bytes without splitting a character. */
export function truncateUtf8(text: string, max = 256): string {
  const encoded = new TextEncoder().encode(text);
  if (encoded.length <= max) return text;
  let cut = max;
  while (cut > 0 && (encoded[cut] & 0xc0) === 0x80) cut--;
  return new TextDecoder().decode(encoded.subarray(0, cut));
}
