/**
 * The dashboard's HTTP server: the page and its assets from packages/cli/dashboard/, and
 * `GET /api/state`, the monitor's latest reading with its history, which the page polls every second.
 */
import { startPageServer } from "../page-server.js";
import { NetworkMonitor, type NodeRef } from "./monitor.js";

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
  await monitor.start();
  const page = await startPageServer({
    assets: "dashboard",
    routes: { "/api/state": () => ({ type: "application/json", body: JSON.stringify(monitor.state()) }) },
    port: options.port,
    host: options.host,
  }).catch((error) => {
    monitor.stop();
    throw error;
  });
  return {
    url: page.url,
    monitor,
    close: async () => {
      monitor.stop();
      await page.close();
    },
  };
}
