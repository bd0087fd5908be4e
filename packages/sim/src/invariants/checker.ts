import type { History, NodeChain, PerturbationRecord, SignatureJson, StatusSample } from "./history.js";

/**
 * The invariants of product.md §6 as pure functions of a recorded run: the history of submissions, every
 * node's ledgers and status samples. Nothing here talks to a node, so each verdict can be tested on
 * invented data (a fork, a lost transaction, a stall).
 */

export interface InvariantResult {
  ok: boolean;
  detail: string;
}

/** At most this many problems are spelled out in a detail. */
const SHOWN = 3;

function result(problems: string[], okDetail: string): InvariantResult {
  if (problems.length === 0) return { ok: true, detail: okDetail };
  const more = problems.length > SHOWN ? `; and ${problems.length - SHOWN} more` : "";
  return { ok: false, detail: problems.slice(0, SHOWN).join("; ") + more };
}

const short = (hash: string) => hash.slice(0, 12);

/**
 * Agreement: for every seq that two nodes both have, the ledger hashes are equal (every seq is compared).
 * Every node in `expected` must have been read: a node that cannot be read hides whatever it holds.
 */
export function checkAgreement(chains: NodeChain[], expected: string[] = chains.map((c) => c.name)): InvariantResult {
  const bySeq = new Map<number, Map<string, string[]>>();
  for (const chain of chains) {
    for (const ledger of chain.ledgers) {
      const hashes = bySeq.get(ledger.seq) ?? new Map<string, string[]>();
      hashes.set(ledger.hash, [...(hashes.get(ledger.hash) ?? []), chain.name]);
      bySeq.set(ledger.seq, hashes);
    }
  }
  const unread = expected.filter((name) => !chains.some((c) => c.name === name)).map((name) => `the ledgers of ${name} could not be read`);
  const problems = unread.concat(...[...bySeq.entries()]
    .filter(([, hashes]) => hashes.size > 1)
    .sort(([a], [b]) => a - b)
    .map(([seq, hashes]) => `seq ${seq} differs: ${[...hashes.entries()].map(([hash, nodes]) => `${nodes.join(",")} ${short(hash)}`).join(" vs ")}`));
  return result(problems, `${bySeq.size} seqs compared across ${chains.length} nodes, all equal`);
}

/**
 * Validity: every committed transaction is one this scenario signed (load or setup), and every signature
 * in its record verifies over the blob that was submitted. `verify` checks one Ed25519 signature.
 */
export function checkValidity(history: History, chains: NodeChain[], verify: (blobHex: string, signature: SignatureJson) => boolean): InvariantResult {
  const problems: string[] = [];
  const seen = new Set<string>();
  // Every node's copy is checked: a node could hold the right hash with other signatures (they are not hashed).
  for (const chain of chains) {
    for (const ledger of chain.ledgers) {
      for (const tx of ledger.txs) {
        seen.add(tx.hash);
        const signed = history.txs[tx.hash];
        if (!signed) problems.push(`${chain.name} seq ${ledger.seq} holds ${short(tx.hash)}, which was never submitted`);
        else if (tx.signatures.length === 0 || !tx.signatures.every((sig) => verify(signed.blob, sig))) problems.push(`${short(tx.hash)} at seq ${ledger.seq} on ${chain.name} has a signature that does not verify`);
      }
    }
  }
  return result(problems, `${seen.size} committed transactions, all submitted by this scenario and properly signed`);
}

/**
 * No loss, no duplicates: every transaction a node accepted (error_code 0) is in exactly one ledger (the
 * same seq on every node that has it), or a later submission of it was refused with a recorded reason.
 * Nothing appears twice.
 */
export function checkNoLoss(history: History, chains: NodeChain[]): InvariantResult {
  const problems: string[] = [];
  const seqsOf = new Map<string, Set<number>>();
  for (const chain of chains) {
    const count = new Map<string, number>();
    for (const ledger of chain.ledgers) {
      for (const tx of ledger.txs) {
        count.set(tx.hash, (count.get(tx.hash) ?? 0) + 1);
        seqsOf.set(tx.hash, (seqsOf.get(tx.hash) ?? new Set()).add(ledger.seq));
      }
    }
    for (const [hash, n] of count) if (n > 1) problems.push(`${short(hash)} is ${n} times in ${chain.name}'s ledgers`);
  }
  for (const [hash, seqs] of seqsOf) if (seqs.size > 1) problems.push(`${short(hash)} is at seqs ${[...seqs].join(" and ")}`);
  const accepted = new Set(history.submissions.filter((s) => s.error_code === 0).map((s) => s.hash));
  let refused = 0;
  for (const hash of accepted) {
    if (seqsOf.has(hash)) continue;
    const lastAccepted = Math.max(...history.submissions.filter((s) => s.hash === hash && s.error_code === 0).map((s) => s.sent_ms));
    const refusal = history.submissions.find((s) => s.hash === hash && s.sent_ms > lastAccepted && s.error_code !== undefined && s.error_code !== 0);
    if (refusal) refused++;
    else problems.push(`${short(hash)} was accepted but is in no ledger`);
  }
  return result(problems, `${accepted.size} accepted: ${accepted.size - refused} in exactly one ledger, ${refused} refused later with a reason; no duplicates`);
}

