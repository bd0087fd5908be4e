import { ChainError, ErrorCode, addressFromPublicKey, checkAddress, decodePrivateKey, decodePublicKey, toInt64 } from "@chainsim/protocol";
import { LOG_LEVELS, type LogLevel } from "./logging/node-log.js";

/**
 * Everything one validator process needs, as `chainsim node --config FILE` reads it (JSON). The CLI
 * generates these files from a network manifest; docs/networks.md documents every key.
 */
export interface NodeConfig {
  /** Network name; part of the genesis, so a data directory cannot be reused by another network. */
  network: string;
  /** This validator's name in the manifest (v1, v2, …). */
  node_name: string;
  /** Directory holding account_db, keyvalue_db and ledger_db. */
  data_dir: string;
  webserver: { listen_addresses: string };
  wsserver: { listen_address: string };
  p2p: { listen_address: string; peers: PeerConfig[] };
  /** This validator's signing key (priSPK…). */
  validator: { private_key: string };
  /** Validator addresses in replica order; the primary of view v is validators[v mod n]. */
  validators: string[];
  genesis: GenesisConfig;
  consensus: ConsensusConfig;
  contracts: ContractsConfig;
  /** What one validator accepts from clients and peers; each validator may set its own (docs/operations.md, "Limits"). */
  limits: LimitsConfig;
  dev: { private_key_endpoints: boolean };
  /** fault_seed seeds the fault plane's draws (probabilities, jitter) so a scenario run repeats; random when absent. */
  debug: { fault_injection: boolean; fault_seed?: number };
  /** The lowest level written to node.log and stdout (docs/operations.md, "Logs"); info when absent. */
  log_level: LogLevel;
}

/** Another validator this one talks to: its libp2p identity follows from `public_key`. */
export interface PeerConfig {
  /** Its validator address; must be the address of `public_key`. */
  address: string;
  /** Its Ed25519 public key (b06566…). */
  public_key: string;
  host: string;
  port: number;
}

export interface GenesisConfig {
  /** Address of the genesis account, which holds the whole initial balance. */
  account: string;
  balance: bigint;
  gas_price: bigint;
  base_reserve: bigint;
  chain_id: bigint;
  /** Close time (µs) of ledger 1; the same on every validator. */
  close_time: bigint;
}

export interface ConsensusConfig {
  close_interval_ms: number;
  empty_close_interval_ms: number;
  view_timeout_ms: number;
  ckp_interval: number;
  max_txs_per_ledger: number;
}

/** Network settings of contract execution (contract-runtime.md §2): every validator must use the same. */
export interface ContractsConfig {
  /** Steps per user transaction, shared by nested calls. */
  steps: number;
  /** Steps one Chain.* / Utils.* call costs. */
  builtin_steps: number;
  /** Deployment lints contracts as the family does (contract-runtime.md §2): 152 with the warnings. */
  lint: boolean;
}

/**
 * Bounds on what clients and peers can make a validator hold: past each one a request gets a clear error
 * naming the setting (docs/operations.md, "Limits"). Local to a validator: they never change a ledger.
 */
export interface LimitsConfig {
  /** Largest HTTP request body; a larger one is answered 413. */
  http_body_bytes: number;
  /** Request bodies received and not yet answered, all together; past it the largest is answered 114. */
  http_bodies_in_flight_bytes: number;
  /** Transactions in one submitTransaction request. */
  submit_items: number;
  /** Transactions waiting in the pool, and their bytes; past either the pool makes room or answers 114. */
  pool_transactions: number;
  pool_bytes: number;
  /** Transactions of one source account waiting in the pool. */
  pool_per_account: number;
  /** A transaction still waiting after this long is dropped from the pool. */
  pool_expiry_ms: number;
  /** libp2p connections at once (only validators are admitted; the rest is room for reconnects). */
  p2p_connections: number;
  /** Penalty points at which a misbehaving validator is banned, and for how long (docs/networks.md, "Hostile peers"). */
  p2p_penalty_threshold: number;
  p2p_ban_ms: number;
  /** WebSocket clients at once; one more is closed with code 1013 and the reason. */
  ws_clients: number;
  /** Bytes queued to one WebSocket client that does not read; past it the client is disconnected. */
  ws_send_buffer_bytes: number;
  /** Largest WebSocket message a client may send. */
  ws_message_bytes: number;
}

