import { sha256 } from "@chainsim/protocol/node-crypto";
import { ChainError, ErrorCode, codecs, equalBytes, toHex, utf8, type LedgerDecision, type LedgerHeader, type RawTransactionEnvStore, type StoredLedger } from "@chainsim/protocol";
import type { NodeConfig } from "../config.js";
import { Executor, type ChainTip, type ContractSupport, type ExecutedLedger, type ExecutionMode, type LedgerProposal } from "../execution/executor.js";
import type { SignatureChecker } from "../execution/authorization.js";
import { DEFAULT_PRIVILEGE, newAccount } from "../execution/operations.js";
import type { ChainParams } from "../execution/params.js";
import { AccountTree } from "../state/account-tree.js";
import { StateView } from "../state/state-view.js";
import { AccountStore } from "../storage/account-store.js";
import type { Databases } from "../storage/databases.js";
import { LedgerStore } from "../storage/ledger-store.js";

const CHAIN_IDENTITY = "chain_identity";

export type LedgerListener = (ledger: ExecutedLedger) => void;

/**
 * The instants of storing a ledger where a crash matters (docs/faults.md, "Crashes during a ledger
 * write"): consensus decided it but nothing is written; ledger_db's batch is issued and not yet synced;
 * ledger_db holds it but account_db does not yet (the redo log must replay it).
 */
export const STORE_POINTS = ["before-ledger-write", "ledger-write", "state-apply"] as const;
export type StorePoint = (typeof STORE_POINTS)[number];

/**
 * Owns the chain on disk: creates ledger 1 from the genesis, recovers after a crash, executes and stores
 * each next ledger, and answers reads of ledgers, records and state.
 */
export class LedgerManager {
  readonly accounts: AccountStore;
  readonly ledgers: LedgerStore;
  readonly params: ChainParams;
  private readonly listeners: LedgerListener[] = [];
  private readonly storePointListeners: ((point: StorePoint, seq: bigint) => void)[] = [];
  private closing = Promise.resolve();
  /** Set when storing a ledger failed half-way: the process must restart and recover from the redo log. */
  private broken: Error | undefined;

  /** Ledgers closed since the process started, and whether one is being closed now (getModulesStatus). */
  closedSinceStart = 0;
  closingNow = false;

  private constructor(
    private readonly executor: Executor,
    private readonly tree: AccountTree,
    private tip: ChainTip,
    stores: { accounts: AccountStore; ledgers: LedgerStore },
    params: ChainParams,
    readonly validators: string[],
  ) {
    this.accounts = stores.accounts;
    this.ledgers = stores.ledgers;
    this.params = params;
  }

  static async open(dbs: Databases, config: NodeConfig, signatures: SignatureChecker, contracts: ContractSupport): Promise<LedgerManager> {
    const accounts = new AccountStore(dbs.account);
    const ledgers = new LedgerStore(dbs.ledger);
    const params: ChainParams = { chainId: config.genesis.chain_id, gasPrice: config.genesis.gas_price, baseReserve: config.genesis.base_reserve };
    await checkChainIdentity(dbs, config);
    const tree = new AccountTree();
    const ledgerHash = async (seq: bigint) => (await ledgers.ledger(seq))?.header?.hash;
    const executor = new Executor(accounts, tree, params, signatures, config.validators, contracts, ledgerHash);
    const lastSeq = await ledgers.lastSeq();
    let tip: ChainTip;
    if (lastSeq === 0n) {
      const genesis = await executor.genesis(genesisState(accounts, config), config.genesis.close_time);
      await ledgers.write({ ledger: stored(genesis.header, genesis.value, [], config.validators, params), records: [], changes: genesis.changes, txCount: 0n });
      await accounts.apply(1n, genesis.changes);
      genesis.commitTree();
      tip = { header: genesis.header, txCount: 0n };
    } else {
      for (let seq = (await accounts.appliedSeq()) + 1n; seq <= lastSeq; seq++) {
        const changes = await ledgers.changes(seq);
        if (!changes) throw new Error(`ledger ${seq} is stored without its state changes; the data directory is damaged`);
        await accounts.apply(seq, changes);
      }
      for await (const [address, encoded] of accounts.encodedAccounts()) tree.load(address, AccountTree.leaf(encoded));
      tree.rehashAll();
      const header = (await ledgers.ledger(lastSeq))!.header!;
      tip = { header, txCount: await ledgers.txCount() };
      const root = tree.preview(new Map()).root;
      if (!equalBytes(root, header.account_tree_hash!)) {
        throw new Error(`the stored accounts do not match ledger ${lastSeq}'s account_tree_hash; the data directory is damaged`);
      }
    }
    return new LedgerManager(executor, tree, tip, { accounts, ledgers }, params, config.validators);
  }

  get lastHeader(): LedgerHeader {
    return this.tip.header;
  }
  get txCount(): bigint {
    return this.tip.txCount;
  }

  /**
   * A transaction's record, once its ledger is the tip or older. A ledger's records are on disk a moment
   * before its state is applied and the tip moves: until then a client reading the record, then the
   * account, would see the account without the transaction.
   */
  async record(hashHex: string): Promise<RawTransactionEnvStore | undefined> {
    const record = await this.ledgers.record(hashHex);
    return record && record.ledger_seq! <= this.tip.header.seq! ? record : undefined;
  }

  /** A stored ledger at or below the tip (see `record`). */
  async ledger(seq: bigint): Promise<StoredLedger | undefined> {
    return seq <= this.tip.header.seq! ? this.ledgers.ledger(seq) : undefined;
  }

  onClosed(listener: LedgerListener): void {
    this.listeners.push(listener);
  }

