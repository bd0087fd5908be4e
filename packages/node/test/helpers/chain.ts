// A small in-process chain for unit tests: one temp data directory, the real LedgerManager and TxService,
// ledgers closed on demand with strictly increasing close times. No timers, no HTTP.
import { DEFAULT_CONTRACT_LIMITS, JsRuntime, type ContractLimits } from "@chainsim/contracts";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ChainError,
  SignedTransaction,
  addressFromPublicKey,
  codecs,
  devKeySeed,
  encodePrivateKey,
  encodePublicKey,
  fromHex,
  signBlob,
  OperationType,
  type Account,
  type AccountPrivilege,
  type KeyPair,
  type Operation,
  type OperationSetMetadata,
  type OperationSetPrivilege,
  type OperationSetSignerWeight,
  type OperationSetThreshold,
  type RawTransactionEnvStore,
  type Signature,
  type Transaction,
} from "@chainsim/protocol";
import { Ed25519Verifier, NodeEd25519Signer } from "@chainsim/protocol/node-crypto";
import { parseNodeConfig, type NodeConfig } from "../../src/config.js";
import { SignatureChecker } from "../../src/execution/authorization.js";
import type { ContractSupport, ExecutedLedger } from "../../src/execution/executor.js";
import { LedgerManager } from "../../src/ledger/ledger-manager.js";
import { TxService } from "../../src/pool/tx-service.js";
import { Databases } from "../../src/storage/databases.js";
import { METADATA } from "../../src/state/entries.js";

export const NETWORK = "unit";
/** One contract runtime for every test chain (isolates are reused, like a node does). */
export const TEST_CONTRACTS: ContractSupport = { runtime: new JsRuntime(DEFAULT_CONTRACT_LIMITS), limits: DEFAULT_CONTRACT_LIMITS };
/** 1,000,000 coins: plenty for every test. */
export const GENESIS_BALANCE = 100_000_000_000_000n;
export const GAS_PRICE = 100n;
export const FEE_LIMIT = 1_000_000n;

export interface Key {
  name: string;
  signer: NodeEd25519Signer;
  address: string;
  publicKey: string;
  privateKey: string;
}

/** A deterministic dev key named `name`. */
export function makeKey(name: string, network = NETWORK): Key {
  const seed = devKeySeed(network, name);
  const signer = new NodeEd25519Signer(seed);
  return { name, signer, address: addressFromPublicKey(signer.publicKey), publicKey: encodePublicKey(signer.publicKey), privateKey: encodePrivateKey(seed) };
}

export async function sign(key: Key, blob: Uint8Array): Promise<Signature> {
  const s = await signBlob(key.signer, blob);
  return { public_key: s.public_key, sign_data: fromHex(s.sign_data) };
}

/** Builds and signs a transaction; `signers` default to the source key, `signatures` replace them. */
export async function buildTx(
  source: Key,
  operations: Operation[],
  fields: Partial<Transaction> & { nonce: bigint; signers?: Key[]; signatures?: Signature[] },
): Promise<SignedTransaction> {
  const { signers, signatures, ...rest } = fields;
  const blob = codecs.Transaction.encode({ source_address: source.address, fee_limit: FEE_LIMIT, gas_price: GAS_PRICE, operations, ...rest });
  return new SignedTransaction(blob, signatures ?? (await Promise.all((signers ?? [source]).map((k) => sign(k, blob)))));
}

/** Operation builders (the value form of compat.md §3). */
export const op = {
  pay: (dest: string, amount: bigint, source?: string): Operation => ({ type: OperationType.PAY_COIN, source_address: source, pay_coin: { dest_address: dest, amount } }),
  /** `priv` defaults to master 1 / tx_threshold 1; null leaves it out. */
  create: (dest: string, init_balance: bigint, priv?: AccountPrivilege | null, metadatas?: KeyPair[]): Operation => ({
    type: OperationType.CREATE_ACCOUNT,
    create_account: { dest_address: dest, init_balance, priv: priv === null ? undefined : (priv ?? { master_weight: 1n, thresholds: { tx_threshold: 1n } }), metadatas },
  }),
  setMetadata: (body: OperationSetMetadata, source?: string): Operation => ({ type: OperationType.SET_METADATA, source_address: source, set_metadata: body }),
  setPrivilege: (body: OperationSetPrivilege): Operation => ({ type: OperationType.SET_PRIVILEGE, set_privilege: body }),
  setSignerWeight: (body: OperationSetSignerWeight): Operation => ({ type: OperationType.SET_SIGNER_WEIGHT, set_signer_weight: body }),
  setThreshold: (body: OperationSetThreshold): Operation => ({ type: OperationType.SET_THRESHOLD, set_threshold: body }),
  log: (topic: string, datas: string[]): Operation => ({ type: OperationType.LOG, log: { topic, datas } }),
};

