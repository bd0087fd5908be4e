export * from "./config.js";
export { runNodeFromFile, startNode, type RunningNode } from "./node.js";
export * from "./p2p/index.js";
export { BYZANTINE_MODES, type ByzantineMode } from "./faults/index.js";
export { LOG_LEVELS, NODE_LOG_FILE, type LogLevel, type LogLine, type NodeLog } from "./logging/node-log.js";
export { STORE_POINTS, type StorePoint } from "./ledger/ledger-manager.js";
