import { readFileSync } from "node:fs";
import type { Express } from "express";
import { parse } from "yaml";
import { sendJson } from "../app.js";

/** docs/openapi.yaml, copied beside the compiled routes at build time (packages/node/scripts/copy-openapi.mjs). */
const SPEC_FILE = new URL("../openapi.yaml", import.meta.url);

/**
 * GET /openapi.json: the API contract (docs/api.md), parsed once when the routes are mounted; integers as
 * bigints, so the int64 bounds in it are written exactly.
 */
export function mountOpenApiRoute(app: Express): void {
  const spec: unknown = parse(readFileSync(SPEC_FILE, "utf8"), { intAsBigInt: true });
  app.get("/openapi.json", (_req, res) => sendJson(res, spec));
}
