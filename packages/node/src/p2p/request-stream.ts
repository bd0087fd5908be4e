import type { Stream } from "@libp2p/interface";
import { encodeFrame, FrameDecoder, FrameLengthError } from "./frames.js";
import type { Offence } from "./peer-penalties.js";
import type { RequestHandler } from "./peer-network.js";

// One short-lived stream per request: the requester writes one frame (tag 0) and closes its end; the
// responder answers with one frame whose tag is the outcome and closes its end. A timeout resets the
// stream, which the responder sees as the requester having gone.

/**
 * A request (a sync request is a few bytes) must fit this and arrive whole within REQUEST_ARRIVAL_MS: six
 * streams each holding 31 MiB of a request never finished held 200 MB of a validator (review of 2026-11-27).
 */
export const MAX_REQUEST_BYTES = 64 * 1024;
const REQUEST_ARRIVAL_MS = 10_000;
const REQUEST_TAG = 0;
const RESPONSE_OK = 0;
const RESPONSE_FAILED = 1;

/** Sends `payload` on `stream` and resolves with the response body; `signal` aborts with its reason. */
export function exchange(stream: Stream, payload: Uint8Array, signal: AbortSignal): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const decoder = new FrameDecoder();
    const settle = (error: Error | undefined, body?: Uint8Array) => {
      signal.removeEventListener("abort", onAbort);
      if (error) {
        if (stream.status === "open") stream.abort(error);
        reject(error);
      } else {
        resolve(body!);
      }
    };
    const onAbort = () => settle(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
    stream.addEventListener("message", (event) => {
      try {
        const [response] = decoder.push(event.data.subarray());
        if (!response) return;
        if (response.tag === RESPONSE_OK) settle(undefined, response.body);
        else settle(new Error(`the peer's request handler failed: ${new TextDecoder().decode(response.body)}`));
      } catch (error) {
        settle(error as Error);
      }
    });
    stream.addEventListener("close", (event) => settle(event.error ?? new Error("the peer closed the request stream without answering")), { once: true });
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    stream.send(encodeFrame(REQUEST_TAG, payload));
    stream.close().catch((error: unknown) => settle(error as Error));
  });
}

/**
 * Reads one request from `stream`, runs `handler` and writes its answer (or its failure) back. A request
 * that is oversized, does not frame, or does not arrive whole in time ends the stream and is an offence of
 * the peer (`penalize`; docs/networks.md, "Hostile peers").
 */
export function answer(stream: Stream, from: string, handler: RequestHandler | undefined, penalize: (offence: Offence) => void): void {
  const decoder = new FrameDecoder(MAX_REQUEST_BYTES);
  let answered = false;
  let failed = false;
  const fail = (error: Error, offence: Offence) => {
    clearTimeout(deadline);
    if (failed) return;
    failed = true;
    if (stream.status === "open") stream.abort(error);
    penalize(offence);
  };
  const deadline = setTimeout(() => fail(new Error(`no whole request within ${REQUEST_ARRIVAL_MS} ms`), "truncated"), REQUEST_ARRIVAL_MS);
  stream.addEventListener("close", () => {
    if (!answered) fail(new Error("the request stream ended before a whole request"), "truncated");
  }, { once: true });
  stream.addEventListener("message", (event) => {
    let request;
    try {
      [request] = decoder.push(event.data.subarray());
    } catch (error) {
      fail(error as Error, error instanceof FrameLengthError ? "oversized" : "garbage");
      return;
    }
    if (!request || answered || failed) return;
    answered = true;
    clearTimeout(deadline);
    const body = request.body;
    void respond(stream, (async () => {
      if (!handler) throw new Error("this node serves no requests");
      return handler(from, body);
    })());
  });
}

async function respond(stream: Stream, response: Promise<Uint8Array>): Promise<void> {
  let frame: Uint8Array;
  try {
    frame = encodeFrame(RESPONSE_OK, await response);
  } catch (error) {
    frame = encodeFrame(RESPONSE_FAILED, new TextEncoder().encode(error instanceof Error ? error.message : String(error)));
  }
  // the requester may have timed out and reset the stream meanwhile
  if (stream.status !== "open" || stream.writeStatus !== "writable") return;
  stream.send(frame);
  await stream.close().catch((error: unknown) => stream.abort(error as Error));
}
