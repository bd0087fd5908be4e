import type { NodeLog } from "./logging/node-log.js";
import type { NodeConfig } from "./config.js";
import type { SignatureChecker } from "./execution/authorization.js";
import type { WorkQueue } from "./work-queue.js";
import type { ContractSupport } from "./execution/executor.js";
import type { WebServerStats } from "./http/app.js";
import type { ConsensusService } from "./consensus/consensus-service.js";
import type { EventServer } from "./events/event-server.js";
import type { LedgerManager } from "./ledger/ledger-manager.js";
import type { PeerNetwork } from "./p2p/index.js";
import type { TxService } from "./pool/tx-service.js";
import type { Databases } from "./storage/databases.js";

/** The parts of a running node that the HTTP routes and status reports read. */
export interface NodeContext {
  config: NodeConfig;
  dbs: Databases;
  ledgers: LedgerManager;
  /** The runtime of ledgers. */
  contracts: ContractSupport;
  /** The runtime of callContract and testTransaction, apart from the ledgers', and the queue they wait in. */
  queries: ContractSupport & { queue: WorkQueue };
  txs: TxService;
  signatures: SignatureChecker;
  network: PeerNetwork;
  consensus: ConsensusService;
  /** The WebSocket event server (compat.md §9). */
  events: EventServer;
  /** This validator's address. */
  validatorAddress: string;
  /** Process start, ms since the epoch. */
  startedAt: number;
  webStats: WebServerStats;
  log: NodeLog;
}
