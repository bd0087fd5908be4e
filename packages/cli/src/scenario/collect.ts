import type { LedgerData, NodeChain, StatusSample } from "@chainsim/sim";
import { getJson, type Json } from "../node-http.js";

/** Reads ledgers from..to of one node: header hash and close time, and each transaction's hash and signatures. */
export async function readLedgers(http: string, from: number, to: number): Promise<LedgerData[]> {
  const seqs = Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
  const ledgers: LedgerData[] = [];
  // A few requests at a time: enough to read hundreds of ledgers quickly without crowding the node.
  for (let i = 0; i < seqs.length; i += 8) ledgers.push(...(await Promise.all(seqs.slice(i, i + 8).map((seq) => readLedger(http, seq)))));
  return ledgers;
}

async function readLedger(http: string, seq: number): Promise<LedgerData> {
  const answer = await getJson(http, `/getLedger?seq=${seq}`, 5000);
  if (answer.error_code !== 0) throw new Error(`getLedger?seq=${seq}: error ${answer.error_code} ${answer.error_desc ?? ""}`);
  const header = answer.result.header as Json;
  const txs: LedgerData["txs"] = [];
  if (Number(header.tx_count ?? 0) > 0) {
    for (let start = 0; ; start += 1000) {
      const page = await getJson(http, `/getTransactionHistory?ledger_seq=${seq}&start=${start}&limit=1000`, 5000);
      const records = (page.result?.transactions ?? []) as Json[];
      txs.push(...records.map((r) => ({ hash: r.hash as string, signatures: (r.signatures ?? []) as LedgerData["txs"][number]["signatures"] })));
      if (records.length < 1000) break;
    }
  }
  return { seq, hash: header.hash, close_ms: Math.floor(Number(header.close_time ?? 0) / 1000), txs };
}

/** The seq of the newest ledger a node has closed. */
export async function tipOf(http: string): Promise<number> {
  return Number((await getJson(http, "/getLedger")).result.header.seq);
}

/** Every ledger of every node (a node that does not answer is skipped with a note). */
export async function readChains(nodes: { name: string; http: string }[], onProgress: (m: string) => void): Promise<NodeChain[]> {
  const chains: NodeChain[] = [];
  for (const node of nodes) {
    try {
      const tip = await tipOf(node.http);
      chains.push({ name: node.name, ledgers: await readLedgers(node.http, 1, tip) });
      onProgress(`read ${tip} ledgers of ${node.name}`);
    } catch (error) {
      onProgress(`cannot read the ledgers of ${node.name}: ${(error as Error).message}`);
    }
  }
  return chains;
}

/** Samples every node's seq and view every `intervalMs` until stopped (the liveness and view-change record). */
export function startSampler(nodes: () => { name: string; http: string }[], intervalMs = 250): { samples: StatusSample[]; stop(): Promise<void> } {
  const samples: StatusSample[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const at_ms = Date.now();
      await Promise.all(
        nodes().map(async (node) => {
          try {
            const info = await getJson(node.http, "/getConsensusInfo", Math.min(1000, intervalMs * 4));
            samples.push({ at_ms, node: node.name, seq: Number(info.last_exe_seq), view: Number(info.view_number) });
          } catch {
            samples.push({ at_ms, node: node.name });
          }
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, at_ms + intervalMs - Date.now())));
    }
  })();
  return {
    samples,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}
