import { ChainError, ErrorCode, INT64_MAX, SignedTransaction, checkAddress, codecs, type Transaction } from "@chainsim/protocol";
import type { StateView } from "../state/state-view.js";
import { checkShape, gasOf } from "./checks.js";
import { ContractRun, type LedgerPosition } from "./contracts/engine.js";
import type { ContractSupport } from "./executor.js";
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
 * testTransaction: runs a transaction's operations, and the contracts they reach, on a throwaway state and
 * prices it as if signed by `signatureCount` keys, its contracts' transactions included. `fee_limit`
 * becomes the fee itself (the smallest limit that pays), and nothing is written. The checks of a submission
 * apply except signatures; throws ChainError with the code the real transaction would fail with.
 */
export async function simulateTransaction(
  contracts: ContractSupport,
  state: StateView,
  params: ChainParams,
  ledger: LedgerPosition,
  input: Transaction,
  signatureCount: number,
): Promise<Simulation> {
  const source = checkAddress(input.source_address ?? "", "source_address");
  const account = await state.account(source);
  if (!account) throw new ChainError(ErrorCode.ACCOUNT_NOT_EXIST, `source account ${source} does not exist`);
  const next = (account.nonce ?? 0n) + 1n;
  const transaction: Transaction = { ...input, nonce: input.nonce ?? next, gas_price: input.gas_price ?? params.gasPrice };
  checkShape(transaction, params, ledger.seq);
  if (transaction.nonce! < next) throw new ChainError(ErrorCode.BAD_NONCE, `nonce ${transaction.nonce} is behind; the next nonce of ${source} is ${next}`);
  // No fee limit while estimating: the estimate is what the limit must be.
  const run = new ContractRun(contracts.runtime, contracts.limits, state, params, ledger, {
    // A hash of the real size: contract-made transactions carry it in their trigger, and are priced by size.
    hash: new Uint8Array(32),
    hashHex: "",
    source,
    nonce: transaction.nonce!,
    feeLimit: INT64_MAX,
    gasPrice: transaction.gas_price!,
    baseGas: 0n,
  });
  for (const [index, op] of (transaction.operations ?? []).entries()) {
    const opSource = op.source_address ?? source;
    await applyOperation(state, params, opSource, op, run.operationHooks(index, opSource));
  }
  // fee_limit is part of the priced bytes, so iterate until the fee stops moving (two rounds at most).
  let priced = price(transaction, signatureCount, run.extraGas);
  while (priced.actualFee !== transaction.fee_limit) {
    transaction.fee_limit = priced.actualFee;
    priced = price(transaction, signatureCount, run.extraGas);
  }
  const needed = priced.actualFee + params.baseReserve;
  if ((account.balance ?? 0n) < needed) {
    throw new ChainError(ErrorCode.LOW_RESERVE, `balance ${account.balance ?? 0n} is below the fee + base_reserve (${needed})`);
  }
  return { transaction, ...priced };
}

function price(transaction: Transaction, signatureCount: number, contractGas: bigint): { gas: bigint; actualFee: bigint; hashHex: string } {
  const signed = new SignedTransaction(codecs.Transaction.encode(transaction), Array(signatureCount).fill(PLACEHOLDER_SIGNATURE));
  const gas = gasOf(signed) + contractGas;
  return { gas, actualFee: gas * (transaction.gas_price ?? 0n), hashHex: signed.hashHex };
}
