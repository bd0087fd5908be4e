import { MessageCodec } from "./codec.js";

// Value forms of the messages in proto/*.proto (see MessageCodec): int64 → bigint, bytes → Uint8Array,
// enums → number; an absent field means its proto3 default.

export enum OperationType {
  UNKNOWN = 0,
  CREATE_ACCOUNT = 1,
  ISSUE_ASSET = 2,
  PAY_ASSET = 3,
  SET_METADATA = 4,
  SET_SIGNER_WEIGHT = 5,
  SET_THRESHOLD = 6,
  PAY_COIN = 7,
  LOG = 8,
  SET_PRIVILEGE = 9,
  UPGRADE_CONTRACT = 10,
  SET_CONTROLLED_AREA = 11,
}

export enum ContractType {
  JAVASCRIPT = 0,
  EVM = 1,
  SYSTEM = 2,
  WASM = 3,
}

export interface Signer { address?: string; weight?: bigint }
export interface OperationTypeThreshold { type?: OperationType; threshold?: bigint }
export interface AccountThreshold { tx_threshold?: bigint; type_thresholds?: OperationTypeThreshold[] }
export interface AccountPrivilege { master_weight?: bigint; signers?: Signer[]; thresholds?: AccountThreshold }
export interface KeyPair { key?: string; value?: string; version?: bigint }
export interface AssetKey { issuer?: string; code?: string; type?: number }
export interface Asset { key?: AssetKey; amount?: bigint }
export interface OperationIssueAsset { code?: string; amount?: bigint }
export interface OperationPayAsset { dest_address?: string; asset?: Asset; input?: string; raw_dest_address?: Uint8Array }
export interface Contract { type?: ContractType; payload?: string; version?: bigint; owner?: string }

export interface OperationCreateAccount {
  dest_address?: string;
  contract?: Contract;
  priv?: AccountPrivilege;
  metadatas?: KeyPair[];
  init_balance?: bigint;
  init_input?: string;
  dest_public_key?: string;
  raw_dest_address?: Uint8Array;
}
export interface OperationPayCoin { dest_address?: string; amount?: bigint; input?: string; raw_dest_address?: Uint8Array }
export interface OperationSetMetadata { key?: string; value?: string; version?: bigint; delete_flag?: boolean }
export interface OperationSetSignerWeight { master_weight?: bigint; signers?: Signer[] }
export interface OperationSetThreshold { tx_threshold?: bigint; type_thresholds?: OperationTypeThreshold[] }
export interface OperationSetPrivilege {
  master_weight?: string;
  signers?: Signer[];
  tx_threshold?: string;
  type_thresholds?: OperationTypeThreshold[];
}
export interface OperationLog { topic?: string; datas?: string[] }
export interface OperationUpgradeContract { dest_address?: string; payload?: string; type?: bigint }
export interface OperationSetControlledArea { dest_address?: string; s_available?: boolean; metadatas?: KeyPair[] }

export interface Operation {
  type?: OperationType;
  source_address?: string;
  metadata?: Uint8Array;
  create_account?: OperationCreateAccount;
  issue_asset?: OperationIssueAsset;
  pay_asset?: OperationPayAsset;
  set_metadata?: OperationSetMetadata;
  set_signer_weight?: OperationSetSignerWeight;
  set_threshold?: OperationSetThreshold;
  pay_coin?: OperationPayCoin;
  log?: OperationLog;
  set_privilege?: OperationSetPrivilege;
  upgrade_contract?: OperationUpgradeContract;
  set_controlled_area?: OperationSetControlledArea;
  raw_source_address?: Uint8Array;
}

export interface Transaction {
  source_address?: string;
  nonce?: bigint;
  expr_condition?: string;
  operations?: Operation[];
  metadata?: Uint8Array;
  fee_limit?: bigint;
  gas_price?: bigint;
  ceil_ledger_seq?: bigint;
  chain_id?: bigint;
  address_prefix?: string;
  raw_source_address?: Uint8Array;
  domain_id?: number;
}

export interface Signature { public_key?: string; sign_data?: Uint8Array }

export interface Trigger {
  transaction_type?: number;
  ledger_seq?: bigint;
  transaction?: { hash?: Uint8Array; index?: bigint };
}

export interface TransactionEnv { transaction?: Transaction; signatures?: Signature[]; trigger?: Trigger }

export interface TransactionEnvStore {
  transaction_env?: TransactionEnv;
  error_code?: number;
  error_desc?: string;
  ledger_seq?: bigint;
  close_time?: bigint;
  hash?: Uint8Array;
  actual_fee?: bigint;
  contract_tx_hashes?: Uint8Array[];
}

