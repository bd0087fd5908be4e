/** JSON over a node's HTTP API with a deadline: a paused node must not hang the scenario. */

export type Json = { [key: string]: any };

/** Any method; a JSON body when `body` is given. Rejects on a timeout, a refused connection or a non-2xx status. */
export async function requestJson(http: string, path: string, options: { method?: string; body?: unknown; timeoutMs?: number } = {}): Promise<Json> {
  const { method = "GET", body, timeoutMs = 2000 } = options;
  const response = await fetch(`${http}${path}`, {
    method,
    headers: body === undefined ? undefined : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return unwrap(response, path);
}

export function getJson(http: string, path: string, timeoutMs = 2000): Promise<Json> {
  return requestJson(http, path, { timeoutMs });
}

export function postJson(http: string, path: string, body: unknown, timeoutMs = 2000): Promise<Json> {
  return requestJson(http, path, { method: "POST", body, timeoutMs });
}

async function unwrap(response: Response, path: string): Promise<Json> {
  if (!response.ok) throw new Error(`${path} answered HTTP ${response.status}`);
  return (await response.json()) as Json;
}

/** A short reason for a failed call: "timeout", "connection refused", or the message. */
export function failure(error: unknown): string {
  if ((error as Error).name === "TimeoutError") return "timeout";
  if ((error as { cause?: { code?: string } }).cause?.code === "ECONNREFUSED") return "connection refused";
  return (error as Error).message;
}
