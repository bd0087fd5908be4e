import express, { type NextFunction, type Request, type Response } from "express";
import { ChainError, ErrorCode, stringifyJson } from "@chainsim/protocol";
import { keyOfLargest } from "../collections.js";
import type { JsonBodyParser } from "./json-body.js";
import { AbandonedWork } from "../work-queue.js";
import type { LimitsConfig } from "../config.js";

/** Requests longer than this count as expired in getModulesStatus. */
const EXPIRE_MS = 30_000;

/** The request body limits of a validator (docs/operations.md, "Limits"). */
export type BodyLimits = Pick<LimitsConfig, "http_body_bytes" | "http_bodies_in_flight_bytes">;

/** `bytes` as "16 MiB" where it is a whole number of MiB, else as bytes. */
function sizeText(bytes: number): string {
  return bytes % 2 ** 20 === 0 ? `${bytes / 2 ** 20} MiB` : `${bytes} bytes`;
}

/** At most 200 characters of a text a client may have chosen, for an answer. */
function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * Express holds a body whole until it ends: 150 connections that each sent 16 MB but the last byte held
 * 2.6 GB. So bodies received and not yet answered are counted, in bytes received (never bytes declared:
 * reserving what a request declared let four idle connections refuse every POST), and past
 * `limit` bytes the request holding the most is answered 114 and its connection closed
 * (docs/api.md, "Large request bodies"; review of 2026-11-27).
 */
class BodiesInFlight {
  private total = 0;
  private readonly held = new Map<Response, number>();

  constructor(private readonly limit: number) {}

  track(req: Request, res: Response): void {
    this.held.set(res, 0);
    // Listened to beside the body parser's own listener, attached in the same tick (no chunk is missed).
    req.on("data", (chunk: Buffer) => {
      const bytes = this.held.get(res);
      if (bytes === undefined) return;
      this.held.set(res, bytes + chunk.length);
      this.total += chunk.length;
      while (this.total > this.limit) this.dropLargest();
    });
    res.once("close", () => this.release(res));
  }

  private release(res: Response): void {
    this.total -= this.held.get(res) ?? 0;
    this.held.delete(res);
  }

  private dropLargest(): void {
    const res = keyOfLargest(this.held)!;
    this.release(res);
    if (res.headersSent) return void res.destroy();
    res.set("Connection", "close");
    res.once("finish", () => res.req.socket.destroy());
    sendJson(res, { error_code: ErrorCode.TX_POOL_FULL, error_desc: `this validator is receiving ${sizeText(this.limit)} of request bodies (limits.http_bodies_in_flight_bytes), this one the largest: retry later`, result: null });
  }
}

export interface WebServerStats {
  start_request_count: number;
  end_request_count: number;
  expire_request_count: number;
}

/** Writes a body as JSON, int64 values as exact numbers. HTTP 200 unless told otherwise. */
export function sendJson(res: Response, body: unknown, status = 200): void {
  res.status(status).type("application/json").send(stringifyJson(body));
}

