/**
 * A local web page's HTTP server (node:http), shared by `chainsim dashboard` and the simulation's trace view:
 * the page (index.html) and its scripts and stylesheets from a folder of the package root, and the page's own
 * data routes.
 */
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { CliError } from "./errors.js";

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
};
/** A script or stylesheet at the folder's top: no other path can name a file outside it. */
const ASSET_PATH = /^\/([a-z][a-z0-9-]*\.(?:js|css))$/;

/** The file and content type a path names, if it names an asset. */
function assetOf(path: string): { file: string; type: string } | undefined {
  const file = path === "/" ? "index.html" : ASSET_PATH.exec(path)?.[1];
  return file ? { file, type: TYPES[file.slice(file.lastIndexOf(".") + 1)]! } : undefined;
}

/** What a data route answers, read at each request. */
export interface RouteBody {
  type: string;
  body: string;
}

export interface PageServerOptions {
  /** The assets' folder in packages/cli ("dashboard", "sim-view"). */
  assets: string;
  /** Data routes by path (`/api/state`), answered with no caching. */
  routes: Record<string, () => RouteBody>;
  port: number;
  host: string;
}

export interface PageServer {
  url: string;
  close(): Promise<void>;
}

/** Serves the page and its routes; resolves once the server listens (rejects with listen's error). */
export async function startPageServer(options: PageServerOptions): Promise<PageServer> {
  // tsc copies only .ts files to dist, so the assets stay in the package root and are resolved from
  // dist/src/ (two levels up).
  const assetDir = fileURLToPath(new URL(`../../${options.assets}/`, import.meta.url));
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (req.method !== "GET") return void res.writeHead(405).end();
    const route = Object.hasOwn(options.routes, path) ? options.routes[path] : undefined;
    if (route) {
      const { type, body } = route();
      return void res.writeHead(200, { "content-type": type, "cache-control": "no-store" }).end(body);
    }
    const asset = assetOf(path);
    if (!asset) return void res.writeHead(404, { "content-type": "text/plain" }).end(`no page ${path}\n`);
    readFile(assetDir + asset.file).then(
      (body) => res.writeHead(200, { "content-type": asset.type, "cache-control": "no-cache" }).end(body),
      (error: NodeJS.ErrnoException) =>
        error.code === "ENOENT" && path !== "/"
          ? res.writeHead(404, { "content-type": "text/plain" }).end(`no page ${path}\n`)
          : res.writeHead(500, { "content-type": "text/plain" }).end(`${options.assets} asset missing: ${error.message}\n`),
    );
  });
  await listen(server, options.port, options.host);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}/`,
    close: async () => {
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

/** A page server that cannot listen, as a CliError that says what to do (for `.catch` on starting one). */
export function listenFailure(port: number, host: string): (error: NodeJS.ErrnoException) => never {
  return (error) => {
    if (error.code === "EADDRINUSE") throw new CliError(`port ${port} on ${host} is in use`, "Choose another with --port P (0 picks a free one)");
    if (error.code === "EADDRNOTAVAIL") throw new CliError(`${host} is not an address of this machine`, "Use --host 127.0.0.1");
    if (error.code === "ENOTFOUND" || error.code === "EAI_AGAIN") throw new CliError(`${host} does not resolve to an address (${error.code})`, "Use --host 127.0.0.1");
    throw error;
  };
}
