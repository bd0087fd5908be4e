import { ChainError, ErrorCode, SignedTransaction, codecs, type Transaction } from "@chainsim/protocol";
import type { StateView } from "../state/state-view.js";
import { gasOf } from "./checks.js";
import { applyOperation } from "./operations.js";
import type { ChainParams } from "./params.js";

/** What a signature adds to the TransactionEnv: a 70-character public key and 64 signature bytes. */
const PLACEHOLDER_SIGNATURE = { public_key: "b06566" + "00".repeat(32), sign_data: new Uint8Array(64) };

export interface Simulation {
  transaction: Transaction;
  gas: bigint;
  actualFee: bigint;
  hashHex: string;
}

/**
 * testTransaction: runs a transaction's operations on a throwaway state and prices it as if signed by
 * `signatureCount` keys. `fee_limit` becomes the fee itself (the smallest limit that pays), and nothing is
 * written. Throws ChainError with the code the real transaction would fail with.
 */
export async function simulateTransaction(state: StateView, params: ChainParams, input: Transaction, signatureCount: number): Promise<Simulation> {
  const source = input.source_address ?? "";
  const account = await state.account(source);
  if (!account) throw new ChainError(ErrorCode.ACCOUNT_NOT_EXIST, `source account ${source} does not exist`);
  const transaction: Transaction = { ...input, nonce: input.nonce ?? (account.nonce ?? 0n) + 1n, gas_price: input.gas_price ?? params.gasPrice };
  if ((transaction.operations ?? []).length === 0) throw new ChainError(ErrorCode.MISSING_OPERATIONS, "transaction has no operations");
  for (const op of transaction.operations ?? []) await applyOperation(state, params, op.source_address ?? source, op);
  // fee_limit is part of the priced bytes, so iterate until the fee stops moving (two rounds at most).
  let priced = price(transaction, signatureCount);
  while (priced.actualFee !== transaction.fee_limit) {
    transaction.fee_limit = priced.actualFee;
    priced = price(transaction, signatureCount);
  }
  return { transaction, ...priced };
}

function price(transaction: Transaction, signatureCount: number): { gas: bigint; actualFee: bigint; hashHex: string } {
  const signed = new SignedTransaction(codecs.Transaction.encode(transaction), Array(signatureCount).fill(PLACEHOLDER_SIGNATURE));
  const gas = gasOf(signed);
  return { gas, actualFee: gas * (transaction.gas_price ?? 0n), hashHex: signed.hashHex };
}
