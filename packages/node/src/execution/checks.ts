import { contractLanguage } from "@chainsim/contracts";
import {
  ChainError,
  ErrorCode,
  OperationType,
  checkAddress,
  type Operation,
  type SignedTransaction,
  type Transaction,
} from "@chainsim/protocol";
import type { StateView } from "../state/state-view.js";
import { checkWeight, operationThreshold, type SignatureChecker } from "./authorization.js";
import { LIMITS, type ChainParams } from "./params.js";

/** Which nonces a check accepts: the pool keeps future nonces waiting, a ledger needs the next one. */
export type NonceRule = "next" | "not-behind";

const SUPPORTED = new Set([
  OperationType.CREATE_ACCOUNT,
  OperationType.SET_METADATA,
  OperationType.SET_SIGNER_WEIGHT,
  OperationType.SET_THRESHOLD,
  OperationType.PAY_COIN,
  OperationType.LOG,
  OperationType.SET_PRIVILEGE,
]);

/** Gas of a transaction (compat.md §6): its TransactionEnv size plus its contract creations' surcharge. */
export function gasOf(tx: SignedTransaction): bigint {
  return BigInt(tx.envSize) + creationGas(tx.transaction.operations ?? []);
}

/** The surcharge of every contract creation (CREATE_ACCOUNT with a payload) among `operations`. */
export function creationGas(operations: Operation[]): bigint {
  const creations = operations.filter((op) => op.type === OperationType.CREATE_ACCOUNT && op.create_account?.contract?.payload).length;
  return BigInt(creations) * LIMITS.contractGas;
}

/** The payloads of the wasm modules `operations` deploy (docs/wasm-abi.md §1). */
export function wasmDeployments(operations: Operation[]): string[] {
  return operations.flatMap((op) => {
    const contract = op.type === OperationType.CREATE_ACCOUNT ? op.create_account?.contract : undefined;
    return contract?.payload && contractLanguage(contract.type) === "wasm" ? [contract.payload] : [];
  });
}

export function actualFee(tx: SignedTransaction): bigint {
  return gasOf(tx) * (tx.transaction.gas_price ?? 0n);
}

/** Checks that need no state: shape, sizes, fees against limits, chain id, expiry, signatures. */
export function checkStatic(tx: SignedTransaction, params: ChainParams, ledgerSeq: bigint, signatures: SignatureChecker): void {
  const deploysWasm = wasmDeployments(tx.transaction.operations ?? []).length > 0;
  const limit = deploysWasm ? LIMITS.maxWasmDeployTxEnvBytes : LIMITS.maxTxEnvBytes;
  if (tx.envSize >= limit) {
    throw new ChainError(ErrorCode.TX_TOO_BIG, `transaction is ${tx.envSize} bytes; the limit is under ${limit >> 20} MiB${deploysWasm ? " for one that deploys wasm" : ""}`);
  }
  checkShape(tx.transaction, params, ledgerSeq);
  const fee = actualFee(tx);
  if ((tx.transaction.fee_limit ?? 0n) < fee) {
    throw new ChainError(
      ErrorCode.FEE_NOT_ENOUGH,
      `fee_limit ${tx.transaction.fee_limit ?? 0n} is below the fee ${fee} (gas ${gasOf(tx)} × gas_price ${tx.transaction.gas_price ?? 0n})`,
    );
  }
  if (tx.signatures.length === 0) throw new ChainError(ErrorCode.SIGNATURE_WEIGHT_NOT_ENOUGH, "transaction has no signature");
  signatures.signerAddresses(tx);
}

/** What a transaction must be whoever signs it: addresses, operations, nonce, chain, expiry, gas price. */
export function checkShape(t: Transaction, params: ChainParams, ledgerSeq: bigint): void {
  checkAddress(t.source_address ?? "", "source_address");
  const ops = t.operations ?? [];
  if (ops.length === 0) throw new ChainError(ErrorCode.MISSING_OPERATIONS, "transaction has no operations");
  if (ops.length > LIMITS.maxOperations) throw new ChainError(ErrorCode.TOO_MANY_OPERATIONS, `transaction has ${ops.length} operations; at most ${LIMITS.maxOperations}`);
  if ((t.nonce ?? 0n) <= 0n) throw new ChainError(ErrorCode.BAD_NONCE, "nonce must be at least 1");
  if ((t.domain_id ?? 0) !== 0) throw new ChainError(ErrorCode.DOMAIN_NOT_EXIST, `domain ${t.domain_id} does not exist`);
  if (t.chain_id !== undefined && t.chain_id !== params.chainId) {
    throw new ChainError(ErrorCode.INVALID_PARAMETER, `chain_id ${t.chain_id} is not this network's (${params.chainId})`);
  }
  if (t.ceil_ledger_seq !== undefined && t.ceil_ledger_seq < ledgerSeq) {
    throw new ChainError(ErrorCode.INVALID_PARAMETER, `ceil_ledger_seq ${t.ceil_ledger_seq} has passed (next ledger is ${ledgerSeq})`);
  }
  ops.forEach(checkOperationShape);
  const gasPrice = t.gas_price ?? 0n;
  if (gasPrice < params.gasPrice) throw new ChainError(ErrorCode.FEE_INVALID, `gas_price ${gasPrice} is below the network minimum ${params.gasPrice}`);
}

