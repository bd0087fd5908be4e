/** The node answered with a non-zero `error_code` (compat.md §7 lists the codes). */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly desc: string,
  ) {
    super(`error_code ${code}${desc ? `: ${desc}` : ""}`);
    this.name = "ApiError";
  }
}

/**
 * No usable answer: the request failed, timed out, got a non-2xx status, or a body that is not JSON.
 * Every documented route answers 200, so clients of this API treat all of these as transport failures.
 */
export class NetworkError extends Error {
  constructor(
    readonly url: string,
    reason: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(`${url}: ${reason}`, options);
    this.name = "NetworkError";
  }
}

/** waitForTransaction gave up: no record of the transaction appeared in time. */
export class TransactionTimeoutError extends Error {
  constructor(
    readonly hash: string,
    readonly timeoutMs: number,
  ) {
    super(`transaction ${hash} was not found within ${timeoutMs} ms`);
    this.name = "TransactionTimeoutError";
  }
}

/** A body with an `error_code` (most routes; hello and submitTransaction's top level have none). */
export interface ErrorEnvelope {
  error_code?: number;
  error_desc?: string;
}

/** The body once `expectOk` has passed it: a `result` it carries is no longer null. */
export type Ok<B> = B extends { result: infer R } ? Omit<B, "result"> & { result: NonNullable<R> } : B;

/** Returns the body unchanged when its error_code is absent or 0; otherwise throws ApiError. */
export function expectOk<B extends ErrorEnvelope>(body: B): Ok<B> {
  if (body.error_code !== undefined && body.error_code !== 0) throw new ApiError(body.error_code, body.error_desc ?? "");
  return body as Ok<B>;
}