/** Fires when the connection of `res` closes before its answer was sent: the client went away. */
export function clientGone(res: Response): AbortSignal {
  const controller = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** One query value; clients do not URL-encode, and a repeated key keeps its first value. */
export function query(req: Request, name: string): string | undefined {
  const value = (req.query as Record<string, unknown>)[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === "string" ? first : undefined;
}

export type Handler = (req: Request, res: Response) => Promise<void> | void;

/**
 * The express app around the routes: JSON bodies parsed without losing int64 precision (large ones off the
 * event loop, by `bodies`), every error as
 * HTTP 200 with error_code/error_desc (clients treat other statuses as network failures), 413 for an
 * oversized body, a JSON 404 for unknown paths, and request counters; `track` sees every request first
 * (the node's metrics: docs/operations.md, "Metrics").
 */
export function createApp(
  mount: (app: express.Express) => void,
  stats: WebServerStats,
  bodies: JsonBodyParser,
  limits: BodyLimits,
  log: (line: string) => void,
  track?: (req: Request, res: Response) => void,
): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false); // a 304 would break clients that expect 200 and a body from every route
  app.set("query parser", "simple");
  app.use((req, res, next) => {
    track?.(req, res);
    const started = Date.now();
    stats.start_request_count++;
    res.on("finish", () => {
      stats.end_request_count++;
      if (Date.now() - started > EXPIRE_MS) stats.expire_request_count++;
    });
    next();
  });
  const inFlight = new BodiesInFlight(limits.http_bodies_in_flight_bytes);
  app.use((req, res, next) => {
    if (req.method === "POST") inFlight.track(req, res);
    next();
  });
  // Bodies are taken as sent, never inflated: BodiesInFlight counts bytes received, and 15 KB of gzip held
  // 15 MiB each (review of 2026-11-27). A Content-Encoding other than identity is refused (error 2).
  app.use(express.text({ type: () => true, limit: limits.http_body_bytes, inflate: false }));
  app.use(async (req, res, next) => {
    // A body dropped for its size while it was read (BodiesInFlight) was answered already: nothing runs.
    if (res.headersSent) return;
    const domain = query(req, "domainid") ?? query(req, "domain_id");
    if (domain !== undefined && domain !== "0") throw new ChainError(ErrorCode.DOMAIN_NOT_EXIST, `domain ${domain} does not exist`);
    if (req.method === "POST") {
      const text = typeof req.body === "string" ? req.body : "";
      try {
        req.body = text.trim() === "" ? {} : await bodies.parse(text);
      } catch (error) {
        if (error instanceof ChainError) throw error;
        throw new ChainError(ErrorCode.INVALID_PARAMETER, `the request body is not valid JSON: ${(error as Error).message}`);
      }
      // Every route reads fields of an object: `null`, an array or a number would fail as an internal error.
      if (req.body === null || typeof req.body !== "object" || Array.isArray(req.body)) {
        throw new ChainError(ErrorCode.INVALID_PARAMETER, "the request body should be a JSON object");
      }
    }
    next();
  });
  mount(app);
  app.use((req, res) => sendJson(res, { error_code: ErrorCode.NOT_EXIST, error_desc: `no route ${req.method} ${req.path}` }, 404));
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const e = error as { type?: string; status?: number; message?: string };
    if (e.type === "request.aborted" || error instanceof AbandonedWork) {
      // The client went away before its body ended, or before its work's turn: nobody to answer, nothing to log.
      res.destroy();
    } else if (res.headersSent) {
      // Answered already (a body dropped by BodiesInFlight): a second answer would throw here.
      if (!(error instanceof ChainError) && e.type === undefined) log(`internal error on ${req.method} ${req.path} after its answer: ${(error as Error)?.stack ?? error}`);
      res.destroy();
    } else if (e.type === "entity.too.large") {
      sendJson(res, { error_code: ErrorCode.INVALID_PARAMETER, error_desc: `request body is larger than ${sizeText(limits.http_body_bytes)} (limits.http_body_bytes)` }, 413);
    } else if (error instanceof ChainError) {
      sendJson(res, { error_code: error.code, error_desc: error.message, result: null });
    } else if (e.type !== undefined && e.status !== undefined && e.status < 500) {
      // The body parser refused the request (an unknown charset, a Content-Encoding, a bad length): the
      // client's mistake, answered like any bad input and not logged. Its text may be the client's: cut it.
      sendJson(res, { error_code: ErrorCode.INVALID_PARAMETER, error_desc: `the request body cannot be read: ${clip(e.message ?? e.type)}`, result: null });
    } else {
      log(`internal error on ${req.method} ${req.path}: ${(error as Error)?.stack ?? error}`);
      sendJson(res, { error_code: ErrorCode.INTERNAL, error_desc: `internal error: ${e.message ?? String(error)}`, result: null });
    }
  });
  return app;
}
