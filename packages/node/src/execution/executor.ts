import {
  ChainError,
  ErrorCode,
  addInt64,
  codecs,
  concatBytes,
  sha256,
  utf8,
  type ConsensusValue,
  type LedgerChanges,
  type LedgerHeader,
  type RawTransactionEnvStore,
  type SignedTransaction,
} from "@chainsim/protocol";
import type { ContractLimits, ContractRuntime } from "@chainsim/contracts";
import { AccountTree } from "../state/account-tree.js";
import { StateView } from "../state/state-view.js";
import type { AccountStore } from "../storage/account-store.js";
import type { SignatureChecker } from "./authorization.js";
import { checkState, checkStatic, gasOf } from "./checks.js";
import { ContractRun } from "./contracts/engine.js";
import { ledgerStepBudget } from "./contracts/ledger-budget.js";
import { applyOperation, debit, DEFAULT_PRIVILEGE, EMPTY_HASH, newAccount } from "./operations.js";
import { LEDGER_VERSION, type ChainParams } from "./params.js";
import { ASSETS, METADATA, type EntryKind } from "../state/entries.js";

/** What a ledger is built from. `txs` are in ledger order; the value is derived from them. */
export interface LedgerProposal {
  closeTime: bigint;
  /** Validator address that proposed the ledger; it receives the fees. */
  proposer: string;
  txs: SignedTransaction[];
  /** The commit proof of the previous ledger (an encoded PbftCommitProof), carried in the value. */
  previousProof?: Uint8Array;
}

export interface ExecutedLedger {
  header: LedgerHeader;
  value: ConsensusValue;
  records: RawTransactionEnvStore[];
  changes: LedgerChanges;
  included: SignedTransaction[];
  /** Only in "propose" mode: transactions left out, with the reason; `guardTripped` when a guard ended a contract run. */
  refused: { tx: SignedTransaction; error: ChainError; guardTripped?: boolean }[];
  /** The ledger spent its contract steps (LEDGER_STEP_BUDGETS) or bytes (LEDGER_TX_BYTES): a proposal stopped here, however many transactions wait. */
  full: boolean;
  /** Signed transactions on chain after this ledger. */
  txCount: bigint;
  /** Applies the ledger's account-tree updates; call once the ledger is stored. */
  commitTree: () => void;
}

/** The contract runtime a node shares across ledgers, and the limits of every execution. */
export interface ContractSupport {
  runtime: ContractRuntime;
  limits: ContractLimits;
  /** The node's trace log, where transactions' Utils.log lines go. */
  trace?: (line: string) => void;
}

/**
 * How a ledger is executed (docs/contracts.md §13, "When a guard trips"):
 * - "propose": the primary builds a value; transactions that cannot go in (wrong nonce, unaffordable fee,
 *   a contract run ended by a guard) are left out and reported in `refused`.
 * - "verify": a backup checks a proposed value; any of those refuses the whole value.
 * - "decided": a validator applies a value a quorum decided; as "verify", with ten times the clock guard,
 *   since the quorum ran every contract within it. Failing here fails the close, which is retried.
 */
export type ExecutionMode = "propose" | "verify" | "decided";

/** The clock guard's multiple for a decided value. */
const DECIDED_TIME_FACTOR = 10;

/**
 * Bytes of transactions one ledger holds (their envelopes; docs/consensus.md, "Transactions"), counted as
 * LEDGER_STEP_BUDGETS is: the transaction that crosses the line is in, so a value stays under 9 MiB. A
 * PRE-PREPARE carries its value in one frame of at most 32 MiB (MAX_FRAME_BYTES): forty pooled transactions
 * of 0.9 MB made a value no primary could send, and every view failed on it in turn.
 */
export const LEDGER_TX_BYTES = 8 << 20;

/** A transaction whose contract run ended on a guard: its outcome depends on this machine, so it is no result. */
export class GuardTrippedTransaction extends Error {
  constructor(readonly error: ChainError) {
    super(`a contract run ended on a guard, not a deterministic limit: ${error.message}`);
    this.name = "GuardTrippedTransaction";
  }
}

/** The previous ledger as execution needs it. */
export interface ChainTip {
  header: LedgerHeader;
  txCount: bigint;
}

/**
 * Executes ledgers: a deterministic function of (previous state, proposal). "propose" leaves out
 * transactions that cannot go into this ledger (wrong nonce, unaffordable fee…); "verify" and "decided"
 * refuse the whole proposal instead (ExecutionMode).
 */
export class Executor {
  constructor(
    private readonly store: AccountStore,
    private readonly tree: AccountTree,
    private readonly params: ChainParams,
    private readonly signatures: SignatureChecker,
    private readonly validators: string[],
    private readonly contracts: ContractSupport,
    private readonly ledgerHash: (seq: bigint) => Promise<Uint8Array | undefined>,
  ) {}

