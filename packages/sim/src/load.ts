import { ChainError, codecs, ContractType, devKeySeed, fromHex, OperationType, signBlob, SignedTransaction, toHex, addressFromPublicKey, decodePrivateKey, type Operation, type Signature } from "@chainsim/protocol";
import { NodeEd25519Signer } from "@chainsim/protocol/node-crypto";
import binaryen from "binaryen";
import type { History } from "./invariants/history.js";
import type { SimValidator } from "./sim-validator.js";

/** A counter contract: every call adds one to a metadata entry (docs/simulation.md, "Load"). */
const COUNTER = `function init() { Chain.store("count", "0"); }
function main(input) { Chain.store("count", String(Number(Chain.load("count")) + 1)); Chain.tlog("counted", input); }
function query() { return Chain.load("count"); }`;

/**
 * A WebAssembly contract (docs/wasm-abi.md) written in the text format. Its `main` stores, through the host
 * interface, its input under "last", then what `load("last")` reads back under "copy", then the
 * transaction's hash under "tx": a wasm run that differed between validators would change the ledger hash.
 * `$keep` runs a built-in and stores its JSON result under a key: the store's argument array is built in
 * place, its prefix (`["key",`) a data segment, the result copied right after it, then `]`.
 */
const KEEPING_WAT = `(module
  (import "env" "call" (func $call (param i32 i32 i32 i32) (result i32)))
  (import "env" "result" (func $result (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "input")
  (data (i32.const 8) "load")
  (data (i32.const 16) "store")
  (data (i32.const 24) "tx.hash")
  (data (i32.const 32) "[]")
  (data (i32.const 40) "[\\"last\\"]")
  (data (i32.const 1024) "[\\"last\\",")
  (data (i32.const 2048) "[\\"copy\\",")
  (data (i32.const 3072) "[\\"tx\\",")
  (func $keep (param $name i32) (param $nameLength i32) (param $args i32) (param $argsLength i32) (param $prefix i32) (param $prefixLength i32)
    (local $length i32)
    (local.set $length (call $call (local.get $name) (local.get $nameLength) (local.get $args) (local.get $argsLength)))
    (call $result (i32.add (local.get $prefix) (local.get $prefixLength)))
    (i32.store8 (i32.add (i32.add (local.get $prefix) (local.get $prefixLength)) (local.get $length)) (i32.const 93))
    (drop (call $call (i32.const 16) (i32.const 5) (local.get $prefix) (i32.add (i32.add (local.get $prefixLength) (local.get $length)) (i32.const 1)))))
  (func (export "apply") (param i64 i64 i64)
    (if (i64.eq (local.get 1) (i64.const 1)) (then
      (call $keep (i32.const 0) (i32.const 5) (i32.const 32) (i32.const 2) (i32.const 1024) (i32.const 8))
      (call $keep (i32.const 8) (i32.const 4) (i32.const 40) (i32.const 8) (i32.const 2048) (i32.const 8))
      (call $keep (i32.const 24) (i32.const 7) (i32.const 32) (i32.const 2) (i32.const 3072) (i32.const 6))))))`;

/** The contracts the load deploys, in order, then calls. */
const CONTRACTS = [
  { type: ContractType.JAVASCRIPT, payload: COUNTER },
  { type: ContractType.WASM, payload: assembleWat(KEEPING_WAT) },
] as const;

function assembleWat(text: string): string {
  const module = binaryen.parseText(text);
  try {
    if (!module.validate()) throw new Error("the load's wasm contract does not validate");
    return Buffer.from(module.emitBinary()).toString("base64");
  } finally {
    module.dispose();
  }
}

const FEE_LIMIT = 1_000_000n;

/** A validator admitted a transaction every validator must refuse: the run's "admission" invariant. */
export class AdmissionBroken extends Error {
  readonly invariant = "admission";
}
const CONTRACT_FEE_LIMIT = 200_000_000n;
const ACCOUNT_BALANCE = 10_000_000_000n;

interface LoadAccount {
  address: string;
  signer: NodeEd25519Signer;
  /** The next nonce to use (the last accepted one plus one). */
  nonce: bigint;
  /** A joint account's second signer: from its set-up on, both sign. */
  cosigner?: LoadAccount;
}

/**
 * What a load step submits: a transfer, a contract deploy or call, the set-up of a joint account (two
 * signers, threshold 2), or a transaction every validator must refuse.
 */
export type LoadKind = "transfer" | "deploy" | "call" | "joint" | "bad";

/**
 * Seeded client load for the simulation (docs/simulation.md): funds accounts from the genesis account, then
 * submits transfers, a contract deployment and calls, and transactions that must be refused, each to a
 * validator the seed picks. Every submission and its answer go into the history the scenario checker reads.
 */
export class SimLoad {
  readonly history: History = { txs: {}, submissions: [] };
  private readonly genesis: LoadAccount;
  private readonly accounts: LoadAccount[];
  private funded = false;
  /** Per entry of CONTRACTS: the deployment's hash once accepted, and the contract's address once committed. */
  private readonly deployments: { hash?: string; address?: string }[] = CONTRACTS.map(() => ({}));
  private joint = false;

