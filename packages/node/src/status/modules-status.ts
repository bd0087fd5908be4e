import { uptime } from "node:os";
import type { Json } from "@chainsim/protocol";
import { parseHostPort } from "../config.js";
import type { NodeContext } from "../context.js";
import { DATABASE_NAMES } from "../storage/databases.js";
import { consensusInfo } from "./consensus-info.js";
import { formatTime } from "./time.js";

/** getModulesStatus: one object per module, key names exact (some contain a space). */
export async function modulesStatus(ctx: NodeContext): Promise<{ [key: string]: Json }> {
  const now = Date.now();
  const time = formatTime(now);
  const pool = ctx.txs.pool;
  const status: { [key: string]: Json } = {};
  for (const name of DATABASE_NAMES) {
    const db = ctx.dbs.dbs[name];
    status[name] = {
      disk_usage: await ctx.dbs.diskUsage(name),
      // LevelDB's figures under the key names existing tools read (they come from RocksDB).
      "rocksdb.cur-size-all-mem-tables": db.getProperty("leveldb.approximate-memory-usage"),
      "rocksdb.estimate-table-readers-mem": "0",
      "rocksdb.stats": db.getProperty("leveldb.stats"),
    };
  }
  const header = ctx.ledgers.lastHeader;
  status["consensus manager"] = { consensus: consensusInfo(ctx), time };
  status.glue_manager = {
    del_tx_count: pool.removed,
    new_tx_count: pool.added,
    ledger_upgrade: { current_states: {}, local_state: {} },
    system: { current_time: time, process_uptime: formatTime(ctx.startedAt), uptime: formatTime(now - uptime() * 1000) },
    time,
    transaction_pool: {
      account_nonce_size: pool.accountCount,
      queue_by_address_and_nonce_size: pool.size,
      queue_size: pool.size,
      time_queue_size: pool.size,
    },
  };
  status.ledger_manager = {
    account_count: ctx.ledgers.accountCount,
    chain_max_ledger_seq: ctx.consensus.networkTip,
    hash_type: "sha256",
    lcl_header_space_used: ctx.ledgers.headerSize,
    ledger_context: { completed_size: ctx.ledgers.closedSinceStart, running_size: ctx.ledgers.closingNow ? 1 : 0 },
    ledger_sequence: header.seq!,
    sync: { peers: ctx.network.peers().map((p) => p.address), update_time: now },
    time: now,
    tx_count: ctx.ledgers.txCount,
    validation_address: ctx.validatorAddress,
  };
  const peers = ctx.network.peers();
  const connected = peers.filter((p) => p.connected);
  status.peer_manager = {
    consensus_network: {
      broad_bigdata_queue_size: 0,
      broad_record_couple_size: 0,
      broad_record_size: 0,
      broad_sendbuffer_size: peers.reduce((sum, p) => sum + p.queued, 0),
      node_rand: ctx.validatorAddress,
      peer_active_size: connected.length,
      peer_cache_size: 0,
      peer_cache_space_used: 0,
      peer_list_size: ctx.config.p2p.peers.length,
      peer_listdel_size: 0,
      peers: peers.map((p) => ({
        address: p.address,
        active: p.connected,
        remote: p.remote,
        connected_since: p.since === null ? "" : formatTime(p.since),
        messages_in: p.messagesIn,
        messages_out: p.messagesOut,
        bytes_in: p.bytesIn,
        bytes_out: p.bytesOut,
        queued: p.queued,
        dropped: p.dropped,
        reconnects: p.reconnects,
        last_error: p.lastError,
        misbehaviour: p.misbehaviour,
        penalty_score: Math.floor(p.penaltyScore),
        banned_until: p.bannedUntil === null ? "" : formatTime(p.bannedUntil),
      })),
      recv_peerlist_size: 0,
      tx_task_size: 0,
    },
    peer_node_address: ctx.config.p2p.listen_address,
    time,
  };
  status["web server"] = { context: false, ...ctx.webStats, thread_count: 1, time };
  status.websocket_server = { clients: ctx.events.clientStatus(), listen_port: parseHostPort(ctx.config.wsserver.listen_address).port, time };
  return status;
}