/** The longest delay Node's timers take as given. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const DEFAULT_LIMITS: LimitsConfig = {
  http_body_bytes: 16 << 20,
  http_bodies_in_flight_bytes: 64 << 20,
  submit_items: 1000,
  pool_transactions: 10_240,
  pool_bytes: 64 << 20,
  pool_per_account: 64,
  pool_expiry_ms: 10 * 60 * 1000,
  p2p_connections: 64,
  p2p_penalty_threshold: 50,
  p2p_ban_ms: 60_000,
  ws_clients: 256,
  ws_send_buffer_bytes: 16 << 20,
  ws_message_bytes: 1 << 20,
};

export const DEFAULT_CONTRACTS: ContractsConfig = { steps: 10_240, builtin_steps: 100, lint: false };

export const DEFAULT_CONSENSUS: ConsensusConfig = {
  close_interval_ms: 1000,
  empty_close_interval_ms: 10000,
  view_timeout_ms: 2000,
  ckp_interval: 10,
  max_txs_per_ledger: 10000,
};

/** Splits a validated `host:port` config value (webserver, wsserver, p2p addresses) at its last colon. */
export function parseHostPort(text: string): { host: string; port: number } {
  const colon = text.lastIndexOf(":");
  const host = text.slice(0, colon);
  const port = Number(text.slice(colon + 1));
  if (colon <= 0 || !/^\d+$/.test(text.slice(colon + 1)) || port > 65535) throw new Error(`${JSON.stringify(text)} is not host:port`);
  return { host, port };
}

/** Validates a parsed config file; ChainError(2) naming the first bad key. */
export function parseNodeConfig(json: unknown): NodeConfig {
  const c = json as Partial<NodeConfig> & Record<string, unknown>;
  const fail = (key: string, why: string): never => {
    throw new ChainError(ErrorCode.INVALID_PARAMETER, `config: ${key} ${why}`);
  };
  if (!c || typeof c !== "object") fail("file", "should hold a JSON object");
  const text = (key: string, value: unknown) => (typeof value === "string" && value.length > 0 ? value : fail(key, "should be a non-empty string"));
  const hostPort = (key: string, value: unknown) => (/^[^:]+:\d+$/.test(text(key, value)) ? (value as string) : fail(key, "should be host:port"));
  const g = (c.genesis ?? fail("genesis", "is missing")) as unknown as Record<string, unknown>;
  const cons = { ...DEFAULT_CONSENSUS, ...(c.consensus ?? {}) } as ConsensusConfig;
  const contracts = { ...DEFAULT_CONTRACTS, ...(c.contracts ?? {}) } as ContractsConfig;
  const limits = { ...DEFAULT_LIMITS, ...(c.limits ?? {}) } as LimitsConfig;
  const defaults = { consensus: DEFAULT_CONSENSUS, contracts: DEFAULT_CONTRACTS, limits: DEFAULT_LIMITS };
  for (const [section, values] of [["consensus", cons], ["contracts", contracts], ["limits", limits]] as const) {
    for (const [key, value] of Object.entries(values)) {
      const fallback = (defaults[section] as unknown as Record<string, unknown>)[key];
      if (fallback === undefined) fail(`${section}.${key}`, "is not a setting");
      if (typeof fallback === "boolean") {
        if (typeof value !== "boolean") fail(`${section}.${key}`, "should be true or false");
      } else if (!Number.isInteger(value) || (value as number) <= 0) fail(`${section}.${key}`, "should be a positive integer");
    }
  }
  // Node's timers fire a delay above 2^31-1 ms at once: a longer ban or expiry would do the opposite of what it says.
  for (const [key, value] of Object.entries(limits)) if (key.endsWith("_ms") && value > MAX_TIMER_MS) fail(`limits.${key}`, `should be at most ${MAX_TIMER_MS} ms`);
  // A body larger than what may be in flight could never be taken, and its "retry later" would be a lie.
  if (limits.http_bodies_in_flight_bytes < limits.http_body_bytes) fail("limits.http_bodies_in_flight_bytes", `should be at least limits.http_body_bytes (${limits.http_body_bytes})`);
  const peers = parsePeers(c.p2p?.peers, fail);
  // Each peer needs a connection of its own; libp2p prunes connections past the limit.
  if (limits.p2p_connections < peers.length) fail("limits.p2p_connections", `should be at least the number of peers (${peers.length})`);
  decodePrivateKey(text("validator.private_key", c.validator?.private_key));
  const validators = Array.isArray(c.validators) && c.validators.length > 0 ? c.validators : fail("validators", "should be a non-empty array");
  validators.forEach((v, i) => checkAddress(v, `config: validators[${i}]`, ErrorCode.INVALID_PARAMETER));
  return {
    network: text("network", c.network),
    node_name: text("node_name", c.node_name),
    data_dir: text("data_dir", c.data_dir),
    webserver: { listen_addresses: hostPort("webserver.listen_addresses", c.webserver?.listen_addresses) },
    wsserver: { listen_address: hostPort("wsserver.listen_address", c.wsserver?.listen_address) },
    p2p: {
      listen_address: hostPort("p2p.listen_address", c.p2p?.listen_address),
      peers,
    },
    validator: { private_key: c.validator!.private_key },
    validators,
    genesis: {
      account: checkAddress(g.account, "config: genesis.account", ErrorCode.INVALID_PARAMETER),
      balance: toInt64(g.balance, "config: genesis.balance"),
      gas_price: toInt64(g.gas_price ?? 100, "config: genesis.gas_price"),
      base_reserve: toInt64(g.base_reserve ?? 0, "config: genesis.base_reserve"),
      chain_id: toInt64(g.chain_id ?? 0, "config: genesis.chain_id"),
      close_time: toInt64(g.close_time ?? 0, "config: genesis.close_time"),
    },
    consensus: cons,
    contracts,
    limits,
    dev: { private_key_endpoints: c.dev?.private_key_endpoints === true },
    debug: { fault_injection: c.debug?.fault_injection === true, ...faultSeed(c.debug?.fault_seed, fail) },
    log_level: logLevel(c.log_level, fail),
  };
}