export interface LedgerHeader {
  seq?: bigint;
  hash?: Uint8Array;
  previous_hash?: Uint8Array;
  account_tree_hash?: Uint8Array;
  close_time?: bigint;
  consensus_value_hash?: Uint8Array;
  version?: bigint;
  tx_count?: bigint;
  validators_hash?: Uint8Array;
  reserve?: string;
  fees_hash?: Uint8Array;
  chain_id?: bigint;
}

export interface Account {
  address?: string;
  nonce?: bigint;
  priv?: AccountPrivilege;
  metadatas_hash?: Uint8Array;
  assets_hash?: Uint8Array;
  contract?: Contract;
  balance?: bigint;
}

export interface WsMessage { type?: bigint; request?: boolean; sequence?: bigint; data?: Uint8Array }

/** WsMessage.type values (compat.md §9; ChainMessageType in chain.proto). */
export enum WsMessageType {
  PING = 1,
  HELLO = 10,
  TX_STATUS = 11,
  LEDGER_HEADER = 16,
  LEDGER_TXS = 18,
  SUBSCRIBE_TX = 19,
  TX_ENV_STORE = 20,
}

export enum TxStatus {
  UNDEFINED = 0,
  CONFIRMED = 1,
  PENDING = 2,
  COMPLETE = 3,
  FAILURE = 4,
  APPLY_FAILURE = 5,
}

export interface Ping { nonce?: bigint }
export interface ChainHello { api_list?: bigint[]; timestamp?: bigint }
/** protocol.ChainStatus, the answer to HELLO (not chainsim.ChainStatus, a validator's tip). */
export interface WsChainStatus {
  self_addr?: string;
  ledger_version?: bigint;
  monitor_version?: bigint;
  chain_version?: string;
  timestamp?: bigint;
  network_id?: bigint;
}
export interface ChainSubscribeTx { address?: string[] }
export interface ChainResponse { error_code?: number; error_desc?: string }
export interface ChainTxStatus {
  status?: TxStatus;
  tx_hash?: string;
  source_address?: string;
  source_account_seq?: bigint;
  ledger_seq?: bigint;
  new_account_seq?: bigint;
  error_code?: number;
  error_desc?: string;
  timestamp?: bigint;
}
export interface TransactionEnvResult {
  tran_env?: TransactionEnv;
  tx_hash?: string;
  error_code?: number;
  error_desc?: string;
  ledger_seq?: bigint;
  close_time?: bigint;
  actual_fee?: bigint;
  contract_tx_hashes?: Uint8Array[];
}
export interface LedgerTxs { header?: LedgerHeader; txs?: TransactionEnvResult[]; ledger_length?: bigint }

// chainsim's own formats (proto/chainsim.proto).
export interface RawTransactionEnv { transaction?: Uint8Array; signatures?: Signature[]; trigger?: Trigger }
export interface RawTransactionEnvStore extends Omit<TransactionEnvStore, "transaction_env"> {
  transaction_env?: RawTransactionEnv;
}
export interface RawTransactionEnvResult extends Omit<TransactionEnvResult, "tran_env"> {
  tran_env?: RawTransactionEnv;
}
export interface RawLedgerTxs { header?: LedgerHeader; txs?: RawTransactionEnvResult[]; ledger_length?: bigint }
export interface ConsensusValue {
  ledger_seq?: bigint;
  close_time?: bigint;
  previous_ledger_hash?: Uint8Array;
  txs?: RawTransactionEnv[];
  previous_proof?: Uint8Array;
  proposer?: string;
}
export interface Fees { base_reserve?: bigint; gas_price?: bigint }
export interface MetadataChange { key?: string; value?: KeyPair; deleted?: boolean }
export interface AssetChange { key?: AssetKey; value?: Asset; deleted?: boolean }
export interface AccountChange { account?: Account; metadatas?: MetadataChange[]; assets?: AssetChange[] }
export interface LedgerChanges { accounts?: AccountChange[] }
export interface StoredLedger {
  header?: LedgerHeader;
  value?: ConsensusValue;
  tx_hashes?: Uint8Array[];
  validators?: string[];
  fees?: Fees;
}

