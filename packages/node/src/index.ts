export * from "./config.js";
export { runNodeFromFile, startNode, type RunningNode } from "./node.js";
export * from "./p2p/index.js";
export { BYZANTINE_MODES, type ByzantineMode } from "./faults/index.js";
export { STORE_POINTS, type StorePoint } from "./ledger/ledger-manager.js";
