import { BuiltinError, type ContractHost } from "@chainsim/contracts";
import { ChainError, ContractType, INT64_MAX, OperationType, codecs, isAddress, stringifyJson, toHex, utf8, type Operation } from "@chainsim/protocol";
import { ASSETS, assetId } from "../../state/entries.js";
import type { ContractRun, Frame, QueryReturn } from "./engine.js";

type Args = unknown[];

const WRITES = new Set(["store", "del", "tlog", "payCoin", "issueAsset", "payAsset", "delegateCall", "contractCall", "contractCreate"]);

/**
 * The built-ins check their arguments inside the isolate, where contract code could have tampered with
 * what they use; the host checks again what it relies on.
 */
function text(value: unknown, name: string, index: number): string {
  if (typeof value !== "string") throw new BuiltinError(`Chain.${name}: parameter ${index} should be a string`);
  return value;
}

function canonicalAmount(value: unknown, name: string, index: number): bigint {
  const digits = text(value, name, index);
  if (!/^(0|[1-9][0-9]{0,18})$/.test(digits) || BigInt(digits) > INT64_MAX) {
    throw new BuiltinError(`Chain.${name}: parameter ${index} should be a canonical int64 string ≥ 0`);
  }
  return BigInt(digits);
}

/** Only strings and booleans cross a contract boundary (contract-runtime.md §1). */
function crossable(value: unknown): value is string | boolean {
  return typeof value === "string" || typeof value === "boolean";
}

/**
 * The chain side of `Chain.*` for one running contract (a frame). Reads answer from the transaction's
 * state; every write is a contract-made transaction (ContractRun.subTransaction).
 */
export class ChainHost implements ContractHost {
  constructor(
    private readonly run: ContractRun,
    private readonly frame: Frame,
  ) {}

  async call(name: string, args: Args): Promise<unknown> {
    const handler = Object.hasOwn(this.handlers, name) ? this.handlers[name] : undefined;
    if (!handler || (this.frame.readOnly && WRITES.has(name))) throw new BuiltinError(`Chain.${name} is not available`);
    return handler(args);
  }

  private get state() {
    return this.run.state;
  }

  private readonly handlers: Record<string, (args: Args) => Promise<unknown>> = {
    load: async ([key]) => (await this.state.metadata(this.frame.address, text(key, "load", 0)))?.value ?? false,
    getAccountMetadata: async ([address, key]) =>
      isAddress(address) ? ((await this.state.metadata(address, text(key, "getAccountMetadata", 1)))?.value ?? false) : false,
    getBalance: async ([address]) => (isAddress(address) ? ((await this.state.account(address))?.balance ?? 0n).toString() : false),
    getAccountPrivilege: async ([address]) => {
      const account = await this.accountAt(address);
      return account ? stringifyJson(codecs.AccountPrivilege.toJson(account.priv ?? {})) : false;
    },
    getContractProperty: async ([address]) => {
      const account = await this.accountAt(address);
      if (!account) return false;
      const payload = account.contract?.payload;
      return payload ? { type: account.contract?.type ?? ContractType.JAVASCRIPT, length: utf8(payload).length } : { type: -1, length: 0 };
    },
    getBlockHash: async ([offset]) => {
      if (typeof offset !== "number" || !Number.isInteger(offset) || offset < 0 || offset >= 1024) return false;
      const seq = this.run.ledger.seq - 1n - BigInt(offset);
      const hash = seq >= 1n ? await this.run.ledger.ledgerHash(seq) : undefined;
      return hash ? toHex(hash) : false;
    },
    getAccountAsset: async ([address, key]) => {
      const { issuer, code } = assetKey(key, "getAccountAsset", 1);
      const held = isAddress(address) ? await this.state.entry(ASSETS, address, assetId({ issuer, code })) : undefined;
      return held ? (held.amount ?? 0n).toString() : false;
    },

    store: ([key, value]) => this.write({ type: OperationType.SET_METADATA, set_metadata: { key: text(key, "store", 0), value: text(value, "store", 1) } }),
    del: ([key]) => this.write({ type: OperationType.SET_METADATA, set_metadata: { key: text(key, "del", 0), delete_flag: true } }),
    tlog: ([topic, ...datas]) => this.write({ type: OperationType.LOG, log: { topic: text(topic, "tlog", 0), datas: datas.map((d, i) => text(d, "tlog", i + 1)) } }),
    payCoin: ([dest, amount, input, metadata]) =>
      this.write({
        ...payCoinOperation(text(dest, "payCoin", 0), canonicalAmount(amount, "payCoin", 1), input === undefined ? "" : text(input, "payCoin", 2)),
        ...(metadata !== undefined && { metadata: utf8(text(metadata, "payCoin", 3)) }),
      }),
    contractCall: async ([dest, asset, amount, input]) => {
      const target = await this.accountAt(dest);
      const value = await this.run.subTransaction(
        this.frame,
        asset === true
          ? payCoinOperation(text(dest, "contractCall", 0), canonicalAmount(amount, "contractCall", 2), text(input, "contractCall", 3))
          : payAssetOperation(text(dest, "contractCall", 0), assetKey(asset, "contractCall", 1), canonicalAmount(amount, "contractCall", 2), text(input, "contractCall", 3)),
      );
      if (!target?.contract?.payload) return true;
      return crossable(value) ? value : false;
    },
    contractCreate: async ([balance, , code, input]) => {
      let created = "";
      await this.run.subTransaction(
        this.frame,
        {
          type: OperationType.CREATE_ACCOUNT,
          create_account: {
            contract: { type: ContractType.JAVASCRIPT, payload: text(code, "contractCreate", 2) },
            init_balance: canonicalAmount(balance, "contractCreate", 0),
            init_input: text(input, "contractCreate", 3),
            priv: { thresholds: { tx_threshold: 1n } },
          },
        },
        (address) => (created = address),
      );
      return created;
    },
    delegateCall: async ([dest, input]) => {
      this.requireAddress("delegateCall", dest);
      const value = await this.run.execute({ ...this.frame, codeAddress: dest, depth: this.frame.depth + 1 }, "main", text(input, "delegateCall", 1));
      return crossable(value) ? value : false;
    },
    contractQuery: ([dest, input]) =>
      this.query(dest, input, (address) =>
        this.run.frame(address, address, { ...this.frame.env.msg, sender: this.frame.address, coinAmount: undefined, asset: undefined }, this.frame.depth + 1, true),
      ),
    delegateQuery: ([dest, input]) => this.query(dest, input, (address) => ({ ...this.frame, codeAddress: address, depth: this.frame.depth + 1, readOnly: true })),
    issueAsset: ([code, amount]) =>
      this.write({ type: OperationType.ISSUE_ASSET, issue_asset: { code: text(code, "issueAsset", 0), amount: canonicalAmount(amount, "issueAsset", 1) } }),
    payAsset: ([dest, issuer, code, amount, input, metadata]) =>
      this.write({
        ...payAssetOperation(
          text(dest, "payAsset", 0),
          { issuer: text(issuer, "payAsset", 1), code: text(code, "payAsset", 2) },
          canonicalAmount(amount, "payAsset", 3),
          input === undefined ? "" : text(input, "payAsset", 4),
        ),
        ...(metadata !== undefined && { metadata: utf8(text(metadata, "payAsset", 5)) }),
      }),
  };