  constructor(
    network: string,
    genesisPrivateKey: string,
    private readonly chainId: bigint,
    private readonly gasPrice: bigint,
    private readonly random: () => number,
    accounts = 6,
  ) {
    this.genesis = account(decodePrivateKey(genesisPrivateKey), 1n);
    this.accounts = Array.from({ length: accounts }, (_, i) => account(devKeySeed(network, `sim-load-${i}`), 1n));
  }

  /** Accepted transactions (error_code 0 at least once), by hash. */
  accepted(): string[] {
    return [...new Set(this.history.submissions.filter((s) => s.error_code === 0).map((s) => s.hash))];
  }

  /**
   * Accepted transactions not in `committed` and not refused with a reason since they were last accepted
   * (the no-loss check's terms): what a client still waits for.
   */
  outstanding(committed: Set<string>): string[] {
    const lastAccepted = new Map<string, number>();
    const refusedAfter = new Set<string>();
    this.history.submissions.forEach((s, i) => {
      if (s.error_code === 0) {
        lastAccepted.set(s.hash, i);
        refusedAfter.delete(s.hash);
      } else if (s.error_code !== undefined && lastAccepted.has(s.hash)) refusedAfter.add(s.hash);
    });
    return [...lastAccepted.keys()].filter((hash) => !committed.has(hash) && !refusedAfter.has(hash));
  }

  /** One load step at `nowMs` against `validator`: funding first, until it is committed; then a seeded mix. */
  async step(validator: SimValidator, nowMs: number): Promise<void> {
    if (!this.funded) return this.fund(validator, nowMs);
    for (const deployment of this.deployments) if (deployment.hash && !deployment.address) await this.readContractAddress(validator, deployment);
    const undeployed = this.deployments.findIndex((d) => !d.hash);
    const callable = this.deployments.filter((d) => d.address);
    const roll = this.random();
    const kind: LoadKind = roll < 0.08 ? "bad" : undeployed >= 0 ? "deploy" : !this.joint ? "joint" : roll < 0.25 && callable.length > 0 ? "call" : "transfer";
    const from = this.accounts[Math.floor(this.random() * this.accounts.length)]!;
    const to = this.accounts[Math.floor(this.random() * this.accounts.length)]!;
    if (kind === "deploy") {
      const { type, payload } = CONTRACTS[undeployed]!;
      const tx = await this.sign(from, [{ type: OperationType.CREATE_ACCOUNT, create_account: { contract: { type, payload }, init_balance: 0n, init_input: "", priv: { thresholds: { tx_threshold: 1n } } } }], CONTRACT_FEE_LIMIT);
      if (await this.submit(validator, tx, from, nowMs)) this.deployments[undeployed]!.hash = tx.hashHex;
    } else if (kind === "joint") {
      // the first account takes the second as a signer and needs both from then on
      const [owner, partner] = this.accounts as [LoadAccount, LoadAccount];
      const tx = await this.sign(owner, [
        // an absent master_weight would set it to 0 (the family's rule: -1 leaves it as it is)
        { type: OperationType.SET_SIGNER_WEIGHT, set_signer_weight: { master_weight: 1n, signers: [{ address: partner.address, weight: 1n }] } },
        { type: OperationType.SET_THRESHOLD, set_threshold: { tx_threshold: 2n } },
      ], FEE_LIMIT);
      if (await this.submit(validator, tx, owner, nowMs)) {
        owner.cosigner = partner;
        this.joint = true;
      }
    } else if (kind === "call") {
      const contract = callable[Math.floor(this.random() * callable.length)]!;
      const tx = await this.sign(from, [{ type: OperationType.PAY_COIN, pay_coin: { dest_address: contract.address, amount: 0n, input: String(nowMs) } }], CONTRACT_FEE_LIMIT);
      await this.submit(validator, tx, from, nowMs);
    } else if (kind === "transfer") {
      const amount = 1n + BigInt(Math.floor(this.random() * 1000));
      const tx = await this.sign(from, [{ type: OperationType.PAY_COIN, pay_coin: { dest_address: to.address, amount } }], FEE_LIMIT);
      await this.submit(validator, tx, from, nowMs);
    } else {
      await this.submitBad(validator, from, nowMs);
    }
  }

  /** Submits `hashes` again to `validator` (a client retrying what it has not seen committed). */
  async resubmit(validator: SimValidator, hashes: string[], nowMs: number): Promise<void> {
    for (const hash of hashes) {
      const { blob, signatures } = this.history.txs[hash]!;
      const tx = new SignedTransaction(fromHex(blob), signatures.map((s) => ({ public_key: s.public_key, sign_data: fromHex(s.sign_data) })));
      await this.record(validator, tx, nowMs);
    }
  }