function logLevel(value: unknown, fail: (key: string, why: string) => never): LogLevel {
  if (value === undefined) return "info";
  return (LOG_LEVELS as readonly unknown[]).includes(value) ? (value as LogLevel) : fail("log_level", `should be one of ${LOG_LEVELS.join(", ")}`);
}

function faultSeed(value: unknown, fail: (key: string, why: string) => never): { fault_seed?: number } {
  if (value === undefined) return {};
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) >= 2 ** 32) fail("debug.fault_seed", "should be an integer from 0 to 2^32-1");
  return { fault_seed: value as number };
}

function parsePeers(value: unknown, fail: (key: string, why: string) => never): PeerConfig[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return fail("p2p.peers", "should be an array of {address, public_key, host, port}");
  return value.map((peer: Partial<PeerConfig>, i) => {
    const key = `p2p.peers[${i}]`;
    if (!peer || typeof peer !== "object") fail(key, "should be an object {address, public_key, host, port}");
    const address = checkAddress(peer.address, `config: ${key}.address`, ErrorCode.INVALID_PARAMETER);
    let raw: Uint8Array;
    try {
      raw = decodePublicKey(peer.public_key as string);
    } catch {
      return fail(`${key}.public_key`, "should be an Ed25519 public key (b06566 + 64 hex digits)");
    }
    if (addressFromPublicKey(raw) !== address) fail(`${key}.public_key`, `is not the key of ${address}`);
    if (typeof peer.host !== "string" || !/^[^\s/]+$/.test(peer.host)) fail(`${key}.host`, "should be a host name or IP address");
    if (!Number.isInteger(peer.port) || peer.port! < 1 || peer.port! > 65535) fail(`${key}.port`, "should be a port number 1..65535");
    return { address, public_key: peer.public_key as string, host: peer.host!, port: peer.port! };
  });
}
