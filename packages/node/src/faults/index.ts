import { randomInt } from "node:crypto";
import { quorumSize, type ConsensusCrypto } from "@chainsim/consensus";
import type { LedgerManager } from "../ledger/ledger-manager.js";
import type { PeerNetwork } from "../p2p/index.js";
import { ByzantineTransforms } from "./byzantine.js";
import { FaultPlane } from "./fault-plane.js";
import { FaultyPeerNetwork } from "./faulty-peer-network.js";
import { seededRandom } from "@chainsim/protocol";
import { systemClock, type Clock } from "../clock.js";

export { ByzantineTransforms } from "./byzantine.js";
export { FaultPlane, type FaultStats } from "./fault-plane.js";
export { FaultyPeerNetwork } from "./faulty-peer-network.js";
export { BYZANTINE_MODES, FAULT_KINDS, type ByzantineMode, type FaultKind, type FaultRule } from "./rules.js";
export { unsafeQuorumFromEnv, UNSAFE_QUORUM_ENV } from "./unsafe-quorum.js";

export interface FaultInjectionOptions {
  /** The configured peers, in config order. */
  peers: string[];
  /** Validator addresses in replica order (to read consensus messages). */
  validators: string[];
  /** This validator's consensus signing, for re-signed Byzantine messages. */
  crypto: ConsensusCrypto;
  /** debug.fault_seed; a random seed (reported by GET /debug/faults) when absent. */
  seed?: number;
  unsafeQuorum: number | null;
  /** The system clock unless simulated (docs/simulation.md): rule expiry and held-back messages. */
  clock?: Clock;
}

/** The fault plane and the network to use in place of `inner` (a node builds this only with debug.fault_injection on). */
export function withFaultPlane(inner: PeerNetwork, options: FaultInjectionOptions): { plane: FaultPlane; network: FaultyPeerNetwork } {
  const seed = options.seed ?? randomInt(0, 2 ** 32);
  const random = seededRandom(seed);
  const clock = options.clock ?? systemClock;
  const plane = new FaultPlane({ peers: options.peers, random, seed, unsafeQuorum: options.unsafeQuorum, now: () => clock.now() });
  const verifier = { validators: options.validators, crypto: options.crypto, quorum: quorumSize(options.validators.length) };
  return { plane, network: new FaultyPeerNetwork(inner, plane, new ByzantineTransforms(options.crypto, verifier, random), clock) };
}

/**
 * A crash rule makes the node SIGKILL itself when storing its next ledger reaches the rule's point (no
 * flush, no shutdown: the same as a power cut there). docs/faults.md, "Crashes during a ledger write".
 */
export function crashAtStorePoints(ledgers: LedgerManager, plane: FaultPlane, log: (message: string) => void): void {
  ledgers.onStorePoint((point, seq) => {
    if (!plane.crashes(point)) return;
    log(`fault injection: SIGKILL at ${point} of ledger ${seq}`);
    process.kill(process.pid, "SIGKILL");
  });
}
