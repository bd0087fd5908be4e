import type { Express } from "express";
import type { NodeMetrics } from "../../metrics/node-metrics.js";

/** GET /metrics: Prometheus text exposition, not the JSON envelope (docs/operations.md, "Metrics"). */
export function mountMetricsRoutes(app: Express, metrics: NodeMetrics): void {
  app.get("/metrics", async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
