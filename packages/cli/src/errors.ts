/**
 * An expected failure: what went wrong, what the user can do about it, and optional details (such as the
 * tail of a validator log). bin.ts prints it as `chainsim: <problem>. <hint>` without a stack trace.
 */
export class CliError extends Error {
  readonly hint: string;
  readonly details: string | undefined;
  /** 1 for failures, 2 for usage mistakes (unknown command or option). */
  readonly exitCode: number;

  constructor(problem: string, hint: string, options: { details?: string; exitCode?: number } = {}) {
    super(problem);
    this.name = "CliError";
    this.hint = hint;
    this.details = options.details;
    this.exitCode = options.exitCode ?? 1;
    // Where the error surfaces as a stack (a test's report), the details come along (bin.ts prints them apart).
    if (options.details) this.stack = `${this.stack}\n${options.details}`;
  }
}