  /** The account at `address`, or undefined for an unknown account or a value that is not an address. */
  private async accountAt(address: unknown) {
    return isAddress(address) ? this.state.account(address) : undefined;
  }

  private write(op: Parameters<ContractRun["subTransaction"]>[1]): Promise<true> {
    return this.run.subTransaction(this.frame, op).then(() => true);
  }

  private requireAddress(name: string, address: unknown): asserts address is string {
    if (!isAddress(address)) throw new BuiltinError(`Chain.${name}: parameter 0 should be a valid address`);
  }

  /** contractQuery / delegateQuery: `{result}` or `{error: true}`, never a throw; every query is reported. */
  private async query(dest: unknown, input: unknown, frameFor: (address: string) => Frame): Promise<unknown> {
    if (!isAddress(dest)) return { error: true };
    const frame = frameFor(dest);
    try {
      const value = await this.run.execute(frame, "query", input as string);
      const answer = queryReturn(value, frame.codeAddress);
      this.run.queryReturns.push(answer);
      return "result" in answer ? { result: value } : { error: true };
    } catch (error) {
      if (!(error instanceof ChainError) && !(error instanceof BuiltinError)) throw error;
      this.run.queryReturns.push(queryFailure(error, frame.codeAddress));
      return { error: true };
    }
  }
}

function assetKey(value: unknown, name: string, index: number): { issuer: string; code: string } {
  const key = value as { issuer?: unknown; code?: unknown } | null;
  if (key === null || typeof key !== "object") throw new BuiltinError(`Chain.${name}: parameter ${index} should be an asset key {issuer, code}`);
  return { issuer: text(key.issuer, name, index), code: text(key.code, name, index) };
}

function payCoinOperation(dest: string, amount: bigint, input: string): Operation {
  return { type: OperationType.PAY_COIN, pay_coin: { dest_address: dest, amount, input } };
}

function payAssetOperation(dest: string, key: { issuer: string; code: string }, amount: bigint, input: string): Operation {
  return { type: OperationType.PAY_ASSET, pay_asset: { dest_address: dest, asset: { key, amount }, input } };
}

/** A failed query as callContract reports it: the exception of the contract's failure report. */
export function queryFailure(error: Error, contract: string): QueryReturn {
  let exception = error.message;
  try {
    exception = String(JSON.parse(error.message).exception ?? error.message);
  } catch {
    // not a contract failure report: the message is the exception
  }
  return { error: { data: { exception, contract } } };
}

/** A query's value as callContract reports it: strings and booleans only (contract-runtime.md §1). */
export function queryReturn(value: unknown, contract: string): QueryReturn {
  if (typeof value === "string") return { result: { type: "string", value } };
  if (typeof value === "boolean") return { result: { type: "bool", value } };
  return { error: { data: { exception: "value type error, only support string or bool", contract } } };
}