  async execute(tip: ChainTip, proposal: LedgerProposal, mode: ExecutionMode): Promise<ExecutedLedger> {
    const seq = tip.header.seq! + 1n;
    const previousClose = tip.header.close_time ?? 0n;
    if (proposal.closeTime <= previousClose) {
      throw new ChainError(ErrorCode.INVALID_PARAMETER, `close time ${proposal.closeTime} is not after the previous ${previousClose}`);
    }
    const state = new StateView(this.store);
    const records: RawTransactionEnvStore[] = [];
    const included: SignedTransaction[] = [];
    const refused: ExecutedLedger["refused"] = [];
    const ledgerSteps = ledgerStepBudget(this.contracts.limits.steps);
    let steps = 0;
    let bytes = 0;
    for (const tx of proposal.txs) {
      // Steps and bytes are the same on every validator: a correct primary stopped here, and the rest waits in
      // the pools. A decided value is applied whole (a quorum checked it).
      if ((steps >= ledgerSteps || bytes >= LEDGER_TX_BYTES) && mode !== "decided") {
        if (mode === "propose") break;
        const past = steps >= ledgerSteps ? `${ledgerSteps} contract steps (${steps} spent` : `${LEDGER_TX_BYTES} bytes of transactions (${bytes} held`;
        throw new ChainError(ErrorCode.INVALID_PARAMETER, `the value goes on past ${past} before transaction ${tx.hashHex})`);
      }
      try {
        checkStatic(tx, this.params, seq, this.signatures);
        await checkState(tx, state, this.params, this.signatures, "next");
      } catch (error) {
        if (mode !== "propose") throw error;
        refused.push({ tx, error: asChainError(error) });
        continue;
      }
      state.checkpoint();
      try {
        const applied = await this.apply(state, tx, seq, proposal.closeTime, proposal.proposer, mode === "decided" ? DECIDED_TIME_FACTOR : 1);
        records.push(...applied.records);
        steps += applied.steps;
        state.commit();
      } catch (error) {
        state.rollback();
        if (mode !== "propose" || !(error instanceof GuardTrippedTransaction)) throw error;
        refused.push({ tx, error: error.error, guardTripped: true });
        steps += this.contracts.limits.steps;
        continue;
      }
      included.push(tx);
      bytes += tx.envSize;
    }
    const value: ConsensusValue = {
      ledger_seq: seq,
      close_time: proposal.closeTime,
      previous_ledger_hash: tip.header.hash,
      txs: included.map((tx) => tx.env()),
      previous_proof: proposal.previousProof,
      proposer: proposal.proposer,
    };
    const txCount = tip.txCount + BigInt(included.length);
    const { header, changes, commitTree } = await this.seal(state, { seq, previous: tip.header, value, txCount });
    return { header, value, records, changes, included, refused, full: steps >= ledgerSteps || bytes >= LEDGER_TX_BYTES, txCount, commitTree };
  }

  /**
   * Ledger 1: the genesis accounts, no transactions. `accounts` are written as given.
   */
  async genesis(state: StateView, closeTime: bigint): Promise<Omit<ExecutedLedger, "refused" | "included" | "full">> {
    const value: ConsensusValue = { ledger_seq: 1n, close_time: closeTime };
    const { header, changes, commitTree } = await this.seal(state, { seq: 1n, value, txCount: 0n });
    return { header, value, records: [], changes, txCount: 0n, commitTree };
  }

