import {
  ChainError,
  ErrorCode,
  INT64_MAX,
  OperationType,
  addInt64,
  checkAddress,
  sha256,
  toInt64,
  utf8,
  type Account,
  type AccountPrivilege,
  type Asset,
  type AssetKey,
  type Contract,
  type Operation,
  type OperationTypeThreshold,
  type Signer,
} from "@chainsim/protocol";
import type { StateView } from "../state/state-view.js";
import { LIMITS, type ChainParams } from "./params.js";
import { ASSETS, METADATA, assetId } from "../state/entries.js";

/** sha256 of nothing: the metadatas_hash / assets_hash of an account that has none. */
export const EMPTY_HASH = sha256(new Uint8Array());

/** A new account: hashes filled so that every stored account has the same shape. */
export function newAccount(address: string, balance: bigint, priv: AccountPrivilege): Account {
  return { address, balance, priv, metadatas_hash: EMPTY_HASH, assets_hash: EMPTY_HASH };
}

/** The privilege of an account created by a payment: its own key controls it. */
export const DEFAULT_PRIVILEGE: AccountPrivilege = { master_weight: 1n, thresholds: { tx_threshold: 1n } };

const fail = (code: ErrorCode, message: string): never => {
  throw new ChainError(code, message);
};

/**
 * Where operations meet contracts: the executor's contract engine implements these; without them (fee
 * estimates of plain transactions) an operation that needs a contract fails.
 */
export interface ContractHooks {
  /** Address of a contract created without dest_address (compat.md §8). */
  deriveContractAddress(): string;
  /** Refuses code that cannot be deployed (152, 155, 156). */
  validateContract(contract: Contract): Promise<void>;
  /** Runs `init` of a contract account just created; a failure fails the operation. */
  contractCreated(address: string, initInput: string, initBalance: bigint): Promise<void>;
  /** Runs `main` of a contract account just paid; resolves with what main returned. */
  contractPaid(address: string, payment: Payment, input: string): Promise<unknown>;
}

/** What a payment brought a contract: coins, or an asset (`Chain.msg.coinAmount` / `Chain.msg.asset`). */
export type Payment = { coin: bigint } | { asset: Asset };

/** Applies one operation to the state; throws ChainError, and the caller rolls the transaction back. */
export async function applyOperation(state: StateView, params: ChainParams, source: string, op: Operation, hooks?: ContractHooks): Promise<void> {
  switch (op.type) {
    case OperationType.CREATE_ACCOUNT:
      return createAccount(state, params, source, op.create_account!, hooks);
    case OperationType.PAY_COIN:
      return payCoin(state, params, source, op.pay_coin!, hooks);
    case OperationType.ISSUE_ASSET:
      return issueAsset(state, source, op.issue_asset!);
    case OperationType.PAY_ASSET:
      return payAsset(state, params, source, op.pay_asset!, hooks);
    case OperationType.SET_METADATA:
      return setMetadata(state, source, op.set_metadata!);
    case OperationType.SET_PRIVILEGE:
      return updatePrivilege(state, source, (priv) => setPrivilege(priv, source, op.set_privilege!));
    case OperationType.SET_SIGNER_WEIGHT:
      return updatePrivilege(state, source, (priv) => setSignerWeight(priv, source, op.set_signer_weight!));
    case OperationType.SET_THRESHOLD:
      return updatePrivilege(state, source, (priv) => setThreshold(priv, op.set_threshold!));
    case OperationType.LOG:
      return checkLog(op.log!);
    default:
      fail(ErrorCode.INVALID_PARAMETER, `operation type ${op.type} is not supported`);
  }
}

async function requireAccount(state: StateView, address: string): Promise<Account> {
  return (await state.account(address)) ?? fail(ErrorCode.ACCOUNT_NOT_EXIST, `account ${address} does not exist`);
}

/** Takes `amount` from `source`, keeping `reserve`; ChainError(100) when it cannot. */
export async function debit(state: StateView, source: string, amount: bigint, reserve: bigint): Promise<void> {
  const account = await requireAccount(state, source);
  const balance = account.balance ?? 0n;
  if (balance - amount < reserve) {
    fail(ErrorCode.LOW_RESERVE, `balance ${balance} of ${source} cannot pay ${amount} and keep the base reserve ${reserve}`);
  }
  account.balance = balance - amount;
  state.putAccount(account);
}

function contractHooks(hooks: ContractHooks | undefined): ContractHooks {
  return hooks ?? fail(ErrorCode.CONTRACT_INVALID, "contracts cannot run here");
}

