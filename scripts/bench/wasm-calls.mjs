// Contract calls in each language, in one run so the figures compare (the machine's speed varies 2-3×
// between runs): a JavaScript contract and the C++ and Go builtins examples, each storing then loading one
// key per call. node scripts/bench/wasm-calls.mjs [manifest] [senders] [per sender]
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { createContract, sendTransaction, waitForTransaction } from "@chainsim/client";
import { buildCppContract } from "@chainsim/contract-sdk-cpp";
import { buildGoContract } from "@chainsim/contract-sdk-go";
import { OperationType } from "@chainsim/protocol";
import { senders, signAll, submitAndDrain, withNetwork } from "./common.mjs";

const JS_KV = `function init() {} function main(input) { const p = JSON.parse(input).params; Chain.store(p.key, p.value); return Chain.load(p.key); }`;
const [manifest = fileURLToPath(new URL("../../networks/single.toml", import.meta.url)), count = "50", per = "20"] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const work = mkdtempSync(join(tmpdir(), "chainsim-bench-wasm-"));
try {
  const cpp = await buildCppContract(join(require.resolve("@chainsim/contract-sdk-cpp"), "../../examples/builtins.cpp"), work);
  const go = await buildGoContract(join(require.resolve("@chainsim/contract-sdk-go"), "../../examples/builtins"), join(work, "go.wasm"));
  const contracts = [
    { language: "javascript", type: 0, payload: JS_KV },
    { language: "c++", type: 3, payload: readFileSync(cpp.wasm).toString("base64") },
    { language: "go", type: 2, payload: readFileSync(go.outFile).toString("base64") },
  ];
  await withNetwork(manifest, async ({ client, genesis, network }) => {
    const accounts = await senders(client, genesis, Number(count));
    const results = {};
    for (const [k, contract] of contracts.entries()) {
      const { hash } = await sendTransaction(client, { signers: [genesis], operations: [createContract(contract.payload, { type: contract.type, initInput: contract.type ? '{"method":"init"}' : "" })], feeLimit: 1_000_000_000n });
      const created = await waitForTransaction(client, hash, { timeoutMs: 120_000 });
      if (created.error_code !== 0) throw new Error(`${contract.language}: ${created.error_desc}`);
      const address = JSON.parse(created.error_desc)[0].contract_address;
      const input = (i) => JSON.stringify({ method: "kv", params: { key: `k${i}`, value: "v" } });
      const items = await signAll(accounts, Number(per), (_, i) => ({ type: OperationType.PAY_COIN, pay_coin: { dest_address: address, amount: 0n, input: input(i) } }), k * Number(per) + 1);
      results[contract.language] = await submitAndDrain(network, items);
    }
    const js = results.javascript.perSecond;
    for (const [language, result] of Object.entries(results)) result.ratioToJavascript = Math.round((100 * result.perSecond) / js) / 100;
    console.log(JSON.stringify({ benchmark: "wasm-calls", calls: Number(count) * Number(per), results }));
  });
} finally {
  rmSync(work, { recursive: true, force: true });
}