// PBFT messages between validators (proto/consensus.proto; @chainsim/consensus gives them meaning).
export interface PbftPrePrepare { view?: bigint; seq?: bigint; replica?: number; value_digest?: Uint8Array }
export interface PbftVote { view?: bigint; seq?: bigint; replica?: number; value_digest?: Uint8Array }
export interface PbftCheckpoint { seq?: bigint; state_digest?: Uint8Array; replica?: number }
export interface PbftSignedMessage { message?: Uint8Array; signature?: Uint8Array; value?: Uint8Array }
export interface PbftPreparedCertificate { pre_prepare?: PbftSignedMessage; prepares?: PbftSignedMessage[] }
export interface PbftViewChange {
  view?: bigint;
  stable_seq?: bigint;
  stable_digest?: Uint8Array;
  checkpoint_proof?: PbftSignedMessage[];
  prepared?: PbftPreparedCertificate[];
  replica?: number;
}
export interface PbftNewView { view?: bigint; view_changes?: PbftSignedMessage[]; pre_prepares?: PbftSignedMessage[]; replica?: number }
/** Exactly one field is set. */
export interface PbftMessage {
  pre_prepare?: PbftPrePrepare;
  prepare?: PbftVote;
  commit?: PbftVote;
  checkpoint?: PbftCheckpoint;
  view_change?: PbftViewChange;
  new_view?: PbftNewView;
}
export interface PbftCommitProof { commits?: PbftSignedMessage[] }

// Between validators, beside PBFT (proto/chainsim.proto).
export interface LedgerDecision { seq?: bigint; value?: Uint8Array; proof?: PbftCommitProof }
export interface SyncRequest { from_seq?: bigint; max_ledgers?: number }
export interface SyncResponse { decisions?: LedgerDecision[] }
export interface ChainStatus { ledger_seq?: bigint; ledger_hash?: Uint8Array }
export interface TxBatch { txs?: RawTransactionEnv[] }

export const codecs = {
  Transaction: new MessageCodec<Transaction>("protocol.Transaction"),
  Operation: new MessageCodec<Operation>("protocol.Operation"),
  Signature: new MessageCodec<Signature>("protocol.Signature"),
  TransactionEnv: new MessageCodec<TransactionEnv>("protocol.TransactionEnv"),
  TransactionEnvStore: new MessageCodec<TransactionEnvStore>("protocol.TransactionEnvStore"),
  LedgerHeader: new MessageCodec<LedgerHeader>("protocol.LedgerHeader"),
  Account: new MessageCodec<Account>("protocol.Account"),
  AccountPrivilege: new MessageCodec<AccountPrivilege>("protocol.AccountPrivilege"),
  KeyPair: new MessageCodec<KeyPair>("protocol.KeyPair"),
  Asset: new MessageCodec<Asset>("protocol.Asset"),
  WsMessage: new MessageCodec<WsMessage>("protocol.WsMessage"),
  Ping: new MessageCodec<Ping>("protocol.Ping"),
  Pong: new MessageCodec<Ping>("protocol.Pong"),
  ChainHello: new MessageCodec<ChainHello>("protocol.ChainHello"),
  WsChainStatus: new MessageCodec<WsChainStatus>("protocol.ChainStatus"),
  ChainSubscribeTx: new MessageCodec<ChainSubscribeTx>("protocol.ChainSubscribeTx"),
  ChainResponse: new MessageCodec<ChainResponse>("protocol.ChainResponse"),
  ChainTxStatus: new MessageCodec<ChainTxStatus>("protocol.ChainTxStatus"),
  LedgerTxs: new MessageCodec<LedgerTxs>("protocol.LedgerTxs"),
  RawTransactionEnv: new MessageCodec<RawTransactionEnv>("chainsim.RawTransactionEnv"),
  RawTransactionEnvStore: new MessageCodec<RawTransactionEnvStore>("chainsim.RawTransactionEnvStore"),
  RawLedgerTxs: new MessageCodec<RawLedgerTxs>("chainsim.RawLedgerTxs"),
  ConsensusValue: new MessageCodec<ConsensusValue>("chainsim.ConsensusValue"),
  Fees: new MessageCodec<Fees>("chainsim.Fees"),
  LedgerChanges: new MessageCodec<LedgerChanges>("chainsim.LedgerChanges"),
  StoredLedger: new MessageCodec<StoredLedger>("chainsim.StoredLedger"),
  PbftMessage: new MessageCodec<PbftMessage>("chainsim.PbftMessage"),
  PbftSignedMessage: new MessageCodec<PbftSignedMessage>("chainsim.PbftSignedMessage"),
  PbftCommitProof: new MessageCodec<PbftCommitProof>("chainsim.PbftCommitProof"),
  LedgerDecision: new MessageCodec<LedgerDecision>("chainsim.LedgerDecision"),
  SyncRequest: new MessageCodec<SyncRequest>("chainsim.SyncRequest"),
  SyncResponse: new MessageCodec<SyncResponse>("chainsim.SyncResponse"),
  ChainStatus: new MessageCodec<ChainStatus>("chainsim.ChainStatus"),
  TxBatch: new MessageCodec<TxBatch>("chainsim.TxBatch"),
};
