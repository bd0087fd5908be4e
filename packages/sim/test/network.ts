// A network for the simulation's tests, built as the CLI builds one from a manifest (without the CLI, which
// depends on this package): n validators with dev keys, every one listing the others as peers.
import { parseNodeConfig, type NodeConfig } from "@chainsim/node";
import { addressFromPublicKey, devKeySeed, encodePrivateKey, encodePublicKey } from "@chainsim/protocol";
import { NodeEd25519Signer } from "@chainsim/protocol/node-crypto";

export interface TestNetwork {
  configs: NodeConfig[];
  genesisPrivateKey: string;
}

function devKey(network: string, name: string) {
  const seed = devKeySeed(network, name);
  const signer = new NodeEd25519Signer(seed);
  return { address: addressFromPublicKey(signer.publicKey), public_key: encodePublicKey(signer.publicKey), private_key: encodePrivateKey(seed) };
}

export function testNetwork(n = 4, network = "sim-test"): TestNetwork {
  const keys = Array.from({ length: n }, (_, i) => ({ name: `v${i + 1}`, ...devKey(network, `v${i + 1}`) }));
  const genesis = devKey(network, "genesis");
  const configs = keys.map((key, i) =>
    parseNodeConfig({
      network,
      node_name: key.name,
      data_dir: `/nonexistent/${key.name}`,
      webserver: { listen_addresses: `127.0.0.1:${20002 + 10 * i}` },
      wsserver: { listen_address: `127.0.0.1:${20003 + 10 * i}` },
      p2p: {
        listen_address: `127.0.0.1:${20001 + 10 * i}`,
        peers: keys.filter((_, j) => j !== i).map((peer, j) => ({ address: peer.address, public_key: peer.public_key, host: "127.0.0.1", port: 20001 + 10 * j })),
      },
      validator: { private_key: key.private_key },
      validators: keys.map((k) => k.address),
      genesis: { account: genesis.address, balance: "100000000000000000", close_time: 1 },
      consensus: { view_timeout_ms: 2000, close_interval_ms: 200, empty_close_interval_ms: 1000 },
    }),
  );
  return { configs, genesisPrivateKey: genesis.private_key };
}
