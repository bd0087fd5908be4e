/**
 * What a running contract sees of the chain, as plain data. int64 amounts are decimal strings; seqs,
 * times and indexes are Numbers (they stay far below 2^53).
 */
export interface ContractEnvironment {
  thisAddress: string;
  block: { timestamp: number; number: number };
  tx: { initiator: string; sender: string; gasPrice: string; hash: string; feeLimit: string };
  msg: {
    initiator: string;
    sender: string;
    nonce: number;
    operationIndex: number;
    /** Absent in query. */
    coinAmount?: string;
    /** Only for payAsset. */
    asset?: { amount: string; key: { issuer: string; code: string } };
  };
}

/**
 * The chain side of the `Chain.*` built-ins, implemented by the node. Arguments arrive validated by the
 * built-in (types, counts); the host checks everything that needs state. A `BuiltinError` becomes a plain
 * string thrown in the contract; any other rejection fails the whole transaction with its own code, even
 * if the contract catches the exception (contract-runtime.md §4).
 */
export interface ContractHost {
  call(name: string, args: unknown[]): Promise<unknown>;
}

/** A failure a contract may observe and catch: thrown into it as a plain string. */
export class BuiltinError extends Error {}