export interface Recovery {
  node: string;
  kind: string;
  at_ms: number;
  healed_ms: number;
  /** From healing until every honest node passed the highest seq any of them had at healing; undefined: not within the bound. */
  recovery_ms: number | undefined;
}

/** A node's seq at `at_ms`: its latest sample at or before that time (undefined when it did not answer). */
function seqAt(samples: StatusSample[], at_ms: number): number | undefined {
  let seq: number | undefined;
  for (const s of samples) {
    if (s.at_ms > at_ms) break;
    seq = s.seq;
  }
  return seq;
}

/**
 * When, after `record` healed, every honest node had closed a ledger beyond the highest seq any honest node
 * had at that moment. `samples` must be in time order. undefined: not within `boundMs` (or not yet sampled).
 */
export function recoveryOf(samples: StatusSample[], record: PerturbationRecord, boundMs: number): Recovery {
  const byNode = new Map(record.honest.map((name) => [name, samples.filter((s) => s.node === name)]));
  const target = Math.max(...[...byNode.values()].map((own) => seqAt(own, record.healed_ms) ?? 0));
  const times = [...new Set(samples.filter((s) => s.at_ms >= record.healed_ms && s.at_ms <= record.healed_ms + boundMs).map((s) => s.at_ms))].sort((a, b) => a - b);
  const done = times.find((t) => [...byNode.values()].every((own) => (seqAt(own, t) ?? -1) > target));
  const { node, kind, at_ms, healed_ms } = record;
  return { node, kind, at_ms, healed_ms, recovery_ms: done === undefined ? undefined : done - record.healed_ms };
}

/** Liveness: after each perturbation healed, every honest node advanced within `boundMs`. */
/** Liveness: after each heal every honest node passed the tip within the bound, and every restart of a crashed node came back (`failedRestarts`). */
export function checkLiveness(samples: StatusSample[], records: PerturbationRecord[], boundMs: number, failedRestarts: string[] = []): { invariant: InvariantResult; recoveries: Recovery[] } {
  const sorted = [...samples].sort((a, b) => a.at_ms - b.at_ms);
  const recoveries = records.map((record) => recoveryOf(sorted, record, boundMs));
  const problems = failedRestarts.map((failure) => `restart failed: ${failure}`).concat(
    recoveries
      .filter((r) => r.recovery_ms === undefined)
      .map((r) => `after ${r.kind} of ${r.node} healed, the honest nodes did not all pass the tip within ${boundMs} ms`),
  );
  const slowest = Math.max(0, ...recoveries.map((r) => r.recovery_ms ?? 0));
  return { invariant: result(problems, `${records.length} heals, every honest node advanced within the bound of ${boundMs} ms (slowest ${slowest} ms)`), recoveries };
}

/**
 * The liveness bound: a view change may need a few rounds with a doubling timer, and an idle network closes
 * a ledger only every empty_close_interval_ms. Scales with n (more replicas, more candidate primaries).
 */
export function livenessBoundMs(nodes: number, consensus: { view_timeout_ms: number; empty_close_interval_ms: number }): number {
  return Math.round((2 + nodes / 4) * consensus.view_timeout_ms * 2 + consensus.empty_close_interval_ms);
}

/** View changes seen: the largest growth of view_number on any node between its first and last answer. */
export function viewChanges(samples: StatusSample[]): number {
  const views = new Map<string, number[]>();
  for (const s of [...samples].sort((a, b) => a.at_ms - b.at_ms)) if (s.view !== undefined) views.set(s.node, [...(views.get(s.node) ?? []), s.view]);
  return Math.max(0, ...[...views.values()].map((v) => v[v.length - 1] - v[0]));
}

/** Commit latency of accepted load transactions: ledger close time minus first submission (p50, p99 in ms). */
export function commitLatency(history: History, chains: NodeChain[]): { p50: number; p99: number; committed: number } {
  const closeOf = new Map<string, number>();
  for (const chain of chains) for (const ledger of chain.ledgers) for (const tx of ledger.txs) closeOf.set(tx.hash, ledger.close_ms);
  const firstSent = new Map<string, number>();
  for (const s of history.submissions) if (!firstSent.has(s.hash)) firstSent.set(s.hash, s.sent_ms);
  const latencies = [...firstSent.entries()]
    .filter(([hash]) => history.txs[hash]?.origin === "load" && closeOf.has(hash))
    .map(([hash, sent]) => Math.max(0, closeOf.get(hash)! - sent))
    .sort((a, b) => a - b);
  const pick = (q: number) => (latencies.length === 0 ? 0 : latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]);
  return { p50: pick(0.5), p99: pick(0.99), committed: latencies.length };
}