/** The error_code of a transaction record (absent means 0). */
export function recordCode(record: RawTransactionEnvStore | undefined): number {
  if (!record) throw new Error("no record");
  return record.error_code ?? 0;
}

/** The error code of a ChainError thrown by `f`, or 0. Other errors propagate. */
export async function codeOf(f: Promise<unknown> | (() => unknown)): Promise<number> {
  try {
    await (typeof f === "function" ? f() : f);
    return 0;
  } catch (error) {
    if (error instanceof ChainError) return error.code;
    throw error;
  }
}

export interface ChainOptions {
  baseReserve?: bigint;
  gasPrice?: bigint;
  chainId?: bigint;
  network?: string;
  /** Reuse a data directory (reopen); by default a new temp directory. */
  dir?: string;
  /**
   * Contract limits other than the defaults (merged into DEFAULT_CONTRACT_LIMITS): the chain then gets its
   * own runtime, disposed at teardown. By default every chain shares TEST_CONTRACTS.
   */
  contractLimits?: Partial<ContractLimits>;
  /** Where transactions' Utils.log lines go (the node's trace log); the chain then gets its own runtime too. */
  trace?: (line: string) => void;
}

export class TestChain {
  readonly genesis = makeKey("genesis");
  readonly validator = makeKey("validator");
  /** TxService's clock (ms); tests move it by hand. */
  now = 1_700_000_000_000;
  readonly txs: TxService;
  /** Close time (µs) of the last ledger; each close adds one second. */
  private closeTime: bigint;

  private constructor(
    readonly dir: string,
    readonly config: NodeConfig,
    readonly dbs: Databases,
    readonly ledgers: LedgerManager,
    readonly signatures: SignatureChecker,
    /** The contract runtime and limits this chain executes with. */
    readonly contracts: ContractSupport,
  ) {
    this.txs = new TxService(ledgers, signatures, () => this.now);
    this.closeTime = ledgers.lastHeader.close_time ?? 0n;
  }

  static config(dir: string, options: ChainOptions = {}): NodeConfig {
    return parseNodeConfig({
      network: options.network ?? NETWORK,
      node_name: "v1",
      data_dir: dir,
      webserver: { listen_addresses: "127.0.0.1:0" },
      wsserver: { listen_address: "127.0.0.1:0" },
      p2p: { listen_address: "127.0.0.1:0", peers: [] },
      validator: { private_key: makeKey("validator").privateKey },
      validators: [makeKey("validator").address],
      genesis: {
        account: makeKey("genesis").address,
        balance: GENESIS_BALANCE,
        gas_price: options.gasPrice ?? GAS_PRICE,
        base_reserve: options.baseReserve ?? 0n,
        chain_id: options.chainId ?? 0n,
      },
    });
  }

