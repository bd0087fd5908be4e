// Deploying, calling and querying JavaScript contracts on a TestChain, shared by the contract tests.
import { expect } from "chai";
import { OperationType, SignedTransaction, toHex, type Operation, type RawTransactionEnvStore, type Transaction } from "@chainsim/protocol";
import { queryContract } from "../../src/execution/contracts/query.js";
import { recordCode, type Key, type TestChain } from "./chain.js";

/** fee_limit of contract transactions: a contract creation costs 1,000,000 gas × 100, plus its bytes. */
export const CONTRACT_FEE = 200_000_000n;

/** A CREATE_ACCOUNT of a JavaScript contract without dest_address (its address is derived). */
export function deployOp(code: string, initInput = "", initBalance = 0n): Operation {
  return {
    type: OperationType.CREATE_ACCOUNT,
    create_account: { contract: { payload: code }, init_balance: initBalance, init_input: initInput, priv: { thresholds: { tx_threshold: 1n } } },
  };
}

/** A PAY_COIN that runs the destination contract's main with `input`. */
export function callOp(dest: string, input: string, amount = 0n, source?: string): Operation {
  return { type: OperationType.PAY_COIN, source_address: source, pay_coin: { dest_address: dest, amount, input } };
}

/** Deploys `code` (with an empty init added when it has none) from `from`; returns the new contract's address. */
export async function deployContract(chain: TestChain, from: Key, code: string, initInput = "", initBalance = 0n): Promise<string> {
  const source = code.includes("function init") ? code : `${code}\nfunction init() {}`;
  const record = await chain.run(from, [deployOp(source, initInput, initBalance)], { fee_limit: CONTRACT_FEE });
  expect(recordCode(record), record.error_desc).to.equal(0);
  const [created] = JSON.parse(record.error_desc!) as { contract_address: string; contract_evm_address: string; operation_index: number }[];
  expect(created.contract_evm_address).to.equal("");
  expect(created.operation_index).to.equal(0);
  return created.contract_address;
}

/** Runs `contract`'s main with `input` (paying `amount`) in a transaction of its own; returns its record. */
export function invokeContract(chain: TestChain, from: Key, contract: string, input: string, amount = 0n): Promise<RawTransactionEnvStore> {
  return chain.run(from, [callOp(contract, input, amount)], { fee_limit: CONTRACT_FEE });
}

/** callContract (query) on the chain's committed state, as the HTTP route runs it: in the next ledger. */
export function queryOn(chain: TestChain, contract: string, input: string, source: string) {
  const tip = chain.ledgers.lastHeader;
  return queryContract(
    chain.contracts,
    chain.ledgers.stateView(),
    chain.ledgers.params,
    {
      seq: tip.seq! + 1n,
      closeTime: (tip.close_time ?? 0n) + 1n,
      ledgerHash: async (seq) => (await chain.ledgers.ledgers.ledger(seq))?.header?.hash,
    },
    { contractAddress: contract, input, source },
  );
}

/** The contract-made transactions of a user transaction's record, in order, with their decoded transaction. */
export async function contractTxsOf(chain: TestChain, record: RawTransactionEnvStore): Promise<{ record: RawTransactionEnvStore; transaction: Transaction }[]> {
  const out: { record: RawTransactionEnvStore; transaction: Transaction }[] = [];
  for (const hash of record.contract_tx_hashes ?? []) {
    const sub = await chain.ledgers.ledgers.record(toHex(hash));
    if (!sub) throw new Error(`contract transaction ${toHex(hash)} is not recorded`);
    out.push({ record: sub, transaction: SignedTransaction.fromEnv(sub.transaction_env!).transaction });
  }
  return out;
}