  /**
   * One transaction: bump the nonce, run the operations (and the contracts they reach) all or nothing, then
   * charge the fee: its gas is the transaction's size plus what its contracts' transactions added. On
   * success the fee is paid from the resulting state (100 if it cannot be, which fails the transaction);
   * on failure everything is rolled back first. Returns its record, then those of its contract-made
   * transactions, and the contract steps it spent.
   */
  private async apply(state: StateView, tx: SignedTransaction, seq: bigint, closeTime: bigint, proposer: string, timeFactor: number): Promise<{ records: RawTransactionEnvStore[]; steps: number }> {
    const t = tx.transaction;
    const sourceAddress = t.source_address!;
    const source = (await state.account(sourceAddress))!;
    source.nonce = (source.nonce ?? 0n) + 1n;
    state.putAccount(source);
    const run = new ContractRun(this.contracts.runtime, this.contracts.limits, state, this.params, { seq, closeTime, ledgerHash: this.ledgerHash }, {
      hash: tx.hash,
      hashHex: tx.hashHex,
      source: sourceAddress,
      nonce: t.nonce!,
      feeLimit: t.fee_limit ?? 0n,
      gasPrice: t.gas_price ?? 0n,
      baseGas: gasOf(tx),
    }, this.contracts.trace, timeFactor);
    let error: ChainError | undefined;
    state.checkpoint();
    try {
      for (const [index, op] of (t.operations ?? []).entries()) {
        const opSource = op.source_address ?? sourceAddress;
        await applyOperation(state, this.params, opSource, op, run.operationHooks(index, opSource));
      }
      await debit(state, sourceAddress, run.fee(), this.params.baseReserve);
      state.commit();
    } catch (e) {
      state.rollback();
      error = asChainError(e);
      if (!run.guardTripped) await debit(state, sourceAddress, run.fee(), 0n);
    }
    if (run.guardTripped) throw new GuardTrippedTransaction(error ?? new ChainError(ErrorCode.CONTRACT_LIMIT_EXCEEDED, run.guardTripped.message));
    if (run.fee() > 0n) {
      // Validators have accounts from the genesis; should a proposer have none, the fee creates it.
      const leader = (await state.account(proposer)) ?? newAccount(proposer, 0n, DEFAULT_PRIVILEGE);
      leader.balance = addInt64(leader.balance ?? 0n, run.fee(), `balance of ${proposer}`);
      state.putAccount(leader);
    }
    const contractTxs = error ? [] : run.contractTxs;
    const record: RawTransactionEnvStore = {
      transaction_env: tx.env(),
      error_code: error?.code,
      error_desc: error?.message ?? (run.created.length ? JSON.stringify(run.created) : undefined),
      ledger_seq: seq,
      close_time: closeTime,
      hash: tx.hash,
      actual_fee: run.fee(),
      contract_tx_hashes: contractTxs.map((r) => r.hash!),
    };
    return { records: [record, ...contractTxs], steps: run.meter.used + run.preparingSteps };
  }

  /** Finishes a ledger: metadata hashes, the account tree root, the header and its hash. */
  private async seal(
    state: StateView,
    ledger: { seq: bigint; previous?: LedgerHeader; value: ConsensusValue; txCount: bigint },
  ): Promise<{ header: LedgerHeader; changes: LedgerChanges; commitTree: () => void }> {
    for (const [kind, field] of [[METADATA, "metadatas_hash"], [ASSETS, "assets_hash"]] as const) {
      for (const address of state.touched(kind)) {
        const account = (await state.account(address))!;
        account[field] = hashEntries<object>(kind, await state.allEntries<object>(kind, address));
        state.putAccount(account);
      }
    }
    const changes = state.changes();
    const leaves = new Map((changes.accounts ?? []).map((c) => [c.account!.address!, AccountTree.leaf(codecs.Account.encode(c.account!))]));
    const tree = this.tree.preview(leaves);
    const header: LedgerHeader = codecs.LedgerHeader.canonical({
      seq: ledger.seq,
      previous_hash: ledger.previous?.hash,
      account_tree_hash: tree.root,
      close_time: ledger.value.close_time,
      consensus_value_hash: sha256(codecs.ConsensusValue.encode(ledger.value)),
      version: LEDGER_VERSION,
      tx_count: ledger.txCount,
      validators_hash: sha256(utf8(this.validators.join(","))),
      fees_hash: sha256(codecs.Fees.encode({ base_reserve: this.params.baseReserve, gas_price: this.params.gasPrice })),
      chain_id: this.params.chainId,
    });
    header.hash = sha256(codecs.LedgerHeader.encode(header));
    return { header, changes, commitTree: tree.apply };
  }
}

/**
 * A failure that is not a ChainError is a bug in this node, not in the transaction; it still fails only
 * that transaction (code 1, deterministic on every validator running this code), so one bad transaction
 * cannot stop the chain. A failure of this machine (storage, the isolate) is rethrown instead: it would be
 * written into one validator's ledger only, so the close fails and is retried.
 */
function asChainError(error: unknown): ChainError {
  if (error instanceof ChainError) return error;
  if (isEnvironmentFailure(error)) throw error;
  return new ChainError(ErrorCode.INTERNAL, `internal error: ${(error as Error)?.message ?? String(error)}`);
}

/** LevelDB errors carry a LEVEL_* code; an isolate that died under a run is isolated-vm's. */
function isEnvironmentFailure(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return (typeof e?.code === "string" && e.code.startsWith("LEVEL_")) || /Isolate (is already|was) disposed/.test(String(e?.message));
}

/** metadatas_hash / assets_hash: over the account's entries of one kind, in key order. */
function hashEntries<T extends object>(kind: EntryKind<T>, entries: T[]): Uint8Array {
  if (entries.length === 0) return EMPTY_HASH;
  return sha256(concatBytes(...entries.map((entry) => sha256(kind.codec.encode(entry)))));
}
