import { randomBytes } from "node:crypto";
import { encodePrivateKey } from "@chainsim/protocol";
import { Libp2pPeerNetwork, type PeerConfig } from "../../src/index.js";
import { describePeerNetworkConformance } from "./conformance.js";
import { testValidator } from "./keys.js";
import { freePorts } from "./wait.js";

describePeerNetworkConformance("Libp2pPeerNetwork", async (size) => {
  const validators = await Promise.all(Array.from({ length: size }, (_, i) => testValidator(`v${i}`)));
  const ports = await freePorts(size + 1);
  const peers: PeerConfig[] = validators.map((v, i) => ({ address: v.address, public_key: v.publicKey, host: "127.0.0.1", port: ports[i] }));
  // fast redials keep the tests short; the policy itself is the same
  const backoff = { initialMs: 50, maxMs: 500 };
  return {
    addresses: validators.map((v) => v.address),
    create: (index, options) =>
      Libp2pPeerNetwork.create({
        privateKey: validators[index].privateKey,
        listenAddress: `127.0.0.1:${ports[index]}`,
        peers: peers.filter((_, j) => j !== index),
        backoff,
        queueLimits: options?.queueLimits,
      }),
    createOutsider: () =>
      Libp2pPeerNetwork.create({ privateKey: encodePrivateKey(randomBytes(32)), listenAddress: `127.0.0.1:${ports[size]}`, peers, backoff }),
  };
});