async function createAccount(
  state: StateView,
  params: ChainParams,
  source: string,
  body: NonNullable<Operation["create_account"]>,
  hooks: ContractHooks | undefined,
): Promise<void> {
  const contract = body.contract?.payload ? body.contract : undefined;
  if (contract) await contractHooks(hooks).validateContract(contract);
  const dest = checkAddress(
    body.dest_address || !contract ? (body.dest_address ?? "") : contractHooks(hooks).deriveContractAddress(),
    "create_account.dest_address",
  );
  if (dest === source) fail(ErrorCode.SOURCE_EQUALS_DESTINATION, "create_account.dest_address equals the source");
  if (await state.account(dest)) fail(ErrorCode.DESTINATION_EXISTS, `account ${dest} already exists`);
  const initBalance = body.init_balance ?? 0n;
  if (initBalance < 0n) fail(ErrorCode.INVALID_PARAMETER, "create_account.init_balance must not be negative");
  if (initBalance < params.baseReserve) {
    fail(ErrorCode.INIT_BALANCE_BELOW_RESERVE, `init_balance ${initBalance} is below the base reserve ${params.baseReserve}`);
  }
  const priv = body.priv ?? fail(ErrorCode.INVALID_PARAMETER, "create_account.priv is required");
  const checkedPriv: AccountPrivilege = {
    master_weight: weight(priv.master_weight ?? 0n, "priv.master_weight"),
    signers: mergeSigners([], priv.signers ?? [], dest),
    thresholds: {
      tx_threshold: threshold(priv.thresholds?.tx_threshold ?? 0n, "priv.thresholds.tx_threshold"),
      type_thresholds: mergeTypeThresholds([], priv.thresholds?.type_thresholds ?? []),
    },
  };
  await debit(state, source, initBalance, params.baseReserve);
  state.putAccount({ ...newAccount(dest, initBalance, checkedPriv), ...(contract && { contract: { type: contract.type, payload: contract.payload, owner: contract.owner } }) });
  for (const kp of body.metadatas ?? []) {
    const key = checkMetadata(kp.key ?? "", kp.value ?? "");
    state.putEntry(METADATA, dest, key, { key, value: kp.value, version: 1n });
  }
  if (contract) await contractHooks(hooks).contractCreated(dest, body.init_input ?? "", initBalance);
}

async function payCoin(
  state: StateView,
  params: ChainParams,
  source: string,
  body: NonNullable<Operation["pay_coin"]>,
  hooks: ContractHooks | undefined,
): Promise<void> {
  const dest = checkAddress(body.dest_address ?? "", "pay_coin.dest_address");
  const amount = body.amount ?? 0n;
  if (amount < 0n) fail(ErrorCode.INVALID_PARAMETER, "pay_coin.amount must not be negative");
  if (dest === source) fail(ErrorCode.SOURCE_EQUALS_DESTINATION, "pay_coin.dest_address equals the source");
  await debit(state, source, amount, params.baseReserve);
  const target = await payee(state, params, dest, amount);
  target.balance = addInt64(target.balance ?? 0n, amount, `balance of ${dest}`);
  state.putAccount(target);
  if (target.contract?.payload) await contractHooks(hooks).contractPaid(dest, { coin: amount }, body.input ?? "");
}

/**
 * The account at `dest`. A payment to an address nobody holds yet creates it (its own key controls it) if
 * the `coins` it brings reach the base reserve.
 */
async function payee(state: StateView, params: ChainParams, dest: string, coins: bigint): Promise<Account> {
  const account = await state.account(dest);
  if (account) return account;
  if (coins < params.baseReserve) {
    fail(ErrorCode.INIT_BALANCE_BELOW_RESERVE, `a payment of ${coins} coins cannot create ${dest}: below the base reserve ${params.baseReserve}`);
  }
  return newAccount(dest, 0n, DEFAULT_PRIVILEGE);
}

function checkAssetCode(code: string, what: string): string {
  wellFormed(code, what);
  if (code.length < 1 || code.length > LIMITS.assetCodeChars) fail(ErrorCode.INVALID_PARAMETER, `${what} should have 1 to ${LIMITS.assetCodeChars} characters`);
  return code;
}

/** Adds `delta` (may be negative) to `address`'s holding of `key`; a holding that reaches 0 is removed. */
async function addAsset(state: StateView, address: string, key: AssetKey, delta: bigint): Promise<void> {
  const id = assetId(key);
  const held = (await state.entry(ASSETS, address, id))?.amount ?? 0n;
  const amount = addInt64(held, delta, `asset ${key.code} of ${address}`);
  if (amount < 0n) fail(ErrorCode.LOW_RESERVE, `${address} holds ${held} of asset ${key.code} (issuer ${key.issuer}), not ${-delta}`);
  state.putEntry(ASSETS, address, id, amount === 0n ? null : { key: { issuer: key.issuer, code: key.code }, amount });
}

