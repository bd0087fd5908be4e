import type { ConsensusCrypto } from "@chainsim/consensus";
import { decodePrivateKey, sha256, toHex } from "@chainsim/protocol";
import { Ed25519Verifier, NodeEd25519Signer } from "@chainsim/protocol/node-crypto";
import { withFaultPlane, type FaultPlane, type FaultyPeerNetwork } from "../../src/faults/index.js";
import { MemoryHub, MemoryPeerNetwork } from "../../src/index.js";
import { testValidator, type TestValidator } from "../p2p/keys.js";
import { systemClock } from "../../src/clock.js";

export interface Received {
  from: string;
  channel: string;
  payload: Uint8Array;
}

/**
 * Four validators on a MemoryHub; validator 0 runs behind a fault plane (its clock is `clock.now`, which a
 * test may move to expire rules). received[i] collects what validator i's handlers got.
 */
export interface FaultyNet {
  validators: TestValidator[];
  addresses: string[];
  plane: FaultPlane;
  faulty: FaultyPeerNetwork;
  /** Validators 1..3 (index 0 is the unwrapped network of validator 0). */
  networks: MemoryPeerNetwork[];
  received: Received[][];
  crypto: ConsensusCrypto[];
  clock: { now: number };
  hub: MemoryHub;
  stop(): Promise<void>;
}

/** Consensus signing for validator `self` of `validators` (replica i is validators[i]), as the node does it. */
export function testCrypto(validators: TestValidator[], self: number): ConsensusCrypto {
  const signer = new NodeEd25519Signer(decodePrivateKey(validators[self].privateKey));
  const verifier = new Ed25519Verifier();
  return {
    sign: (bytes) => signer.signNow(bytes),
    verify: (replica, bytes, signature) => replica < validators.length && verifier.verify(validators[replica].publicKey, bytes, signature),
    digest: (value) => toHex(sha256(value)),
  };
}

export async function faultyNet(seed = 7): Promise<FaultyNet> {
  const hub = new MemoryHub();
  const validators = await Promise.all(["f0", "f1", "f2", "f3"].map((name) => testValidator(name)));
  const addresses = validators.map((v) => v.address);
  const networks = addresses.map((address, i) => new MemoryPeerNetwork(hub, address, addresses.filter((_, j) => j !== i)));
  const crypto = validators.map((_, i) => testCrypto(validators, i));
  const clock = { now: 1_000_000 };
  const { plane, network: faulty } = withFaultPlane(networks[0], {
    peers: addresses.slice(1),
    validators: addresses,
    crypto: crypto[0],
    seed,
    unsafeQuorum: null,
    clock: { ...systemClock, now: () => clock.now },
  });
  const received: Received[][] = addresses.map(() => []);
  const all = [faulty, ...networks.slice(1)];
  all.forEach((network, i) => {
    network.onMessage((from, payload, channel) => received[i].push({ from, channel, payload }));
    network.onRequest(async (from, payload) => new TextEncoder().encode(`answer to ${from.slice(0, 6)}: ${new TextDecoder().decode(payload)}`));
  });
  await Promise.all(all.map((network) => network.start()));
  return { validators, addresses, plane, faulty, networks, received, crypto, clock, hub, stop: async () => void (await Promise.all(all.map((n) => n.stop()))) };
}

export const text = (s: string) => new TextEncoder().encode(s);

/** The text payloads validator `i` received on the txs channel, in order. */
export function texts(net: FaultyNet, i: number): string[] {
  return net.received[i].filter((r) => r.channel === "txs").map((r) => new TextDecoder().decode(r.payload));
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The message a promise rejects with; fails the test when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected a rejection");
}
