export * from "./config.js";
export { runNodeFromFile, startNode, type RunningNode } from "./node.js";
export * from "./p2p/index.js";
