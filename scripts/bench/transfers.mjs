// Plain transfers through one network: node scripts/bench/transfers.mjs [manifest] [senders] [per sender]
import { fileURLToPath } from "node:url";
import { OperationType } from "@chainsim/protocol";
import { senders, signAll, submitAndDrain, withNetwork } from "./common.mjs";

const [manifest = fileURLToPath(new URL("../../networks/single.toml", import.meta.url)), count = "200", per = "25"] = process.argv.slice(2);
await withNetwork(manifest, async ({ client, genesis, network }) => {
  const accounts = await senders(client, genesis, Number(count));
  const items = await signAll(accounts, Number(per), (_, i) => ({ type: OperationType.PAY_COIN, pay_coin: { dest_address: accounts[(i + 1) % accounts.length].address, amount: 1n } }));
  const result = await submitAndDrain(network, items);
  console.log(JSON.stringify({ benchmark: "transfers", transactions: items.length, ...result }));
});
