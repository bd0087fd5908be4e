import type { Json, SignatureJson } from "@chainsim/protocol";

// Shapes of the node API's JSON (node-api.md, compat.md §4), as parseJson returns them. Fields the specs
// leave open are typed loosely (Json); a node may send more fields than declared here.

/** A JSON integer: a number when it is a safe integer, a bigint beyond 2^53 (never rounded). */
export type Int = number | bigint;
/** An int64 in a request body: JSON number, bigint (written as digits) or numeric string. */
export type Int64Json = number | bigint | string;
export type JsonObject = { [key: string]: Json };

/** The envelope of most routes; `result` is null (or an empty value) when error_code ≠ 0. */
export interface ApiResponse<T> {
  error_code: number;
  error_desc?: string;
  result: T | null;
}

export interface HelloResponse {
  chain_version: string;
  current_time: string;
  hash_type: number;
  ledger_version: string;
  license_version: string;
  monitor_version: string;
  network_id: Int;
  overlay_version: string;
  websocket_address: number;
}

/** Keyed by module; some keys contain a space ("consensus manager", "web server"). */
export type ModulesStatusResponse = JsonObject;

export interface ConsensusInstance {
  commits: string[];
  cons_value: string;
  end_time: string;
  have_send_viewchange: boolean;
  last_propose_time: string;
  phase: string;
  phase_item: number;
  pre_prepare: string;
  pre_prepare_round: number;
  prepares: string[];
  seq: Int;
  start_time: string;
  vn: Int;
}

export interface ConsensusInfoResponse {
  abnormal_records: Json;
  ckp_interval: string | number;
  fault_number: number;
  instances: ConsensusInstance[];
  is_leader: boolean;
  last_exe_seq: Int;
  leader: string;
  quorum_size: number;
  replica_id: number;
  type: string;
  validator_address: string;
  validator_address_random: boolean;
  validators: string[];
  view_active: boolean;
  view_number: Int;
  viewchanges: Json;
}

export interface PrivilegeJson {
  master_weight?: Int;
  signers?: { address: string; weight: Int }[];
  thresholds?: { tx_threshold?: Int; type_thresholds?: { type: number; threshold: Int }[] };
}

export interface MetadataJson {
  key: string;
  value: string;
  version?: Int;
}

/** proto3 defaults are omitted: a missing `nonce` or `balance` means 0. */
export interface AccountJson {
  address: string;
  balance?: Int;
  nonce?: Int;
  assets_hash?: string;
  metadatas_hash?: string;
  priv?: PrivilegeJson;
  /** getAccount only. */
  assets?: Json[] | null;
  /** getAccount only; with `key`, just that entry. */
  metadatas?: MetadataJson[] | null;
  /** Contract accounts only. */
  contract?: { type?: number; payload?: string };
}

/** An operation in JSON form: `type` plus the body field of that type (pay_coin, create_account, …). */
export interface OperationJson {
  type: number | string;
  source_address?: string;
  [body: string]: unknown;
}

/** The Transaction structure as request bodies carry it (e.g. codecs.Transaction.toJson output). */
export interface TransactionJson {
  source_address: string;
  nonce: Int64Json;
  fee_limit: Int64Json;
  gas_price: Int64Json;
  operations: readonly OperationJson[];
  [field: string]: unknown;
}

export interface TransactionRecord {
  actual_fee: Int;
  /** Microsecond timestamp of the ledger close. */
  close_time: Int;
  error_code: number;
  /** For a contract creation: JSON `[{contract_address, contract_evm_address, operation_index}]`. */
  error_desc: string;
  hash: string;
  ledger_seq: Int;
  signatures: SignatureJson[];
  transaction: JsonObject;
  tx_size: Int;
  /** Hashes of the transactions its contracts made (each readable by hash). */
  contract_tx_hashes?: string[];
  /** On a contract-made transaction: the user transaction and operation that caused it. */
  trigger?: { transaction_type?: number; ledger_seq?: Int; transaction?: { hash?: string; index?: Int } };
}

export interface TransactionHistoryResult {
  total_count: Int;
  transactions: TransactionRecord[];
}

/** A pooled transaction of getTransactionCache. */
export interface CachedTransaction {
  hash: string;
  incoming_time: Int;
  status: string;
  transaction: JsonObject;
  signatures?: SignatureJson[];
}

export interface TransactionCacheResult {
  total_count?: Int;
  transactions: CachedTransaction[];
}

export interface TxCacheSizeResponse {
  error_code: number;
  error_desc?: string;
  queue_size: Int;
}

/** proto3 defaults are omitted. Hashes are hex. */
export interface LedgerHeaderJson {
  seq: Int;
  hash: string;
  previous_hash?: string;
  account_tree_hash?: string;
  close_time?: Int;
  consensus_value_hash?: string;
  version?: Int;
  tx_count?: Int;
  validators_hash?: string;
  fees_hash?: string;
  chain_id?: Int;
}

export interface LedgerResult {
  header: LedgerHeaderJson;
  ledger_length?: Int;
  /** With `with_leader`. */
  leader?: string;
  /** With `with_validator`. */
  validators?: string[];
  /** With `with_fee`. */
  fees?: { base_reserve?: Int; gas_price?: Int };
}

export interface TransactionBlobResult {
  hash: string;
  transaction_blob: string;
}

export interface SignatureResult {
  /** The blob that was signed. */
  data: string;
  public_key: string;
  sign_data: string;
}

/** One submitted transaction: a blob signed offline, or JSON the node signs (private keys sent: tests only). */
export type SubmitItem =
  | { transaction_blob: string; signatures: readonly SignatureJson[] }
  | { transaction_json: TransactionJson; private_keys: readonly string[] };

export interface SubmitResult {
  error_code: number;
  error_desc: string;
  hash: string;
}

export interface SubmitTransactionResponse {
  /** Only when the request as a whole is refused. */
  error_code?: number;
  error_desc?: string;
  results: SubmitResult[];
  success_count: number;
}

export interface TransactionHistoryPaging {
  start?: number;
  limit?: number;
}

/** By hash, or all transactions of a ledger, or (neither) the latest ones. */
export type TransactionHistoryQuery = TransactionHistoryPaging &
  ({ hash?: string; ledger_seq?: undefined } | { ledger_seq?: Int64Json; hash?: undefined });

export interface LedgerQuery {
  /** Default: the last closed ledger. */
  seq?: Int64Json;
  with_validator?: boolean;
  with_leader?: boolean;
  with_fee?: boolean;
}

/** The request shape of testTransaction is not in the specs; it is passed through as given. */
export type TestTransactionRequest = { [field: string]: unknown };

export interface TestTransactionResult {
  txs: {
    actual_fee: Int;
    transaction_env: { transaction: { fee_limit: Int; gas_price: Int } & JsonObject } & JsonObject;
  }[];
}

export interface CallContractRequest {
  contract_address?: string;
  /** Contract code; empty when calling by address. */
  code?: string;
  input?: string;
  contract_balance?: string;
  fee_limit?: Int64Json;
  gas_price?: Int64Json;
  /** 2 = query. */
  opt_type?: number;
  source_address?: string;
}

export interface QueryReturn {
  /** `type` is "string" or "bool". */
  result?: { type: string; value: Json };
  /** Set when the query threw (the response's error_code is then 151). */
  error?: { data?: { exception?: string; contract?: string } };
}

export interface CallContractResult {
  logs: Json;
  query_rets: QueryReturn[];
  stat: { apply_time: Int; memory_usage: Int; stack_usage: Int; step: Int };
  txs: Json;
}
