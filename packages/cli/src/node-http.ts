/** JSON over a node's HTTP API with a deadline: a paused node must not hang the scenario. */

export type Json = { [key: string]: any };

export async function getJson(http: string, path: string, timeoutMs = 2000): Promise<Json> {
  return unwrap(await fetch(`${http}${path}`, { signal: AbortSignal.timeout(timeoutMs) }), path);
}

export async function postJson(http: string, path: string, body: unknown, timeoutMs = 2000): Promise<Json> {
  const response = await fetch(`${http}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return unwrap(response, path);
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