  /** Called synchronously at each STORE_POINTS instant of every ledger stored (fault injection crashes there). */
  onStorePoint(listener: (point: StorePoint, seq: bigint) => void): void {
    this.storePointListeners.push(listener);
  }

  /** A view of the committed state, for checks outside a ledger (admission, queries). */
  stateView(): StateView {
    return new StateView(this.accounts);
  }

  /**
   * Executes `proposal` on the tip without storing it: how a replica checks a proposed value ("verify"
   * refuses the whole proposal for one bad transaction) and how a proposer builds one ("propose" leaves
   * bad transactions out). The result can be committed while the tip has not moved.
   */
  execute(proposal: LedgerProposal, mode: ExecutionMode): Promise<ExecutedLedger> {
    return this.serially(() => this.executeOnTip(proposal, mode));
  }

  /** Stores a ledger `execute` produced on the current tip, with the decision that committed it. */
  commit(executed: ExecutedLedger, decision?: LedgerDecision): Promise<ExecutedLedger> {
    return this.serially(async () => {
      if (executed.header.seq !== this.tip.header.seq! + 1n || !equalBytes(executed.value.previous_ledger_hash ?? new Uint8Array(), this.tip.header.hash!)) {
        throw new Error(`ledger ${executed.header.seq} was executed on another tip than ledger ${this.tip.header.seq}`);
      }
      return this.storeOnTip(executed, decision);
    });
  }

  /**
   * Executes and stores the next ledger in one step: a decided value ("decided", with its decision: it is
   * stored exactly or not at all), or in tests a ledger built from candidates ("propose"). Returns it, with
   * what it left out and why.
   */
  close(proposal: LedgerProposal, mode: "decided" | "propose", decision?: LedgerDecision): Promise<ExecutedLedger> {
    return this.serially(async () => this.storeOnTip(await this.executeOnTip(proposal, mode), decision));
  }

  /** Runs `task` after every earlier execute/commit/close: they all read or move the tip. */
  private serially<T>(task: () => Promise<T>): Promise<T> {
    const run = this.closing.then(task);
    this.closing = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private async executeOnTip(proposal: LedgerProposal, mode: ExecutionMode): Promise<ExecutedLedger> {
    if (this.broken) throw this.broken;
    this.closingNow = true;
    try {
      return await this.executor.execute(this.tip, proposal, mode);
    } finally {
      this.closingNow = false;
    }
  }

  private async storeOnTip(executed: ExecutedLedger, decision: LedgerDecision | undefined): Promise<ExecutedLedger> {
    try {
      await this.store(executed, decision);
    } catch (error) {
      this.broken = new Error(`storing ledger ${executed.header.seq} failed; restart the node to recover: ${(error as Error).message}`);
      throw this.broken;
    }
    this.tip = { header: executed.header, txCount: executed.txCount };
    this.closedSinceStart++;
    for (const listener of this.listeners) listener(executed);
    return executed;
  }

  /** Bytes of the last closed ledger's header. */
  get headerSize(): number {
    return codecs.LedgerHeader.encode(this.tip.header).length;
  }

  get accountCount(): number {
    return this.tree.size;
  }

  get failure(): Error | undefined {
    return this.broken;
  }

  private async store(executed: ExecutedLedger, decision: LedgerDecision | undefined): Promise<void> {
    this.reach("before-ledger-write", executed.header.seq!);
    const written = this.ledgers.write({
      ledger: stored(executed.header, executed.value, executed.records.map((r) => r.hash!), this.validators, this.params),
      records: executed.records,
      changes: executed.changes,
      txCount: executed.txCount,
      decision,
    });
    this.reach("ledger-write", executed.header.seq!); // the batch is issued: LevelDB writes it on its own thread meanwhile
    await written;
    this.reach("state-apply", executed.header.seq!);
    await this.accounts.apply(executed.header.seq!, executed.changes);
    executed.commitTree();
  }

  private reach(point: StorePoint, seq: bigint): void {
    for (const listener of this.storePointListeners) listener(point, seq);
  }
}

/** The StoredLedger of a header: the value without its transactions (the records hold them). */
function stored(header: LedgerHeader, value: ExecutedLedger["value"], txHashes: Uint8Array[], validators: string[], params: ChainParams): StoredLedger {
  const fees = { base_reserve: params.baseReserve, gas_price: params.gasPrice };
  return { header, value: { ...value, txs: undefined }, tx_hashes: txHashes, validators, fees };
}

function genesisState(accounts: AccountStore, config: NodeConfig): StateView {
  const state = new StateView(accounts);
  state.putAccount(newAccount(config.genesis.account, config.genesis.balance, DEFAULT_PRIVILEGE));
  for (const validator of config.validators) {
    if (validator !== config.genesis.account) state.putAccount(newAccount(validator, 0n, DEFAULT_PRIVILEGE));
  }
  return state;
}

/** Refuses to open a data directory created for another network or genesis. */
async function checkChainIdentity(dbs: Databases, config: NodeConfig): Promise<void> {
  const g = config.genesis;
  const identity = toHex(
    sha256(
      utf8(
        [config.network, g.account, g.balance, g.gas_price, g.base_reserve, g.chain_id, g.close_time, config.validators.join(",")].join("|"),
      ),
    ),
  );
  const stored = await dbs.keyvalue.get(CHAIN_IDENTITY);
  if (!stored) {
    await dbs.keyvalue.put(CHAIN_IDENTITY, utf8(identity), { sync: true });
  } else if (new TextDecoder().decode(stored) !== identity) {
    throw new ChainError(
      ErrorCode.INVALID_PARAMETER,
      `the data directory ${dbs.dir} belongs to another network or genesis than ${config.network}; use another data directory or wipe it`,
    );
  }
}

