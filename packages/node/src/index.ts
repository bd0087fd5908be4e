export * from "./config.js";
export { runNodeFromFile, startNode, type RunningNode } from "./node.js";
