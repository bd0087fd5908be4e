// A stand-in node for the client tests: a node:http server on 127.0.0.1 (port 0) that records each
// request and answers with whatever the current test's handler returns.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { stringifyJson } from "@chainsim/protocol";

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** Raw body text, to check exactly what was sent. */
  body: string;
  contentType: string | undefined;
}

/** `json` is written with stringifyJson (bigint as digits); `text` is sent verbatim; `hang` never answers. */
export interface Reply {
  status?: number;
  json?: unknown;
  text?: string;
  hang?: boolean;
}

export type Handler = (request: RecordedRequest) => Reply;

export class MockNode {
  readonly requests: RecordedRequest[] = [];
  handler: Handler = () => ({ status: 404, text: "not found" });

  private constructor(private readonly server: Server) {}

  static async start(): Promise<MockNode> {
    const server = createServer();
    const node = new MockNode(server);
    server.on("request", (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const url = new URL(req.url ?? "/", "http://localhost");
        const recorded: RecordedRequest = {
          method: req.method ?? "",
          path: url.pathname,
          query: url.searchParams,
          body: Buffer.concat(chunks).toString("utf8"),
          contentType: req.headers["content-type"],
        };
        node.requests.push(recorded);
        const reply = node.handler(recorded);
        if (reply.hang) return;
        res.writeHead(reply.status ?? 200, { "content-type": "application/json" });
        res.end(reply.text ?? stringifyJson(reply.json ?? null));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return node;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  reset(handler: Handler): void {
    this.requests.length = 0;
    this.handler = handler;
  }

  async close(): Promise<void> {
    // fetch keeps connections alive; close them or server.close() waits for them.
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
