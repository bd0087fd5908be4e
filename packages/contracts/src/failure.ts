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

export const CONTRACT_EXECUTE_FAIL = 151;
export const CONTRACT_SYNTAX_ERROR = 152;
export const CONTRACT_TOO_MANY_RECURSION = 153;
export const CONTRACT_TOO_MANY_TRANSACTIONS = 154;
export const CONTRACT_LIMIT_EXCEEDED = 155;

/** Truncates to at most `max` UTF-8 bytes without splitting a character. */
export function truncateUtf8(text: string, max = 256): string {
  const encoded = new TextEncoder().encode(text);
  if (encoded.length <= max) return text;
  let cut = max;
  while (cut > 0 && (encoded[cut] & 0xc0) === 0x80) cut--;
  return new TextDecoder().decode(encoded.subarray(0, cut));
}