/** ISSUE_ASSET (from contracts only): the source creates `amount` of its own asset `code`. */
async function issueAsset(state: StateView, source: string, body: NonNullable<Operation["issue_asset"]>): Promise<void> {
  const code = checkAssetCode(body.code ?? "", "issue_asset.code");
  if ((body.amount ?? 0n) <= 0n) fail(ErrorCode.INVALID_PARAMETER, "issue_asset.amount must be positive");
  await requireAccount(state, source);
  await addAsset(state, source, { issuer: source, code }, body.amount!);
}

/** PAY_ASSET (from contracts only): moves an asset; paying a contract runs its main. */
async function payAsset(
  state: StateView,
  params: ChainParams,
  source: string,
  body: NonNullable<Operation["pay_asset"]>,
  hooks: ContractHooks | undefined,
): Promise<void> {
  const dest = checkAddress(body.dest_address ?? "", "pay_asset.dest_address");
  if (dest === source) fail(ErrorCode.SOURCE_EQUALS_DESTINATION, "pay_asset.dest_address equals the source");
  const key = { issuer: checkAddress(body.asset?.key?.issuer ?? "", "pay_asset.asset.key.issuer"), code: checkAssetCode(body.asset?.key?.code ?? "", "pay_asset.asset.key.code") };
  const amount = body.asset?.amount ?? 0n;
  if (amount <= 0n) fail(ErrorCode.INVALID_PARAMETER, "pay_asset.asset.amount must be positive");
  await addAsset(state, source, key, -amount);
  const target = await payee(state, params, dest, 0n);
  state.putAccount(target);
  await addAsset(state, dest, key, amount);
  if (target.contract?.payload) await contractHooks(hooks).contractPaid(dest, { asset: { key, amount } }, body.input ?? "");
}

/**
 * Strings stored or hashed must be well-formed UTF-16: a lone surrogate becomes U+FFFD in UTF-8, so two
 * different keys in memory would be one key on disk.
 */
function wellFormed(text: string, what: string): string {
  if (!text.isWellFormed()) fail(ErrorCode.INVALID_PARAMETER, `${what} is not well-formed Unicode (a lone surrogate)`);
  return text;
}

function checkMetadata(key: string, value: string): string {
  wellFormed(key, "metadata key");
  wellFormed(value, "metadata value");
  const keyBytes = utf8(key).length;
  if (keyBytes < 1 || keyBytes > LIMITS.metadataKeyBytes) {
    fail(ErrorCode.INVALID_PARAMETER, `metadata key length should be between [1, ${LIMITS.metadataKeyBytes}] bytes`);
  }
  if (utf8(value).length > LIMITS.metadataValueBytes) {
    fail(ErrorCode.INVALID_PARAMETER, `metadata value length should be between [0, ${LIMITS.metadataValueBytes}] bytes`);
  }
  return key;
}

/** `version`, when given, must be the key's current version (0 for a new key); each write adds 1. */
async function setMetadata(state: StateView, source: string, body: NonNullable<Operation["set_metadata"]>): Promise<void> {
  const key = checkMetadata(body.key ?? "", body.value ?? "");
  await requireAccount(state, source);
  const current = await state.metadata(source, key);
  const currentVersion = current?.version ?? 0n;
  if (body.version !== undefined && body.version !== currentVersion) {
    fail(ErrorCode.METADATA_VERSION_MISMATCH, `metadata ${key} has version ${currentVersion}, the operation expects ${body.version}`);
  }
  if (body.delete_flag) {
    if (!current) fail(ErrorCode.NOT_EXIST, `metadata ${key} does not exist`);
    state.putEntry(METADATA, source, key, null);
  } else {
    state.putEntry(METADATA, source, key, { key, value: body.value, version: currentVersion + 1n });
  }
}

async function updatePrivilege(state: StateView, source: string, change: (priv: AccountPrivilege) => AccountPrivilege): Promise<void> {
  const account = await requireAccount(state, source);
  account.priv = change(account.priv ?? {});
  state.putAccount(account);
}

/** set_privilege: weights and thresholds arrive as strings; "" leaves a value unchanged. */
function setPrivilege(priv: AccountPrivilege, self: string, body: NonNullable<Operation["set_privilege"]>): AccountPrivilege {
  const fromText = (text: string | undefined, what: string, code: ErrorCode) =>
    text === undefined || text === "" ? undefined : toInt64OrFail(text, what, code);
  const master = fromText(body.master_weight, "set_privilege.master_weight", ErrorCode.WEIGHT_NOT_VALID);
  const tx = fromText(body.tx_threshold, "set_privilege.tx_threshold", ErrorCode.THRESHOLD_NOT_VALID);
  return {
    master_weight: master === undefined ? priv.master_weight : weight(master, "set_privilege.master_weight"),
    signers: mergeSigners(priv.signers ?? [], body.signers ?? [], self),
    thresholds: {
      tx_threshold: tx === undefined ? priv.thresholds?.tx_threshold : threshold(tx, "set_privilege.tx_threshold"),
      type_thresholds: mergeTypeThresholds(priv.thresholds?.type_thresholds ?? [], body.type_thresholds ?? []),
    },
  };
}

