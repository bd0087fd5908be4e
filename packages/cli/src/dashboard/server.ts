/**
 * The dashboard's HTTP server (node:http): the page and its two assets from packages/cli/dashboard/, and
 * `GET /api/state`, the monitor's latest reading with its history, which the page polls every second.
 */
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { NetworkMonitor, type NodeRef } from "./monitor.js";

// tsc copies only .ts files to dist, so the assets stay in the package root and are resolved from
// dist/src/dashboard/ (three levels up).
const ASSET_DIR = fileURLToPath(new URL("../../../dashboard/", import.meta.url));
const ASSETS: Record<string, { file: string; type: string }> = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "/style.css": { file: "style.css", type: "text/css; charset=utf-8" },
};

export interface DashboardServer {
  url: string;
  monitor: NetworkMonitor;
  close(): Promise<void>;
}

export interface DashboardOptions {
  nodes: NodeRef[];
  port: number;
  host: string;
  pollMs?: number;
}

/** Reads the nodes once, then serves the page while polling; resolves once the server listens. */
export async function startDashboard(options: DashboardOptions): Promise<DashboardServer> {
  const monitor = new NetworkMonitor(options.nodes, options.pollMs);
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (req.method !== "GET") return void res.writeHead(405).end();
    if (path === "/api/state") {
      res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
      return void res.end(JSON.stringify(monitor.state()));
    }
    const asset = ASSETS[path];
    if (!asset) return void res.writeHead(404, { "content-type": "text/plain" }).end(`no page ${path}\n`);
    readFile(ASSET_DIR + asset.file).then(
      (body) => res.writeHead(200, { "content-type": asset.type, "cache-control": "no-cache" }).end(body),
      (error: Error) => res.writeHead(500, { "content-type": "text/plain" }).end(`dashboard asset missing: ${error.message}\n`),
    );
  });
  await monitor.start();
  await listen(server, options.port, options.host).catch((error) => {
    monitor.stop();
    throw error;
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}/`,
    monitor,
    close: async () => {
      monitor.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}
