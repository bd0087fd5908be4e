import { createServer } from "node:net";
import { CliError } from "./errors.js";
import { HOST } from "./network-config.js";

/** Resolves true when nothing listens on HOST:port (we could bind it ourselves). */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen({ port, host: HOST, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** Fails on the first port in use, naming it and what needed it, before any validator starts. */
export async function assertPortsFree(ports: { port: number; use: string }[]): Promise<void> {
  for (const { port, use } of ports) {
    if (!(await isPortFree(port))) {
      throw new CliError(
        `port ${port} (${use}) is already in use on ${HOST}`,
        "Stop what listens there (another network? try `chainsim down`), or choose other ports with --port-base N",
      );
    }
  }
}
