import { codecs, fromHex, toHex } from "@chainsim/protocol";
import type { History, NodeChain } from "./invariants/history.js";
import type { SimValidator } from "./sim-validator.js";
import type { SimulationFailure } from "./watchers.js";

/**
 * A validator's ledgers as the checker reads them, and its hash chain checked on the way: each header's
 * previous_hash is the hash of the ledger before it. Contract-made transactions are left out (no client
 * submitted them).
 */
export async function chainOf(v: SimValidator, failures: SimulationFailure[]): Promise<NodeChain> {
  const store = v.core!.ledgers.ledgers;
  const ledgers: NodeChain["ledgers"] = [];
  let previous: Uint8Array | undefined;
  for (let seq = 1n; seq <= v.core!.ledgers.lastHeader.seq!; seq++) {
    const ledger = await store.ledger(seq);
    const header = ledger!.header!;
    if (previous && toHex(header.previous_hash ?? new Uint8Array()) !== toHex(previous)) {
      failures.push({ invariant: "hash_chain", detail: `${v.name}: ledger ${seq}'s previous_hash is not the hash of ledger ${seq - 1n}` });
    }
    previous = header.hash;
    const records = await Promise.all((ledger!.tx_hashes ?? []).map((hash) => store.record(toHex(hash))));
    const madeByContracts = new Set(records.flatMap((r) => (r?.contract_tx_hashes ?? []).map(toHex)));
    const txs = records
      .filter((r) => r && !madeByContracts.has(toHex(r.hash!)))
      .map((r) => ({ hash: toHex(r!.hash!), signatures: (r!.transaction_env?.signatures ?? []).map((s) => ({ public_key: s.public_key!, sign_data: toHex(s.sign_data!) })) }));
    ledgers.push({ seq: Number(seq), hash: toHex(header.hash!), close_ms: Number((header.close_time ?? 0n) / 1000n), txs });
  }
  return { name: v.name, ledgers };
}

/**
 * Nonces: on `v`, the transactions each load account has in the ledgers carry nonces 1, 2, … n without a gap
 * or a repeat, and the account's nonce is n (a failed transaction uses its nonce too).
 */
export async function nonceProblems(v: SimValidator, chain: NodeChain, history: History): Promise<SimulationFailure[]> {
  const bySource = new Map<string, bigint[]>();
  for (const ledger of chain.ledgers) {
    for (const tx of ledger.txs) {
      const signed = history.txs[tx.hash];
      if (!signed) continue; // validity reports it
      const { source_address = "", nonce = 0n } = codecs.Transaction.decode(fromHex(signed.blob));
      bySource.set(source_address, [...(bySource.get(source_address) ?? []), nonce]);
    }
  }
  const problems: SimulationFailure[] = [];
  for (const [source, nonces] of bySource) {
    const stored = (await v.core!.ledgers.accounts.account(source))?.nonce ?? 0n;
    const consecutive = nonces.every((nonce, i) => nonce === BigInt(i + 1));
    if (!consecutive || stored !== BigInt(nonces.length)) {
      problems.push({ invariant: "nonces", detail: `${v.name}: ${source} has transactions with nonces ${nonces.slice(0, 8).join(",")}${nonces.length > 8 ? ",…" : ""} in its ledgers and nonce ${stored}` });
    }
  }
  return problems;
}
