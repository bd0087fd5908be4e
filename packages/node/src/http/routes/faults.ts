import type { Express } from "express";
import { ChainError, ErrorCode } from "@chainsim/protocol";
import type { FaultPlane } from "../../faults/index.js";
import { query, sendJson } from "../app.js";

/**
 * GET/POST/DELETE /debug/faults (docs/faults.md, "Message faults"). Without a fault plane (the node runs
 * without debug.fault_injection) every method answers error 6, access denied: the route exists but this
 * node's configuration forbids it, which a client should tell apart from a mistyped path (404, error 4).
 */
export function mountFaultRoutes(app: Express, plane: FaultPlane | undefined): void {
  if (!plane) {
    app.all("/debug/faults", (_req, res) =>
      sendJson(res, { error_code: ErrorCode.ACCESS_DENIED, error_desc: "fault injection is off on this node (config debug.fault_injection is false)", result: null }),
    );
    return;
  }
  app.get("/debug/faults", (_req, res) => sendJson(res, { error_code: 0, error_desc: "", result: plane.report() }));
  app.post("/debug/faults", (req, res) => sendJson(res, { error_code: 0, error_desc: "", result: { id: plane.add(req.body) } }));
  app.delete("/debug/faults", (req, res) => {
    const id = query(req, "id");
    if (id === undefined) {
      const removed = plane.active().length;
      plane.clear();
      return sendJson(res, { error_code: 0, error_desc: "", result: { removed } });
    }
    if (!/^\d+$/.test(id)) throw new ChainError(ErrorCode.INVALID_PARAMETER, `id should be a rule id (a whole number), not ${JSON.stringify(id)}`);
    if (!plane.remove(Number(id))) throw new ChainError(ErrorCode.NOT_EXIST, `no active fault rule ${id}`);
    sendJson(res, { error_code: 0, error_desc: "", result: { removed: 1 } });
  });
}
