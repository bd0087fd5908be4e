import { readFile } from "node:fs/promises";
import { parseJson } from "@chainsim/protocol";
import { parseNodeConfig, type NodeConfig } from "./config.js";

export interface RunningNode {
  readonly config: NodeConfig;
  stop(): Promise<void>;
}

/** Starts one validator in this process. (Being written: storage, execution, pool, HTTP.) */
export async function startNode(config: NodeConfig): Promise<RunningNode> {
  throw new Error(`startNode(${config.node_name}) is not wired yet`);
}

/** `chainsim node --config FILE`: runs until SIGTERM/SIGINT, then closes the databases cleanly. */
export async function runNodeFromFile(path: string): Promise<void> {
  const config = parseNodeConfig(parseJson(await readFile(path, "utf8")));
  const node = await startNode(config);
  const stop = () => void node.stop().then(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