  private async fund(validator: SimValidator, nowMs: number): Promise<void> {
    const hashes = Object.values(this.history.txs).filter((tx) => tx.origin === "setup").map((tx) => tx.hash);
    if (hashes.length > 0) {
      const core = validator.core;
      if (!core) return; // a client's call to a validator that is down gets no answer
      if (await core.ledgers.ledgers.record(hashes[0]!)) this.funded = true;
      else await this.resubmit(validator, hashes, nowMs);
      return;
    }
    const operations: Operation[] = this.accounts.map((a) => ({
      type: OperationType.CREATE_ACCOUNT,
      create_account: { dest_address: a.address, init_balance: ACCOUNT_BALANCE, priv: { master_weight: 1n, thresholds: { tx_threshold: 1n } } },
    }));
    const tx = await this.sign(this.genesis, operations, FEE_LIMIT, { origin: "setup" });
    await this.record(validator, tx, nowMs);
  }

  private async readContractAddress(validator: SimValidator, deployment: { hash?: string; address?: string }): Promise<void> {
    const core = validator.core;
    if (!core) return; // down: the client asks another validator at a later step
    const record = await core.ledgers.ledgers.record(deployment.hash!);
    if (!record) return;
    if ((record.error_code ?? 0) !== 0) {
      deployment.hash = undefined; // refused in its ledger (a fee, a nonce): deploy again
      return;
    }
    deployment.address = (JSON.parse(record.error_desc!) as { contract_address: string }[])[0]!.contract_address;
  }

  /** Transactions every validator must refuse at admission: a broken signature, a fee limit under the fee, another chain, a used nonce. */
  private async submitBad(validator: SimValidator, from: LoadAccount, nowMs: number): Promise<void> {
    const pay: Operation[] = [{ type: OperationType.PAY_COIN, pay_coin: { dest_address: this.genesis.address, amount: 1n } }];
    // a nonce the validator's committed state has used already (never one still pending: a lost one may be next)
    const used = (await validator.core?.ledgers.accounts.account(from.address))?.nonce ?? 0n;
    const choices = [
      { what: "a broken signature", tx: () => this.sign(from, pay, FEE_LIMIT, { tamper: (sig) => ({ ...sig, sign_data: sig.sign_data!.map((b, i) => (i === 0 ? b ^ 1 : b)) }) }) },
      { what: "a fee limit of 1", tx: () => this.sign(from, pay, 1n) },
      { what: "another chain id", tx: () => this.sign(from, pay, FEE_LIMIT, { chainId: this.chainId + 1n }) },
      ...(used > 0n ? [{ what: `nonce ${used}, used already`, tx: () => this.sign(from, pay, FEE_LIMIT, { nonce: used }) }] : []),
    ];
    const choice = choices[Math.floor(this.random() * choices.length)]!;
    const code = await this.record(validator, await choice.tx(), nowMs);
    if (code === 0) throw new AdmissionBroken(`${validator.name} accepted a transaction it must refuse (${choice.what})`);
  }

  /** Submits, and on acceptance moves the sender's nonce on. */
  private async submit(validator: SimValidator, tx: SignedTransaction, from: LoadAccount, nowMs: number): Promise<boolean> {
    const accepted = (await this.record(validator, tx, nowMs)) === 0;
    if (accepted) from.nonce++;
    return accepted;
  }

  /** Submits one transaction to `validator` and writes the call and its answer into the history. */
  private async record(validator: SimValidator, tx: SignedTransaction, nowMs: number): Promise<number | undefined> {
    const submission: History["submissions"][number] = { hash: tx.hashHex, node: validator.name, sent_ms: nowMs };
    this.history.submissions.push(submission);
    const txs = validator.core?.txs;
    if (!txs) {
      submission.error = "the validator is down";
      return undefined;
    }
    try {
      await txs.submit(tx, "client");
      submission.error_code = 0;
    } catch (error) {
      if (!(error instanceof ChainError)) throw error;
      submission.error_code = error.code;
      submission.error_desc = error.message;
    }
    return submission.error_code;
  }

  private async sign(
    from: LoadAccount,
    operations: Operation[],
    feeLimit: bigint,
    { origin = "load", tamper, chainId = this.chainId, nonce = from.nonce }: { origin?: "setup" | "load"; tamper?: (signature: Signature) => Signature; chainId?: bigint; nonce?: bigint } = {},
  ): Promise<SignedTransaction> {
    const blob = codecs.Transaction.encode({ source_address: from.address, nonce, fee_limit: feeLimit, gas_price: this.gasPrice, chain_id: chainId, operations });
    const signatures: Signature[] = [];
    for (const signer of from.cosigner ? [from.signer, from.cosigner.signer] : [from.signer]) {
      const signed = await signBlob(signer, blob);
      signatures.push({ public_key: signed.public_key, sign_data: fromHex(signed.sign_data) });
    }
    const tx = new SignedTransaction(blob, tamper ? [tamper(signatures[0]!), ...signatures.slice(1)] : signatures);
    this.history.txs[tx.hashHex] = {
      hash: tx.hashHex,
      blob: toHex(blob),
      signatures: tx.signatures.map((s) => ({ public_key: s.public_key!, sign_data: toHex(s.sign_data!) })),
      origin,
    };
    return tx;
  }
}

function account(seed: Uint8Array, nonce: bigint): LoadAccount {
  const signer = new NodeEd25519Signer(seed);
  return { address: addressFromPublicKey(signer.publicKey), signer, nonce };
}
