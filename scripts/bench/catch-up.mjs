// State sync speed: node scripts/bench/catch-up.mjs [manifest] [senders=200] [per sender=25]
// Launches the network (default local-4), stops its last validator, commits the transfers on the others,
// starts the stopped validator again and times until it has every ledger. Prints one JSON line.
import { fileURLToPath } from "node:url";
import { OperationType } from "@chainsim/protocol";
import { senders, signAll, submitAndDrain, withNetwork } from "./common.mjs";

const [manifest = fileURLToPath(new URL("../../networks/local-4.toml", import.meta.url)), count = "200", per = "25"] = process.argv.slice(2);
await withNetwork(manifest, async ({ client, genesis, network }) => {
  const { handle, clients } = network;
  const behind = handle.nodes.length - 1;
  const tip = async (c) => BigInt((await c.getLedger()).result.header.seq);
  const accounts = await senders(client, genesis, Number(count));
  const items = await signAll(accounts, Number(per), (_, i) => ({ type: OperationType.PAY_COIN, pay_coin: { dest_address: accounts[(i + 1) % accounts.length].address, amount: 1n } }));
  await handle.stopNode(handle.nodes[behind].name);
  const from = await tip(clients[0]);
  await submitAndDrain({ clients: clients.slice(0, behind) }, items);
  const target = await tip(clients[0]);
  const started = performance.now();
  await handle.startNode(handle.nodes[behind].name);
  while ((await tip(clients[behind])) < target) await new Promise((resolve) => setTimeout(resolve, 10));
  const ms = performance.now() - started;
  console.log(JSON.stringify({ benchmark: "catch-up", ledgers: Number(target - from), transactions: items.length, ms: Math.round(ms), txPerSecond: Math.round(items.length / (ms / 1000)) }));
});
