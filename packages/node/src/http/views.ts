import {
  SignedTransaction,
  codecs,
  toHex,
  type Account,
  type Asset,
  type Json,
  type KeyPair,
  type LedgerHeader,
  type RawTransactionEnvStore,
} from "@chainsim/protocol";

// The JSON shapes the API returns (node-api.md, compat.md §4). proto3 defaults are omitted.

/** An account; a contract shows `{type, payload}` even for type 0, which proto3 would omit. */
export function accountJson(account: Account): { [key: string]: Json } {
  const json = codecs.Account.toJson(account);
  if (account.contract?.payload) {
    const { type = 0, payload, owner } = account.contract;
    json.contract = { type, payload, ...(owner && { owner }) };
  }
  return json;
}

export function assetJson(asset: Asset): { [key: string]: Json } {
  return { key: { issuer: asset.key?.issuer ?? "", code: asset.key?.code ?? "" }, amount: asset.amount ?? 0n };
}

export function metadataJson(kp: KeyPair): { [key: string]: Json } {
  return { key: kp.key ?? "", value: kp.value ?? "", version: kp.version ?? 0n };
}

/** A ledger header as getLedger shows it (the stored `reserve` field is not part of that shape). */
export function headerJson(header: LedgerHeader): { [key: string]: Json } {
  const json = codecs.LedgerHeader.toJson(header);
  delete json.reserve;
  return json;
}

/** A transaction record of getTransactionHistory. */
export function recordJson(record: RawTransactionEnvStore): { [key: string]: Json } {
  const tx = SignedTransaction.fromEnv(record.transaction_env!);
  const json: { [key: string]: Json } = {
    actual_fee: record.actual_fee ?? 0n,
    close_time: record.close_time ?? 0n,
    error_code: record.error_code ?? 0,
    error_desc: record.error_desc ?? "",
    hash: toHex(record.hash!),
    ledger_seq: record.ledger_seq ?? 0n,
    signatures: tx.signaturesJson() as unknown as Json,
    transaction: codecs.Transaction.toJson(tx.transaction),
    // The whole stored envelope: a contract-made transaction's trigger counts, as it does for its gas.
    tx_size: codecs.RawTransactionEnv.encode(record.transaction_env!).length,
  };
  if (record.contract_tx_hashes?.length) json.contract_tx_hashes = record.contract_tx_hashes.map(toHex);
  if (record.transaction_env?.trigger) json.trigger = codecs.TransactionEnv.toJson({ trigger: record.transaction_env.trigger }).trigger;
  return json;
}

/** A pooled transaction of getTransactionCache. */
export function pendingJson(tx: SignedTransaction, incomingTime: number): { [key: string]: Json } {
  return {
    hash: tx.hashHex,
    incoming_time: BigInt(incomingTime) * 1000n,
    status: "processing",
    signatures: tx.signaturesJson() as unknown as Json,
    transaction: codecs.Transaction.toJson(tx.transaction),
    tx_size: tx.envSize,
  };
}
