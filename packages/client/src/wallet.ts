import {
  ErrorCode,
  checkAddress,
  codecs,
  signBlob,
  toHex,
  toInt64,
  transactionHash,
  type Operation,
  type SignatureJson,
  type Transaction,
} from "@chainsim/protocol";
import type { TransactionRecord } from "./api-types.js";
import { ApiError, TransactionTimeoutError, expectOk } from "./errors.js";
import type { ChainsimClient } from "./http-client.js";
import type { Keypair } from "./keys.js";
import type { Int64Input } from "./operations.js";

/** The defaults of existing clients; they cover a plain transaction at the default minimum gas price (compat.md §6). */
export const DEFAULT_FEE_LIMIT = 1_000_000n;
export const DEFAULT_GAS_PRICE = 100n;

export interface SendTransactionOptions {
  /** Every key signs the blob; their weights must reach the source account's threshold. */
  signers: Keypair[];
  /** Default: the first signer's address. */
  source?: string;
  operations: Operation[];
  /** Default: the source account's nonce + 1, read from the node. */
  nonce?: Int64Input;
  feeLimit?: Int64Input;
  gasPrice?: Int64Input;
  metadata?: Uint8Array;
  /** The transaction is refused once the chain is past this ledger. */
  ceilLedgerSeq?: Int64Input;
  chainId?: Int64Input;
}

export interface SentTransaction {
  /** sha256 of the blob, hex. */
  hash: string;
  /** The submitted transaction_blob, hex. */
  blob: string;
}

/**
 * Builds, encodes and signs the transaction locally (no private key leaves the process) and submits it.
 * Resolves once the node accepted it into its pool, with ApiError when it refused it; inclusion in a
 * ledger is `waitForTransaction`'s job.
 */
export async function sendTransaction(client: ChainsimClient, options: SendTransactionOptions): Promise<SentTransaction> {
  const [firstSigner] = options.signers;
  if (!firstSigner) throw new TypeError("sendTransaction needs at least one signer");
  const source = checkAddress(options.source ?? firstSigner.address, "source");
  const nonce = options.nonce === undefined ? (await getNonce(client, source)) + 1n : toInt64(options.nonce, "nonce");
  const transaction: Transaction = {
    source_address: source,
    nonce,
    operations: options.operations,
    fee_limit: toInt64(options.feeLimit ?? DEFAULT_FEE_LIMIT, "fee_limit"),
    gas_price: toInt64(options.gasPrice ?? DEFAULT_GAS_PRICE, "gas_price"),
    ...(options.metadata && { metadata: options.metadata }),
    ...(options.ceilLedgerSeq !== undefined && { ceil_ledger_seq: toInt64(options.ceilLedgerSeq, "ceil_ledger_seq") }),
    ...(options.chainId !== undefined && { chain_id: toInt64(options.chainId, "chain_id") }),
  };
  const blob = codecs.Transaction.encode(transaction);
  const item = { transaction_blob: toHex(blob), signatures: await signTransactionBlob(blob, options.signers) };
  const [result] = expectOk(await client.submitTransaction([item])).results ?? [];
  if (!result) throw new ApiError(ErrorCode.INTERNAL, "submitTransaction answered without a result");
  expectOk(result);
  return { hash: toHex(transactionHash(blob)), blob: item.transaction_blob };
}

/** One signature per key over the raw blob bytes, in the form submitTransaction takes. */
export function signTransactionBlob(blob: Uint8Array, keypairs: Keypair[]): Promise<SignatureJson[]> {
  return Promise.all(keypairs.map((keypair) => signBlob(keypair.signer, blob)));
}

/** The account's current nonce (0 when it never sent a transaction); ApiError(4) when it does not exist. */
export async function getNonce(client: ChainsimClient, address: string): Promise<bigint> {
  const { result } = expectOk(await client.getAccountBase(address));
  return result.nonce === undefined ? 0n : toInt64(result.nonce, "nonce");
}

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Polls getTransactionHistory until the transaction's record exists and returns it. The record may carry
 * a non-zero error_code: a transaction that failed during apply is still recorded (compat.md §6).
 * Throws TransactionTimeoutError after `timeoutMs`, and ApiError for any answer other than "not found".
 */
export async function waitForTransaction(
  client: ChainsimClient,
  hash: string,
  { timeoutMs = 30_000, intervalMs = 100 }: WaitOptions = {},
): Promise<TransactionRecord> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await client.getTransactionHistory({ hash });
    if (response.error_code !== ErrorCode.NOT_EXIST) {
      const record = expectOk(response).result.transactions[0];
      if (record) return record;
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new TransactionTimeoutError(hash, timeoutMs);
    await sleep(Math.min(intervalMs, remaining));
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
