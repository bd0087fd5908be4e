import type { ConsensusCrypto } from "@chainsim/consensus";
import { Ed25519Verifier } from "@chainsim/protocol/node-crypto";
import { systemClock, type Clock } from "./clock.js";
import type { NodeConfig } from "./config.js";
import { ConsensusService, type ConsensusPhases } from "./consensus/consensus-service.js";
import { SignatureChecker } from "./execution/authorization.js";
import type { ContractSupport } from "./execution/executor.js";
import { LedgerManager } from "./ledger/ledger-manager.js";
import type { NodeLog } from "./logging/node-log.js";
import type { PeerNetwork } from "./p2p/index.js";
import { poolLimits } from "./pool/tx-pool.js";
import { TxService } from "./pool/tx-service.js";
import type { Databases } from "./storage/databases.js";

/** What the ledger-moving core of a validator is built from; everything it touches from outside is here. */
export interface ValidatorCoreParts {
  config: NodeConfig;
  validatorAddress: string;
  dbs: Databases;
  /** Peers, already behind whatever wraps them (the fault plane, metrics). */
  network: PeerNetwork;
  /** The ledger's contract runtime. */
  contracts: ContractSupport;
  crypto: ConsensusCrypto;
  log: NodeLog;
  /** The system clock in a validator process, a virtual one in the simulation (docs/simulation.md). */
  clock?: Clock;
  unsafeQuorum?: number;
  censoring?: () => boolean;
  phases?: ConsensusPhases;
  /** Verifies transactions' signatures; the simulation shares one among its validators. */
  verifier?: Ed25519Verifier;
}

/** A validator without its HTTP API, WebSocket events and metrics: storage to consensus. */
export interface ValidatorCore {
  signatures: SignatureChecker;
  ledgers: LedgerManager;
  txs: TxService;
  consensus: ConsensusService;
}

/**
 * Opens the ledgers (recovering from a crash), the pool and the consensus service, in that order; the
 * consensus service is not started. The one assembly of a validator, for a validator process (node.ts) and
 * for each validator of the simulation.
 */
export async function openValidatorCore(parts: ValidatorCoreParts): Promise<ValidatorCore> {
  const { config, clock = systemClock } = parts;
  const signatures = new SignatureChecker(parts.verifier ?? new Ed25519Verifier());
  const ledgers = await LedgerManager.open(parts.dbs, config, signatures, parts.contracts);
  const txs = new TxService(ledgers, signatures, () => clock.now(), poolLimits(config.limits));
  const consensus = await ConsensusService.open({
    consensus: config.consensus,
    validators: config.validators,
    self: parts.validatorAddress,
    crypto: parts.crypto,
    ledgers,
    txs,
    network: parts.network,
    keyvalue: parts.dbs.keyvalue,
    log: parts.log,
    unsafeQuorum: parts.unsafeQuorum,
    censoring: parts.censoring,
    phases: parts.phases,
    clock,
  });
  return { signatures, ledgers, txs, consensus };
}
