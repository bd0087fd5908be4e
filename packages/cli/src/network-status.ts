/**
 * What `chainsim status` and `chainsim dashboard` show of a network, read from every node's HTTP API
 * only: getConsensusInfo, getModulesStatus and the ledger hash at a sequence every answering node has.
 */
import { failure, getJson, type Json } from "./node-http.js";

/** One node as the status table shows it; `error` set when the node did not answer. */
export interface NodeStatus {
  name: string;
  http: string;
  error?: string;
  address?: string;
  is_leader?: boolean;
  leader?: string;
  view?: number;
  view_active?: boolean;
  last_exe_seq?: number;
  /** Phase of the newest consensus instance (PHASE_COMMITED when idle). */
  phase?: string;
  peers?: number;
  pool?: number;
  /** Hash of ledger `common_seq` on this node. */
  hash?: string;
}

export interface NetworkStatus {
  /** The highest sequence every answering node has closed; hashes are compared there. */
  common_seq: number | undefined;
  /** True when two answering nodes have different hashes at common_seq. */
  mismatch: boolean;
  nodes: NodeStatus[];
}

const TIMEOUT_MS = 2000;

/** A route's `result`, or an Error naming the route's error_code. */
async function resultOf(http: string, path: string): Promise<Json> {
  const body = await getJson(http, path, TIMEOUT_MS);
  if (body.error_code !== undefined && body.error_code !== 0) throw new Error(`${path}: error ${body.error_code} ${body.error_desc ?? ""}`);
  return body.result ?? body;
}

async function readNode(node: { name: string; http: string }): Promise<NodeStatus> {
  try {
    const [consensus, modules] = await Promise.all([resultOf(node.http, "/getConsensusInfo"), resultOf(node.http, "/getModulesStatus")]);
    const instances = (consensus.instances ?? []) as Json[];
    const newest = instances.reduce<Json | undefined>((a, b) => (!a || Number(b.seq) > Number(a.seq) ? b : a), undefined);
    const network = modules.peer_manager?.consensus_network ?? {};
    return {
      ...node,
      address: consensus.validator_address,
      is_leader: consensus.is_leader,
      leader: consensus.leader,
      view: Number(consensus.view_number),
      view_active: consensus.view_active,
      last_exe_seq: Number(consensus.last_exe_seq),
      phase: newest?.phase ?? "PHASE_COMMITED",
      peers: Number(network.peer_active_size ?? 0),
      pool: Number(modules.glue_manager?.transaction_pool?.queue_size ?? 0),
    };
  } catch (error) {
    return { ...node, error: describeFailure(error) };
  }
}

function describeFailure(error: unknown): string {
  const why = failure(error);
  if (why === "connection refused") return "not answering (connection refused)";
  if (why === "timeout") return `no answer within ${TIMEOUT_MS} ms`;
  return why;
}

/** Reads every node in parallel; a node that does not answer is reported, never fatal. */
export async function readNetworkStatus(nodes: { name: string; http: string }[]): Promise<NetworkStatus> {
  const statuses = await Promise.all(nodes.map(readNode));
  const seqs = statuses.filter((s) => s.last_exe_seq !== undefined).map((s) => s.last_exe_seq!);
  const common_seq = seqs.length > 0 ? Math.min(...seqs) : undefined;
  if (common_seq !== undefined) {
    await Promise.all(
      statuses
        .filter((s) => !s.error)
        .map(async (s) => {
          try {
            s.hash = (await resultOf(s.http, `/getLedger?seq=${common_seq}`)).header?.hash;
          } catch (error) {
            s.error = describeFailure(error);
          }
        }),
    );
  }
  const hashes = new Set(statuses.filter((s) => s.hash).map((s) => s.hash));
  return { common_seq, mismatch: hashes.size > 1, nodes: statuses };
}

/** The table of product.md §4: name, leader, view, last_exe_seq, phase, peers, pool, hash at the common seq. */
export function statusRows(status: NetworkStatus): string[][] {
  const header = ["name", "leader", "view", "last_exe_seq", "phase", "peers", "pool", `hash@${status.common_seq ?? "?"}`];
  const rows = status.nodes.map((n) =>
    n.error
      ? [n.name, "-", "-", "-", "-", "-", "-", `DOWN: ${n.error}`]
      : [
          n.name,
          n.is_leader ? "*" : "",
          `${n.view}${n.view_active ? "" : " (changing)"}`,
          String(n.last_exe_seq),
          (n.phase ?? "").replace(/^PHASE_/, ""),
          String(n.peers),
          String(n.pool),
          n.hash ? n.hash.slice(0, 16) + (status.mismatch ? " MISMATCH" : "") : "-",
        ],
  );
  return [header, ...rows];
}
