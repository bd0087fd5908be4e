import {
  ContractType,
  OperationType,
  checkAddress,
  toInt64,
  type AccountPrivilege,
  type KeyPair,
  type Operation,
  type OperationTypeThreshold,
  type Signer,
} from "@chainsim/protocol";

// Builders of protocol Operation values (int64 as bigint), ready for codecs.Transaction.encode.
// Integers may be given as bigint, safe number or numeric string; they are checked against the int64
// range here (ChainError 2) and addresses are checked too (ChainError 94), so mistakes fail before signing.

export type Int64Input = bigint | number | string;

/** Every builder accepts `source`: the operation then acts for that account (its privilege applies). */
export interface OperationOptions {
  source?: string;
}

export interface SignerWeightInput {
  address: string;
  weight: Int64Input;
}

export interface TypeThresholdInput {
  type: OperationType;
  threshold: Int64Input;
}

export interface MetadataInput {
  key: string;
  value: string;
  version?: Int64Input;
}

export function payCoin(dest: string, amount: Int64Input, options: OperationOptions & { input?: string } = {}): Operation {
  return operation(OperationType.PAY_COIN, options, {
    pay_coin: {
      dest_address: checkAddress(dest, "pay_coin.dest_address"),
      amount: toInt64(amount, "pay_coin.amount"),
      ...(options.input !== undefined && { input: options.input }),
    },
  });
}

/** `priv` defaults to master_weight 1, tx_threshold 1: the new account's own key alone can sign. */
export function createAccount(
  dest: string,
  options: OperationOptions & { initBalance: Int64Input; priv?: AccountPrivilege; metadatas?: MetadataInput[] },
): Operation {
  return operation(OperationType.CREATE_ACCOUNT, options, {
    create_account: {
      dest_address: checkAddress(dest, "create_account.dest_address"),
      priv: options.priv ?? { master_weight: 1n, thresholds: { tx_threshold: 1n } },
      ...(options.metadatas && { metadatas: options.metadatas.map(keyPair) }),
      init_balance: toInt64(options.initBalance, "create_account.init_balance"),
    },
  });
}

/**
 * CREATE_ACCOUNT of a contract (node-api.md, deployment workflow). Without `dest` the node derives the
 * address (compat.md §8) and reports it in the record's `error_desc`. `priv` defaults to the documented
 * master_weight 0, tx_threshold 1: no key acts for a contract account, only its code.
 */
export function createContract(
  payload: string,
  options: OperationOptions & {
    type?: ContractType;
    initBalance?: Int64Input;
    initInput?: string;
    dest?: string;
    priv?: AccountPrivilege;
  } = {},
): Operation {
  return operation(OperationType.CREATE_ACCOUNT, options, {
    create_account: {
      ...(options.dest !== undefined && { dest_address: checkAddress(options.dest, "create_account.dest_address") }),
      contract: { type: options.type ?? ContractType.JAVASCRIPT, payload },
      priv: options.priv ?? { thresholds: { tx_threshold: 1n } },
      ...(options.initBalance !== undefined && {
        init_balance: toInt64(options.initBalance, "create_account.init_balance"),
      }),
      ...(options.initInput !== undefined && { init_input: options.initInput }),
    },
  });
}

export function setMetadata(
  key: string,
  value: string,
  options: OperationOptions & { version?: Int64Input; deleteFlag?: boolean } = {},
): Operation {
  return operation(OperationType.SET_METADATA, options, {
    set_metadata: {
      key,
      value,
      ...(options.version !== undefined && { version: toInt64(options.version, "set_metadata.version") }),
      ...(options.deleteFlag !== undefined && { delete_flag: options.deleteFlag }),
    },
  });
}

/**
 * SET_PRIVILEGE. `master_weight` and `tx_threshold` are string fields in the proto, where "" (here: an
 * omitted option) means "unchanged"; the given integers are written as decimal strings.
 */
export function setPrivilege(
  options: OperationOptions & {
    masterWeight?: Int64Input;
    signers?: SignerWeightInput[];
    txThreshold?: Int64Input;
    typeThresholds?: TypeThresholdInput[];
  },
): Operation {
  return operation(OperationType.SET_PRIVILEGE, options, {
    set_privilege: {
      ...(options.masterWeight !== undefined && {
        master_weight: toInt64(options.masterWeight, "set_privilege.master_weight").toString(),
      }),
      ...(options.signers && { signers: options.signers.map((s) => signer(s, "set_privilege")) }),
      ...(options.txThreshold !== undefined && {
        tx_threshold: toInt64(options.txThreshold, "set_privilege.tx_threshold").toString(),
      }),
      ...(options.typeThresholds && { type_thresholds: options.typeThresholds.map((t) => typeThreshold(t, "set_privilege")) }),
    },
  });
}

export function setSignerWeight(options: OperationOptions & { masterWeight?: Int64Input; signers?: SignerWeightInput[] }): Operation {
  return operation(OperationType.SET_SIGNER_WEIGHT, options, {
    set_signer_weight: {
      ...(options.masterWeight !== undefined && {
        master_weight: toInt64(options.masterWeight, "set_signer_weight.master_weight"),
      }),
      ...(options.signers && { signers: options.signers.map((s) => signer(s, "set_signer_weight")) }),
    },
  });
}

export function setThreshold(
  options: OperationOptions & { txThreshold?: Int64Input; typeThresholds?: TypeThresholdInput[] },
): Operation {
  return operation(OperationType.SET_THRESHOLD, options, {
    set_threshold: {
      ...(options.txThreshold !== undefined && { tx_threshold: toInt64(options.txThreshold, "set_threshold.tx_threshold") }),
      ...(options.typeThresholds && { type_thresholds: options.typeThresholds.map((t) => typeThreshold(t, "set_threshold")) }),
    },
  });
}

export function log(topic: string, datas: string[], options: OperationOptions = {}): Operation {
  return operation(OperationType.LOG, options, { log: { topic, datas } });
}

function operation(type: OperationType, options: OperationOptions, body: Operation): Operation {
  return {
    type,
    ...(options.source !== undefined && { source_address: checkAddress(options.source, "source_address") }),
    ...body,
  };
}

function signer(input: SignerWeightInput, what: string): Signer {
  return {
    address: checkAddress(input.address, `${what}.signers.address`),
    weight: toInt64(input.weight, `${what}.signers.weight`),
  };
}

function typeThreshold(input: TypeThresholdInput, what: string): OperationTypeThreshold {
  return { type: input.type, threshold: toInt64(input.threshold, `${what}.type_thresholds.threshold`) };
}

function keyPair(input: MetadataInput): KeyPair {
  return {
    key: input.key,
    value: input.value,
    ...(input.version !== undefined && { version: toInt64(input.version, "create_account.metadatas.version") }),
  };
}
