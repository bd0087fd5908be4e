// Contract calls (PAY_COIN + input to a load/store contract): node scripts/bench/contract-calls.mjs [manifest] [senders] [per sender]
import { fileURLToPath } from "node:url";
import { createContract, expectOk, sendTransaction, waitForTransaction } from "@chainsim/client";
import { OperationType } from "@chainsim/protocol";
import { senders, signAll, submitAndDrain, withNetwork } from "./common.mjs";

const COUNTER = `function init() {} function main(input) { const c = Chain.load("n"); Chain.store("n", Utils.int64Add(c === false ? "0" : c, "1")); }`;
const [manifest = fileURLToPath(new URL("../../networks/single.toml", import.meta.url)), count = "100", per = "20"] = process.argv.slice(2);
await withNetwork(manifest, async ({ client, genesis, network }) => {
  const created = await waitForTransaction(client, (await sendTransaction(client, { signers: [genesis], operations: [createContract(COUNTER)], feeLimit: 200_000_000n })).hash);
  const contract = JSON.parse(created.error_desc)[0].contract_address;
  const accounts = await senders(client, genesis, Number(count));
  const items = await signAll(accounts, Number(per), () => ({ type: OperationType.PAY_COIN, pay_coin: { dest_address: contract, amount: 0n, input: "x" } }));
  const result = await submitAndDrain(network, items);
  const stored = expectOk(await client.getAccountMetaData(contract, "n")).result.n.value;
  if (stored !== String(result.accepted)) throw new Error(`the contract counted ${stored} calls, not ${result.accepted}`);
  console.log(JSON.stringify({ benchmark: "contract-calls", calls: items.length, ...result }));
});
