import {
  BuiltinError,
  CONTRACT_LIMIT_EXCEEDED,
  contractLanguage,
  ContractFailure,
  GuardTripped,
  STEP_LIMIT,
  type ContractRuntime,
  type ContractEnvironment,
  type ContractLimits,
  type EntryPoint,
  type StepMeter,
} from "@chainsim/contracts";
import {
  ChainError,
  ErrorCode,
  codecs,
  contractAddress,
  sha256,
  type Contract,
  type Operation,
  type RawTransactionEnvStore,
  type Transaction,
} from "@chainsim/protocol";
import type { StateView } from "../../state/state-view.js";
import { applyOperation, type ContractHooks } from "../operations.js";
import { creationGas } from "../checks.js";
import type { ChainParams } from "../params.js";
import { ChainHost } from "./chain-host.js";
import { COMPILED_BYTES_PER_STEP, DEPLOYED_BYTES_PER_STEP, ledgerStepBudget, RUN_STEPS, WASM_DEPLOYED_CHARS_PER_STEP } from "./ledger-budget.js";

/**
 * A contract's log text in node.log: control characters (line breaks, terminal escapes) written as \uXXXX,
 * so that a contract cannot forge lines of the node's own (docs/contracts.md §14).
 */
function escapeControls(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Where a contract runs: whose code, whose storage, what it sees, how deep. */
export interface Frame {
  /** The account whose metadata the contract reads and writes (`Chain.thisAddress`). */
  address: string;
  /** The account whose code runs (differs from `address` only in delegateCall / delegateQuery). */
  codeAddress: string;
  env: ContractEnvironment;
  depth: number;
  readOnly: boolean;
}

/** The user transaction a run belongs to, as contracts see it. */
export interface UserTransaction {
  hash: Uint8Array;
  hashHex: string;
  source: string;
  nonce: bigint;
  feeLimit: bigint;
  gasPrice: bigint;
  /** Gas of the signed transaction itself (bytes + contract creations). */
  baseGas: bigint;
}

export interface LedgerPosition {
  seq: bigint;
  closeTime: bigint;
  /** Hash of ledger `seq`, for Chain.getBlockHash; undefined when it does not exist. */
  ledgerHash: (seq: bigint) => Promise<Uint8Array | undefined>;
}

/** A query's answer in callContract's `query_rets`. */
export type QueryReturn = { result: { type: string; value: string | boolean } } | { error: { data: { exception: string; contract: string } } };

/**
 * Contract execution for one user transaction (or one callContract query): the steps and wall-clock budget
 * all its contracts share, the sub-transactions they make (each write built-in is one, contract-runtime.md
 * §4) with their gas, and the contracts it creates.
 */
export class ContractRun {
  readonly meter: StepMeter;
  /** performance.now() by which the transaction must be done; moved by time the clock guard does not count. */
  deadline: number;
  /** Gas of the contract-made transactions, added to the user transaction's. */
  extraGas = 0n;
  /** Steps of checking code for deployment (instrumenting it: work the ledger's budget counts, ledger-budget.ts). */
  private checkingSteps = 0;
  /** Bytes of contract source the user's own runs compiled (nested runs pay for theirs in steps). */
  private compiledSourceBytes = 0;
  /** The user's own runs started (nested runs pay for theirs in steps). */
  private userRuns = 0;
  readonly contractTxs: RawTransactionEnvStore[] = [];
  readonly created: { contract_address: string; contract_evm_address: string; operation_index: number }[] = [];
  readonly queryReturns: QueryReturn[] = [];
  /** Utils.log lines, in order, with the contract that wrote each. */
  readonly logs: { contract: string; text: string }[] = [];
  /** Utils.log text kept so far; past `limits.maxLogPerTransaction` lines are dropped (docs/contracts.md §13). */
  private logLength = 0;
  /** Index of the user operation being applied (the trigger of contract-made transactions). */
  operationIndex = 0;
  /** Source of the user operation being applied: `Chain.tx.sender`, fixed across nested calls (contract-runtime.md §3). */
  operationSource: string;
  memoryUsage = 0;
  /** Peak of the deterministic stack model over this transaction's contract runs. */
  stackUsage = 0;
  /** Set when a run ended on a guard (clock, V8, a dead worker): this execution is not a result to record. */
  guardTripped?: GuardTripped;

  constructor(
    readonly runtime: ContractRuntime,
    readonly limits: ContractLimits,
    readonly state: StateView,
    readonly params: ChainParams,
    readonly ledger: LedgerPosition,
    readonly tx: UserTransaction,
    /** Where Utils.log lines go besides `logs`: the node's trace log. */
    private readonly trace?: (line: string) => void,
    /** Multiplies the clock guard: a decided ledger is executed with more room (executor.ts). */
    timeFactor = 1,
  ) {
    this.meter = { used: 0, limit: limits.steps, exhausted: false };
    this.deadline = performance.now() + limits.timeMs * timeFactor;
    this.operationSource = tx.source;
  }

  /** (the transaction's gas + its contracts' transactions' gas) × gas_price. */
  uncappedFee(): bigint {
    return (this.tx.baseGas + this.extraGas) * this.tx.gasPrice;
  }

  /** The fee the user transaction pays: never more than its fee_limit. */
  fee(): bigint {
    const fee = this.uncappedFee();
    return fee < this.tx.feeLimit ? fee : this.tx.feeLimit;
  }

  /** Hooks for the user's operation `index` from `source`. */
  operationHooks(index: number, source: string): ContractHooks {
    this.operationIndex = index;
    this.operationSource = source;
    const identity = { initiator: this.tx.source, sender: source, nonce: Number(this.tx.nonce), operationIndex: index };
    return this.hooks(source, this.tx.nonce, index, identity, 0, (address) => this.created.push({ contract_address: address, contract_evm_address: "", operation_index: index }));
  }

  /**
   * Hooks for an operation from `source` (a user, or a contract in a sub-transaction): contracts it
   * creates get their address from (source, nonce, index) and run `init`; contracts it pays run `main`
   * with `identity` as `Chain.msg`. `result` receives what a paid contract's main returned.
   */
  hooks(
    source: string,
    nonce: bigint,
    index: number,
    identity: Omit<ContractEnvironment["msg"], "coinAmount" | "asset">,
    depth: number,
    onCreated: (address: string) => void,
    result: { value?: unknown } = {},
  ): ContractHooks {
    return {
      deriveContractAddress: () => contractAddress(source, nonce, index),
      validateContract: (contract: Contract) => this.validate(contract),
      contractCreated: async (address, initInput, initBalance) => {
        onCreated(address);
        await this.execute(this.frame(address, address, { ...identity, coinAmount: initBalance.toString() }, depth, false), "init", initInput);
      },
      contractPaid: async (address, payment, input) => {
        const paid: Partial<ContractEnvironment["msg"]> =
          "coin" in payment
            ? { coinAmount: payment.coin.toString() }
            : { coinAmount: "0", asset: { amount: payment.asset.amount!.toString(), key: { issuer: payment.asset.key!.issuer!, code: payment.asset.key!.code! } } };
        result.value = await this.execute(this.frame(address, address, { ...identity, ...paid }, depth, false), "main", input);
      },
    };
  }

  frame(address: string, codeAddress: string, msg: ContractEnvironment["msg"], depth: number, readOnly: boolean): Frame {
    const env: ContractEnvironment = {
      thisAddress: address,
      block: { timestamp: Number(this.ledger.closeTime), number: Number(this.ledger.seq) },
      tx: {
        initiator: this.tx.source,
        sender: this.operationSource,
        gasPrice: this.tx.gasPrice.toString(),
        hash: this.tx.hashHex,
        feeLimit: this.tx.feeLimit.toString(),
      },
      msg,
    };
    return { address, codeAddress, env, depth, readOnly };
  }

  /** Runs `entry` of the frame's code; a failure becomes the ChainError the record shows. */
  async execute(frame: Frame, entry: EntryPoint, input: string): Promise<unknown> {
    if (frame.depth >= this.limits.maxDepth) throw new ChainError(ErrorCode.CONTRACT_TOO_MANY_RECURSION, "Too many recursion.");
    const contract = (await this.state.account(frame.codeAddress))?.contract;
    const code = contract?.payload;
    const language = contractLanguage(contract?.type);
    if (!code || !language) throw new BuiltinError(`The account(${frame.codeAddress}) has no contract.`);
    // What V8 compiles for the run: JavaScript source; a wasm module is compiled once per validator (docs/wasm-abi.md §2).
    const compiledBytes = language === "wasm" ? 0 : code.length;
    try {
      if (frame.depth > 0) {
        // What a nested run costs before it starts (docs/contracts.md §13, ledger-budget.ts).
        this.meter.used += RUN_STEPS + Math.ceil(compiledBytes / COMPILED_BYTES_PER_STEP);
        // Paid before the callee is prepared: a budget that runs out here prepares nothing more.
        if (this.meter.used > this.meter.limit) {
          this.meter.exhausted = true;
          throw new ContractFailure(CONTRACT_LIMIT_EXCEEDED, STEP_LIMIT);
        }
      } else {
        this.prepare(0, compiledBytes, 1);
      }
      const outcome = await this.runtime.execute({
        code,
        language,
        entry,
        input,
        env: frame.env,
        readOnly: frame.readOnly,
        depth: frame.depth,
        host: new ChainHost(this, frame),
        meter: this.meter,
        deadline: this.deadline,
        // Preparing a contract's code is not counted by the clock guard (docs/contracts.md §13).
        uncounted: (ms) => (this.deadline += ms),
        log: (text) => {
          if (this.logLength >= this.limits.maxLogPerTransaction) return;
          this.logLength += text.length;
          if (this.logLength >= this.limits.maxLogPerTransaction) text = "… log limit reached";
          this.logs.push({ contract: frame.codeAddress, text });
          this.trace?.(`contract ${frame.codeAddress} (tx ${this.tx.hashHex || "query"}): ${escapeControls(text)}`);
        },
      });
      this.memoryUsage = Math.max(this.memoryUsage, outcome.memoryUsage);
      this.stackUsage = Math.max(this.stackUsage, outcome.stackUsage);
      return outcome.value;
    } catch (error) {
      if (error instanceof GuardTripped) this.guardTripped ??= error;
      if (error instanceof ContractFailure) throw new ChainError(error.code, error.describe(frame.codeAddress));
      throw error;
    }
  }

  /**
   * A contract-made transaction: one operation whose source is the contract `frame.address`. It bumps the
   * contract's nonce, passes the normal operation checks, adds its size to the user's gas and is recorded
   * with a trigger pointing at the user's transaction. Resolves with what a paid contract's main returned.
   */
  async subTransaction(frame: Frame, op: Operation, onCreated: (address: string) => void = () => {}): Promise<unknown> {
    if (this.contractTxs.length >= this.limits.maxContractTxs) {
      throw new ChainError(ErrorCode.CONTRACT_TOO_MANY_TRANSACTIONS, `a transaction may make at most ${this.limits.maxContractTxs} contract transactions`);
    }
    const account = await this.state.account(frame.address);
    if (!account) throw new ChainError(ErrorCode.ACCOUNT_NOT_EXIST, `contract account ${frame.address} does not exist`);
    account.nonce = (account.nonce ?? 0n) + 1n;
    this.state.putAccount(account);
    const transaction: Transaction = { source_address: frame.address, nonce: account.nonce, operations: [op] };
    const blob = codecs.Transaction.encode(transaction);
    const env = {
      transaction: blob,
      trigger: { transaction_type: 1, ledger_seq: this.ledger.seq, transaction: { hash: this.tx.hash, index: BigInt(this.operationIndex) } },
    };
    // Its bytes, plus the creation surcharge for a contract it deploys (compat.md §6), like a user's would.
    this.extraGas += BigInt(codecs.RawTransactionEnv.encode(env).length) + creationGas([op]);
    const fee = this.uncappedFee();
    if (fee > this.tx.feeLimit) {
      throw new ChainError(ErrorCode.FEE_NOT_ENOUGH, `contract transactions raise the fee to ${fee}, above fee_limit ${this.tx.feeLimit}`);
    }
    this.contractTxs.push({ transaction_env: env, ledger_seq: this.ledger.seq, close_time: this.ledger.closeTime, hash: sha256(blob) });
    const identity = { initiator: frame.address, sender: frame.address, nonce: Number(account.nonce), operationIndex: 0 };
    const result: { value?: unknown } = {};
    await applyOperation(this.state, this.params, frame.address, op, this.hooks(frame.address, account.nonce, 0, identity, frame.depth + 1, onCreated, result));
    return result.value;
  }

  /** What preparing this transaction's contracts counts against the ledger's steps (ledger-budget.ts). */
  get preparingSteps(): number {
    return this.checkingSteps + Math.ceil(this.compiledSourceBytes / COMPILED_BYTES_PER_STEP) + this.userRuns * RUN_STEPS;
  }

  /**
   * Counts source about to be checked for deployment, or compiled for a user's run and the run itself,
   * refusing it (155) when this transaction alone would then pass a ledger's steps: preparing is not charged
   * by the clock, and one transaction of 100 operations compiled or checked for minutes (review of 2026-11-27).
   */
  private prepare(checkingSteps: number, compiledBytes: number, runs: number): void {
    this.checkingSteps += checkingSteps;
    this.compiledSourceBytes += compiledBytes;
    this.userRuns += runs;
    const ledgerSteps = ledgerStepBudget(this.limits.steps);
    if (this.preparingSteps > ledgerSteps) {
      throw new ChainError(
        ErrorCode.CONTRACT_LIMIT_EXCEEDED,
        `the transaction's contracts would prepare more than ${ledgerSteps} steps of a ledger allow (${this.checkingSteps} for checking code to deploy, ${this.compiledSourceBytes} compiled, ${this.userRuns} runs started)`,
      );
    }
  }

  private async validate(contract: Contract): Promise<void> {
    const language = contractLanguage(contract.type);
    if (!language) {
      throw new ChainError(ErrorCode.CONTRACT_INVALID, `contract type ${contract.type} is not supported (0 is JavaScript, 2 and 3 are WebAssembly)`);
    }
    const started = performance.now();
    try {
      const payload = contract.payload ?? "";
      this.prepare(Math.ceil(payload.length / (language === "wasm" ? WASM_DEPLOYED_CHARS_PER_STEP : DEPLOYED_BYTES_PER_STEP)), 0, 0);
      await this.runtime.validate(payload, language);
    } catch (error) {
      if (error instanceof GuardTripped) this.guardTripped ??= error;
      if (error instanceof ContractFailure) throw new ChainError(error.code, error.exception);
      throw error;
    } finally {
      // Checking code is not counted by the clock guard (docs/contracts.md §13, "Preparing a contract's code").
      this.deadline += performance.now() - started;
    }
  }
}