  /** Opens a chain in `options.dir`, or in a new temp directory (removed again if opening fails). */
  static async create(options: ChainOptions = {}): Promise<TestChain> {
    const dir = options.dir ?? (await mkdtemp(join(tmpdir(), "chainsim-node-test-")));
    const config = TestChain.config(dir, options);
    const limits = options.contractLimits || options.trace ? { ...DEFAULT_CONTRACT_LIMITS, ...options.contractLimits } : undefined;
    const contracts = limits ? { runtime: new JsRuntime(limits), limits, trace: options.trace } : TEST_CONTRACTS;
    const dbs = await Databases.open(dir);
    try {
      const signatures = new SignatureChecker(new Ed25519Verifier());
      return new TestChain(dir, config, dbs, await LedgerManager.open(dbs, config, signatures, contracts), signatures, contracts);
    } catch (error) {
      if (contracts !== TEST_CONTRACTS) contracts.runtime.dispose();
      await dbs.close();
      if (!options.dir) await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** Closes the databases and opens the same directory again, as a restarted node would. */
  async reopen(options: ChainOptions = {}): Promise<TestChain> {
    if (this.contracts !== TEST_CONTRACTS) this.contracts.runtime.dispose();
    await this.dbs.close();
    return TestChain.create({ ...options, dir: this.dir });
  }

  async teardown(): Promise<void> {
    if (this.contracts !== TEST_CONTRACTS) this.contracts.runtime.dispose();
    if (this.dbs.account.status === "open") await this.dbs.close();
    await rm(this.dir, { recursive: true, force: true });
  }

  async nextNonce(address: string): Promise<bigint> {
    return ((await this.account(address))?.nonce ?? 0n) + 1n;
  }

  /** A signed transaction from `source`; the nonce defaults to its committed nonce + 1. */
  async tx(
    source: Key,
    operations: Operation[],
    fields: Partial<Transaction> & { signers?: Key[]; signatures?: Signature[] } = {},
  ): Promise<SignedTransaction> {
    return buildTx(source, operations, { ...fields, nonce: fields.nonce ?? (await this.nextNonce(source.address)) });
  }

  /** Submits through TxService: 0 when pooled (or a duplicate), else the ChainError code. */
  submit(tx: SignedTransaction): Promise<number> {
    return codeOf(this.txs.submit(tx));
  }

  /** Closes the next ledger with `txs`, by default the pool's next proposal. */
  async close(txs?: SignedTransaction[]): Promise<ExecutedLedger> {
    this.closeTime += 1_000_000n;
    return this.ledgers.close({ closeTime: this.closeTime, proposer: this.validator.address, txs: txs ?? (await this.txs.nextProposal(1000)) }, "propose");
  }

  /** Submits (must be accepted), closes a ledger, and returns the transaction's record. */
  async run(source: Key, operations: Operation[], fields: Parameters<TestChain["tx"]>[2] = {}): Promise<RawTransactionEnvStore> {
    const tx = await this.tx(source, operations, fields);
    const code = await this.submit(tx);
    if (code !== 0) throw new Error(`submit refused with ${code}`);
    await this.close();
    const record = await this.record(tx);
    if (!record) throw new Error("the transaction is not in the ledger");
    return record;
  }

  /** Creates a funded account with the default privilege (paid by the genesis account). */
  async fund(key: Key, amount = 1_000_000_000n): Promise<Key> {
    const record = await this.run(this.genesis, [op.pay(key.address, amount)]);
    if (record.error_code) throw new Error(`funding ${key.name} failed with ${record.error_code}`);
    return key;
  }

  account(address: string): Promise<Account | undefined> {
    return this.ledgers.accounts.account(address);
  }

  async balance(address: string): Promise<bigint> {
    return (await this.account(address))?.balance ?? 0n;
  }

  metadata(address: string, key: string): Promise<KeyPair | undefined> {
    return this.ledgers.accounts.entry(METADATA, address, key);
  }

  record(tx: SignedTransaction): Promise<RawTransactionEnvStore | undefined> {
    return this.ledgers.ledgers.record(tx.hashHex);
  }
}

/**
 * Registers mocha hooks in the calling describe block: a fresh chain before each test (handed to `use`),
 * and every chain made during the test torn down after it. Returns the function that makes more chains.
 */
export function chainPerTest(use: (chain: TestChain) => void): (options?: ChainOptions) => Promise<TestChain> {
  const chains: TestChain[] = [];
  const newChain = async (options: ChainOptions = {}): Promise<TestChain> => {
    const c = await TestChain.create(options);
    chains.push(c);
    return c;
  };
  beforeEach(async () => use(await newChain()));
  afterEach(async () => {
    await Promise.all(chains.splice(0).map((c) => c.teardown()));
  });
  return newChain;
}