function checkOperationShape(op: Operation, i: number): void {
  const type = op.type ?? OperationType.UNKNOWN;
  if (!SUPPORTED.has(type)) throw new ChainError(ErrorCode.INVALID_PARAMETER, `operations[${i}]: type ${type} is not supported`);
  if (op.source_address !== undefined) checkAddress(op.source_address, `operations[${i}].source_address`);
  const body = {
    [OperationType.CREATE_ACCOUNT]: op.create_account,
    [OperationType.SET_METADATA]: op.set_metadata,
    [OperationType.SET_SIGNER_WEIGHT]: op.set_signer_weight,
    [OperationType.SET_THRESHOLD]: op.set_threshold,
    [OperationType.PAY_COIN]: op.pay_coin,
    [OperationType.LOG]: op.log,
    [OperationType.SET_PRIVILEGE]: op.set_privilege,
  }[type as number];
  if (!body) throw new ChainError(ErrorCode.INVALID_PARAMETER, `operations[${i}]: type ${type} needs its body field`);
  const contract = op.create_account?.contract;
  if (contract?.payload && !contractLanguage(contract.type)) {
    throw new ChainError(ErrorCode.CONTRACT_INVALID, `operations[${i}]: contract type ${contract.type} is not supported (0 is JavaScript, 2 and 3 are WebAssembly)`);
  }
  // Addresses are checked here, before signing costs anyone a fee; existence is a matter of state. A
  // contract created without dest_address gets a derived one.
  if (op.create_account && (op.create_account.dest_address || !contract?.payload)) {
    checkAddress(op.create_account.dest_address ?? "", `operations[${i}].create_account.dest_address`);
  }
  if (contract?.owner) checkAddress(contract.owner, `operations[${i}].create_account.contract.owner`);
  if (op.pay_coin) checkAddress(op.pay_coin.dest_address ?? "", `operations[${i}].pay_coin.dest_address`);
  const signers = [...(op.set_privilege?.signers ?? []), ...(op.set_signer_weight?.signers ?? []), ...(op.create_account?.priv?.signers ?? [])];
  signers.forEach((s, j) => checkAddress(s.address ?? "", `operations[${i}] signers[${j}].address`));
}

/** Checks against the state: source and operation sources exist, nonce, balance for the fee, weights. */
export async function checkState(
  tx: SignedTransaction,
  state: StateView,
  params: ChainParams,
  signatures: SignatureChecker,
  nonceRule: NonceRule,
): Promise<void> {
  const t = tx.transaction;
  const source = await state.account(t.source_address!);
  if (!source) throw new ChainError(ErrorCode.ACCOUNT_NOT_EXIST, `source account ${t.source_address} does not exist`);
  const expected = (source.nonce ?? 0n) + 1n;
  const nonce = t.nonce ?? 0n;
  if (nonce < expected || (nonceRule === "next" && nonce !== expected)) {
    throw new ChainError(ErrorCode.BAD_NONCE, `nonce ${nonce} is wrong; the next nonce of ${t.source_address} is ${expected}`);
  }
  const needed = (t.fee_limit ?? 0n) + params.baseReserve;
  if ((source.balance ?? 0n) < needed) {
    throw new ChainError(ErrorCode.LOW_RESERVE, `balance ${source.balance ?? 0n} is below fee_limit + base_reserve (${needed})`);
  }
  const signers = signatures.signerAddresses(tx);
  checkWeight(source, signers, source.priv?.thresholds?.tx_threshold ?? 0n, "this transaction");
  for (const [i, op] of (t.operations ?? []).entries()) {
    const opSource = op.source_address ? await state.account(op.source_address) : source;
    if (!opSource) throw new ChainError(ErrorCode.ACCOUNT_NOT_EXIST, `operations[${i}].source_address ${op.source_address} does not exist`);
    checkWeight(opSource, signers, operationThreshold(opSource, op.type ?? 0), `operations[${i}]`);
  }
}
