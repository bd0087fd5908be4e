// Recovery after a SIGKILL of the primary under load: node scripts/bench/primary-kill.mjs [manifest] [runs=3]
// Launches the network (default local-4, its own view_timeout_ms), keeps payments flowing through a backup,
// kills the primary, and measures the time until a ledger proposed by another validator closes. The killed
// node is started again before the next run. Prints one JSON line.
import { fileURLToPath } from "node:url";
import { Keypair, payCoin, sendTransaction } from "@chainsim/client";
import { withNetwork } from "./common.mjs";

const [manifest = fileURLToPath(new URL("../../networks/local-4.toml", import.meta.url)), runs = "3"] = process.argv.slice(2);
await withNetwork(manifest, async ({ network, genesis }) => {
  const { handle, clients } = network;
  const tip = async (client) => BigInt((await client.getLedger()).result.header.seq);
  const leader = async (client) => {
    const { leader: address } = await client.getConsensusInfo();
    return handle.nodes.findIndex((n) => n.address === address);
  };
  let nonce = BigInt((await clients[0].getAccountBase(genesis.address)).result.nonce ?? 0);
  const recoveries = [];
  for (let run = 0; run < Number(runs); run++) {
    const primary = await leader(clients[0]);
    const backup = clients[(primary + 1) % clients.length];
    let loading = true;
    const load = (async () => {
      while (loading) {
        await sendTransaction(backup, { signers: [genesis], operations: [payCoin(Keypair.generate().address, 1_000n)], nonce: ++nonce }).catch(() => nonce--);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const before = await tip(backup);
    while ((await tip(backup)) < before + 2n) await new Promise((resolve) => setTimeout(resolve, 20));
    const atKill = await tip(backup);
    const killed = handle.nodes[primary].address;
    await handle.stopNode(handle.nodes[primary].name, { signal: "SIGKILL" });
    const killedAt = performance.now();
    const proposer = async () => (await backup.getLedger({ with_leader: true })).result.leader;
    while ((await tip(backup)) <= atKill || (await proposer()) === killed) await new Promise((resolve) => setTimeout(resolve, 10));
    recoveries.push(Math.round(performance.now() - killedAt));
    loading = false;
    await load;
    await handle.startNode(handle.nodes[primary].name);
  }
  console.log(JSON.stringify({ benchmark: "primary-kill", view_timeout_ms: handle.manifest.consensus.view_timeout_ms, recovery_ms: recoveries }));
});