/** set_signer_weight: master_weight -1 leaves it unchanged (an absent field means 0, as in proto3). */
function setSignerWeight(priv: AccountPrivilege, self: string, body: NonNullable<Operation["set_signer_weight"]>): AccountPrivilege {
  const master = body.master_weight ?? 0n;
  return {
    ...priv,
    master_weight: master === -1n ? priv.master_weight : weight(master, "set_signer_weight.master_weight"),
    signers: mergeSigners(priv.signers ?? [], body.signers ?? [], self),
  };
}

/** set_threshold: tx_threshold -1 leaves it unchanged. */
function setThreshold(priv: AccountPrivilege, body: NonNullable<Operation["set_threshold"]>): AccountPrivilege {
  const tx = body.tx_threshold ?? 0n;
  return {
    ...priv,
    thresholds: {
      tx_threshold: tx === -1n ? priv.thresholds?.tx_threshold : threshold(tx, "set_threshold.tx_threshold"),
      type_thresholds: mergeTypeThresholds(priv.thresholds?.type_thresholds ?? [], body.type_thresholds ?? []),
    },
  };
}

function toInt64OrFail(text: string, what: string, code: ErrorCode): bigint {
  try {
    return toInt64(text, what);
  } catch {
    return fail(code, `${what} should be an integer, got ${JSON.stringify(text)}`);
  }
}

function weight(value: bigint, what: string): bigint {
  if (value < 0n || value > LIMITS.maxWeight) fail(ErrorCode.WEIGHT_NOT_VALID, `${what} should be between 0 and ${LIMITS.maxWeight}`);
  return value;
}

function threshold(value: bigint, what: string): bigint {
  if (value < 0n || value > INT64_MAX) fail(ErrorCode.THRESHOLD_NOT_VALID, `${what} should be between 0 and ${INT64_MAX}`);
  return value;
}

/** Updates signers by address: weight 0 removes one, others are set; new ones go last. */
function mergeSigners(current: Signer[], updates: Signer[], self: string): Signer[] {
  const merged = new Map(current.map((s) => [s.address!, s.weight ?? 0n]));
  updates.forEach((s, i) => {
    const address = checkAddress(s.address ?? "", `signers[${i}].address`);
    if (address === self) fail(ErrorCode.INVALID_PARAMETER, `signers[${i}] is the account itself; use master_weight`);
    const w = weight(s.weight ?? 0n, `signers[${i}].weight`);
    if (w === 0n) merged.delete(address);
    else merged.set(address, w);
  });
  if (merged.size > LIMITS.maxSigners) fail(ErrorCode.INVALID_PARAMETER, `an account has at most ${LIMITS.maxSigners} signers`);
  return [...merged].map(([address, w]) => ({ address, weight: w }));
}

/** Updates type thresholds by operation type: threshold 0 removes one. */
function mergeTypeThresholds(current: OperationTypeThreshold[], updates: OperationTypeThreshold[]): OperationTypeThreshold[] {
  const merged = new Map(current.map((t) => [t.type ?? 0, t.threshold ?? 0n]));
  updates.forEach((t, i) => {
    const type = t.type ?? 0;
    if (type === OperationType.UNKNOWN) fail(ErrorCode.INVALID_PARAMETER, `type_thresholds[${i}].type is not an operation type`);
    const value = threshold(t.threshold ?? 0n, `type_thresholds[${i}].threshold`);
    if (value === 0n) merged.delete(type);
    else merged.set(type, value);
  });
  return [...merged].map(([type, value]) => ({ type, threshold: value }));
}

function checkLog(body: NonNullable<Operation["log"]>): void {
  wellFormed(body.topic ?? "", "log topic");
  (body.datas ?? []).forEach((d, i) => wellFormed(d, `log datas[${i}]`));
  const topic = utf8(body.topic ?? "").length;
  if (topic < 1 || topic > LIMITS.logTopicBytes) fail(ErrorCode.INVALID_PARAMETER, `log topic length should be between [1, ${LIMITS.logTopicBytes}]`);
  const datas = body.datas ?? [];
  if (datas.length < 1 || datas.length > LIMITS.logDatas) fail(ErrorCode.INVALID_PARAMETER, `a log carries 1 to ${LIMITS.logDatas} datas`);
  datas.forEach((d, i) => {
    const n = utf8(d).length;
    if (n < 1 || n > LIMITS.logDataBytes) fail(ErrorCode.INVALID_PARAMETER, `log datas[${i}] length should be between [1, ${LIMITS.logDataBytes}]`);
  });
}
