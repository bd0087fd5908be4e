import { BuiltinError, type ContractHost } from "@chainsim/contracts";
import { ContractType, OperationType, codecs, isAddress, stringifyJson, toHex, utf8, type Operation } from "@chainsim/protocol";
import { ASSETS, assetId } from "../../state/entries.js";
import type { ContractRun, Frame, QueryReturn } from "./engine.js";

type Args = unknown[];

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
    const handler = this.handlers[name];
    if (!handler) throw new BuiltinError(`Chain.${name} is not available`);
    return handler(args);
  }

  private get state() {
    return this.run.state;
  }

  private readonly handlers: Record<string, (args: Args) => Promise<unknown>> = {
    load: async ([key]) => (await this.state.metadata(this.frame.address, key as string))?.value ?? false,
    getAccountMetadata: async ([address, key]) =>
      isAddress(address) ? ((await this.state.metadata(address, key as string))?.value ?? false) : false,
    getBalance: async ([address]) => (isAddress(address) ? ((await this.state.account(address))?.balance ?? 0n).toString() : false),
    getAccountPrivilege: async ([address]) => {
      const account = isAddress(address) ? await this.state.account(address) : undefined;
      return account ? stringifyJson(codecs.AccountPrivilege.toJson(account.priv ?? {})) : false;
    },
    getContractProperty: async ([address]) => {
      const account = isAddress(address) ? await this.state.account(address) : undefined;
      if (!account) return false;
      const payload = account.contract?.payload;
      return payload ? { type: account.contract?.type ?? ContractType.JAVASCRIPT, length: utf8(payload).length } : { type: -1, length: 0 };
    },
    getBlockHash: async ([offset]) => {
      const seq = this.run.ledger.seq - 1n - BigInt(offset as number);
      const hash = seq >= 1n ? await this.run.ledger.ledgerHash(seq) : undefined;
      return hash ? toHex(hash) : false;
    },
    getAccountAsset: async ([address, key]) => {
      const { issuer, code } = key as { issuer: string; code: string };
      const held = isAddress(address) ? await this.state.entry(ASSETS, address, assetId({ issuer, code })) : undefined;
      return held ? (held.amount ?? 0n).toString() : false;
    },

    store: ([key, value]) => this.write({ type: OperationType.SET_METADATA, set_metadata: { key: key as string, value: value as string } }),
    del: ([key]) => this.write({ type: OperationType.SET_METADATA, set_metadata: { key: key as string, delete_flag: true } }),
    tlog: ([topic, ...datas]) => this.write({ type: OperationType.LOG, log: { topic: topic as string, datas: datas.map(String) } }),
    payCoin: ([dest, amount, input, metadata]) =>
      this.write({
        type: OperationType.PAY_COIN,
        ...(metadata !== undefined && { metadata: utf8(metadata as string) }),
        pay_coin: { dest_address: dest as string, amount: BigInt(amount as string), input: (input as string | undefined) ?? "" },
      }),
    contractCall: async ([dest, asset, amount, input]) => {
      const target = isAddress(dest) ? await this.state.account(dest) : undefined;
      const value = await this.run.subTransaction(
        this.frame,
        asset === true
          ? { type: OperationType.PAY_COIN, pay_coin: { dest_address: dest as string, amount: BigInt(amount as string), input: input as string } }
          : payAssetOperation(dest as string, asset as { issuer: string; code: string }, amount as string, input as string),
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
            contract: { type: ContractType.JAVASCRIPT, payload: code as string },
            init_balance: BigInt(balance as string),
            init_input: input as string,
            priv: { thresholds: { tx_threshold: 1n } },
          },
        },
        (address) => (created = address),
      );
      return created;
    },
    delegateCall: async ([dest, input]) => {
      this.requireAddress("delegateCall", dest);
      const value = await this.run.execute({ ...this.frame, codeAddress: dest as string, depth: this.frame.depth + 1 }, "main", input as string);
      return crossable(value) ? value : false;
    },
    contractQuery: ([dest, input]) =>
      this.query(dest, input, (address) => ({
        ...this.run.frame(address, address, { ...this.frame.env.msg, sender: this.frame.address, coinAmount: undefined, asset: undefined }, this.frame.depth + 1, true),
      })),
    delegateQuery: ([dest, input]) => this.query(dest, input, (address) => ({ ...this.frame, codeAddress: address, depth: this.frame.depth + 1, readOnly: true })),
    issueAsset: ([code, amount]) => this.write({ type: OperationType.ISSUE_ASSET, issue_asset: { code: code as string, amount: BigInt(amount as string) } }),
    payAsset: ([dest, issuer, code, amount, input, metadata]) =>
      this.write({
        ...payAssetOperation(dest as string, { issuer: issuer as string, code: code as string }, amount as string, (input as string | undefined) ?? ""),
        ...(metadata !== undefined && { metadata: utf8(metadata as string) }),
      }),
  };

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
      this.run.queryReturns.push({ error: { data: { exception: (error as Error).message, contract: frame.codeAddress } } });
      return { error: true };
    }
  }
}

function payAssetOperation(dest: string, key: { issuer: string; code: string }, amount: string, input: string): Operation {
  return { type: OperationType.PAY_ASSET, pay_asset: { dest_address: dest, asset: { key: { issuer: key.issuer, code: key.code }, amount: BigInt(amount) }, input } };
}

/** A query's value as callContract reports it: strings and booleans only (contract-runtime.md §1). */
export function queryReturn(value: unknown, contract: string): QueryReturn {
  if (typeof value === "string") return { result: { type: "string", value } };
  if (typeof value === "boolean") return { result: { type: "bool", value } };
  return { error: { data: { exception: "value type error, only support string or bool", contract } } };
}
