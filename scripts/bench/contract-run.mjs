// What one contract run costs the node, isolate included: the same small contracts run back to back in
// one contract worker, in milliseconds a run (docs/benchmarks.md). Run it on two commits alternately, as
// this machine's speed varies 2-3x: node --no-node-snapshot scripts/bench/contract-run.mjs [RUNS]
import { ContractWorkerRuntime, DEFAULT_CONTRACT_LIMITS } from "@chainsim/contracts";

const CONTRACTS = {
  "a counter with a 200-step loop": `let s = 0; for (let i = 0; i < 200; i++) s += i * 2 - 1; Chain.store("k", String(s)); return String(s);`,
  "400 computed reads and 200 writes": `const a = []; for (let i = 0; i < 200; i++) a[i] = i; const o = {}; let s = 0; for (let i = 0; i < 200; i++) { s += a[i]; o["k" + (i & 15)] = s; s += o["k" + (i & 7)]; } return String(s);`,
};
const runs = Number(process.argv[2] ?? 200);
const env = { thisAddress: "did:bid:a", block: { timestamp: 1, number: 1 }, tx: { initiator: "i", sender: "s", gasPrice: "1", hash: "h", feeLimit: "1" }, msg: { initiator: "i", sender: "s", nonce: 1, operationIndex: 0, coinAmount: "0" } };
const runtime = new ContractWorkerRuntime(DEFAULT_CONTRACT_LIMITS);
const rows = [];
try {
  for (const [name, body] of Object.entries(CONTRACTS)) {
    const code = `"use strict"; function init() {} function main(input) { ${body} }`;
    const run = () => runtime.execute({ code, entry: "main", input: "", env, readOnly: false, depth: 0, host: { call: async () => true }, meter: { used: 0, limit: DEFAULT_CONTRACT_LIMITS.steps, exhausted: false }, deadline: performance.now() + 10_000, log() {} });
    for (let i = 0; i < 20; i++) await run(); // the worker's start and the first compilations are not measured
    const started = performance.now();
    for (let i = 0; i < runs; i++) await run();
    rows.push({ contract: name, ms_per_run: Number(((performance.now() - started) / runs).toFixed(2)) });
  }
} finally {
  runtime.dispose();
}
console.table(rows);
console.log(JSON.stringify({ benchmark: "contract-run", runs, rows }));
