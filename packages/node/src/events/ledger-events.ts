import {
  TxStatus,
  canonicalAddress,
  codecs,
  toHex,
  touchedAddresses,
  type ChainTxStatus,
  type RawTransactionEnvResult,
  type RawTransactionEnvStore,
  type Transaction,
} from "@chainsim/protocol";
import type { ExecutedLedger } from "../execution/executor.js";

/** One record of a closed ledger as subscribers get it, encoded once for every client. */
export interface RecordEvent {
  /** Canonical addresses the transaction touches: source, operation sources, destinations. */
  touched: Set<string>;
  /** TransactionEnvStore bytes (RawTransactionEnvStore is wire-identical and keeps the signed bytes). */
  store: Uint8Array;
  result: RawTransactionEnvResult;
  /** Signed (not contract-made) transactions only: their COMPLETE / FAILURE status. */
  status?: Uint8Array;
  source: string;
}

/** What a closed ledger pushes: its header and its records in ledger order. */
export interface LedgerEvents {
  header: Uint8Array;
  ledger: ExecutedLedger;
  records: RecordEvent[];
}

export function ledgerEvents(ledger: ExecutedLedger): LedgerEvents {
  return { header: codecs.LedgerHeader.encode(ledger.header), ledger, records: ledger.records.map(recordEvent) };
}

function recordEvent(record: RawTransactionEnvStore): RecordEvent {
  const tx = codecs.Transaction.decode(record.transaction_env?.transaction ?? new Uint8Array());
  const source = canonicalAddress(tx.source_address ?? "");
  const contractMade = record.transaction_env?.trigger?.transaction_type === 1;
  const { transaction_env, hash, ...rest } = record;
  return {
    touched: touchedAddresses(tx),
    store: codecs.RawTransactionEnvStore.encode(record),
    result: { ...rest, tran_env: transaction_env, tx_hash: hash && toHex(hash) },
    status: contractMade ? undefined : codecs.ChainTxStatus.encode(completed(record, tx, source)),
    source,
  };
}

function completed(record: RawTransactionEnvStore, tx: Transaction, source: string): ChainTxStatus {
  const failed = (record.error_code ?? 0) !== 0;
  return {
    status: failed ? TxStatus.FAILURE : TxStatus.COMPLETE,
    tx_hash: toHex(record.hash!),
    source_address: source,
    source_account_seq: tx.nonce,
    ledger_seq: record.ledger_seq,
    // A transaction's nonce is used up whether it succeeded or not.
    new_account_seq: tx.nonce,
    error_code: record.error_code,
    error_desc: record.error_desc,
    timestamp: record.close_time,
  };
}
