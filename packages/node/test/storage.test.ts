// Storage and crash safety: ledgers survive a restart, the redo log recovers a ledger whose state was not
// applied, and a data directory refuses another genesis.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { ChainError, ErrorCode, codecs, toHex } from "@chainsim/protocol";
import { AccountStore, accountKey } from "../src/storage/account-store.js";
import { ClassicLevel } from "classic-level";
import { Databases, STORAGE_FORMAT } from "../src/storage/databases.js";
import { GENESIS_BALANCE, TestChain, makeKey, op, recordCode } from "./helpers/chain.js";

const A = makeKey("a");
const B = makeKey("b");

describe("storage", () => {
  const chains: TestChain[] = [];
  async function track(c: Promise<TestChain>): Promise<TestChain> {
    const chain = await c;
    chains.push(chain);
    return chain;
  }
  afterEach(async () => {
    for (const c of chains.splice(0).reverse()) await c.teardown();
  });

  /** Two ledgers of transactions; returns them for later checks. */
  async function activity(c: TestChain) {
    await c.fund(A);
    const pay = await c.tx(A, [op.pay(B.address, 5_000n), op.setMetadata({ key: "k", value: "v" })]);
    const failed = await c.tx(A, [op.pay(A.address, 1n)], { nonce: 2n });
    expect(await c.submit(pay)).to.equal(0);
    expect(await c.submit(failed)).to.equal(0);
    return { pay, failed };
  }

  it("creates ledger 1 from the genesis: the genesis account holds the balance, validators exist", async () => {
    const chain = await track(TestChain.create());
    expect(chain.ledgers.lastHeader.seq).to.equal(1n);
    expect(chain.ledgers.lastHeader.previous_hash).to.equal(undefined);
    expect(await chain.balance(chain.genesis.address)).to.equal(GENESIS_BALANCE);
    expect(await chain.account(chain.validator.address)).to.deep.include({ address: chain.validator.address });
    expect(chain.ledgers.accountCount).to.equal(2);
    expect(await chain.ledgers.accounts.appliedSeq()).to.equal(1n);
  });

  it("keeps ledgers, balances, nonces, metadata and records across close and reopen", async () => {
    const chain = await track(TestChain.create());
    const { pay, failed } = await activity(chain);
    await chain.close();
    const header = chain.ledgers.lastHeader;
    const before = await Promise.all([chain.genesis, A, B, chain.validator].map((k) => chain.account(k.address)));
    const records = await Promise.all([chain.record(pay), chain.record(failed)]);

    const reopened = await track(chain.reopen());
    expect(toHex(reopened.ledgers.lastHeader.hash!)).to.equal(toHex(header.hash!));
    expect(toHex(codecs.LedgerHeader.encode(reopened.ledgers.lastHeader))).to.equal(toHex(codecs.LedgerHeader.encode(header)));
    expect(reopened.ledgers.txCount).to.equal(3n);
    expect(reopened.ledgers.accountCount).to.equal(4);
    expect(await Promise.all([reopened.genesis, A, B, reopened.validator].map((k) => reopened.account(k.address)))).to.deep.equal(before);
    expect((await reopened.account(A.address))!.nonce).to.equal(2n);
    expect(await reopened.metadata(A.address, "k")).to.deep.equal({ key: "k", value: "v", version: 1n });
    expect(await Promise.all([reopened.record(pay), reopened.record(failed)])).to.deep.equal(records);
    expect(recordCode(records[1])).to.equal(ErrorCode.SOURCE_EQUALS_DESTINATION);

    // The chain goes on from the stored tip.
    const next = await reopened.close([]);
    expect(next.header.seq).to.equal(header.seq! + 1n);
    expect(toHex(next.header.previous_hash!)).to.equal(toHex(header.hash!));
  });

  it("recovers a ledger stored in ledger_db whose account_db batch never ran (crash between the two)", async () => {
    const twin = await track(TestChain.create());
    const chain = await track(TestChain.create());
    for (const c of [twin, chain]) await activity(c);
    await twin.close();

    // The crash: ledger_db's batch is written (the commit point), account_db's is not.
    chain.ledgers.accounts.apply = async () => {
      throw new Error("simulated crash before the account_db batch");
    };
    const error = await chain.close().catch((e: Error) => e);
    expect(error).to.be.instanceOf(Error);
    expect((error as Error).message).to.match(/restart the node to recover/);
    expect(await chain.ledgers.ledgers.lastSeq()).to.equal(3n);
    expect(await chain.ledgers.accounts.appliedSeq()).to.equal(2n);
    expect(await chain.account(B.address)).to.equal(undefined, "account_db is one ledger behind");
    // A broken manager refuses to go on.
    expect(((await chain.close([]).catch((e: Error) => e)) as Error).message).to.match(/restart the node/);

    const recovered = await track(chain.reopen()); // open() replays the redo log and checks account_tree_hash
    expect(await recovered.ledgers.accounts.appliedSeq()).to.equal(3n);
    expect(recovered.ledgers.lastHeader.seq).to.equal(3n);
    expect(toHex(recovered.ledgers.lastHeader.hash!)).to.equal(toHex(twin.ledgers.lastHeader.hash!));
    for (const key of [twin.genesis, A, B, twin.validator]) {
      expect(await recovered.account(key.address), key.name).to.deep.equal(await twin.account(key.address));
    }
    expect(await recovered.metadata(A.address, "k")).to.deep.equal(await twin.metadata(A.address, "k"));

    // Both go on identically.
    for (const c of [twin, recovered]) expect(recordCode(await c.run(A, [op.pay(B.address, 1n)]))).to.equal(0);
    expect(toHex(recovered.ledgers.lastHeader.hash!)).to.equal(toHex(twin.ledgers.lastHeader.hash!));
  });

  it("reports the store points of each ledger in order, where fault injection may crash (docs/faults.md)", async () => {
    const chain = await track(TestChain.create());
    const reached: string[] = [];
    chain.ledgers.onStorePoint((point, seq) => reached.push(`${seq} ${point}`));
    await activity(chain);
    const seq = chain.ledgers.lastHeader.seq!;
    expect(reached.slice(-3)).to.deep.equal([`${seq} before-ledger-write`, `${seq} ledger-write`, `${seq} state-apply`]);
  });

  it("recovers the genesis ledger when account_db was not written", async () => {
    const dir = await mkdtemp(join(tmpdir(), "chainsim-node-test-"));
    const original = AccountStore.prototype.apply;
    AccountStore.prototype.apply = async () => {
      throw new Error("simulated crash during genesis");
    };
    try {
      const error = await TestChain.create({ dir }).catch((e: Error) => e);
      expect((error as Error).message).to.match(/simulated crash/);
    } finally {
      AccountStore.prototype.apply = original;
    }
    const recovered = await track(TestChain.create({ dir }));
    expect(recovered.ledgers.lastHeader.seq).to.equal(1n);
    expect(await recovered.balance(recovered.genesis.address)).to.equal(GENESIS_BALANCE);
    expect(await recovered.ledgers.accounts.appliedSeq()).to.equal(1n);
    expect(recordCode(await recovered.run(recovered.genesis, [op.pay(A.address, 1n)]))).to.equal(0);
  });

  it("refuses to open when account_db does not match the last ledger's account_tree_hash", async () => {
    const chain = await track(TestChain.create());
    await chain.fund(A);
    await chain.dbs.close();
    const dbs = await Databases.open(chain.dir);
    const account = (await new AccountStore(dbs.account).account(A.address))!;
    await dbs.account.put(accountKey(A.address), codecs.Account.encode({ ...account, balance: account.balance! + 1n }));
    await dbs.close();
    const error = await TestChain.create({ dir: chain.dir }).catch((e: Error) => e);
    expect((error as Error).message).to.match(/account_tree_hash/);
  });

  it("refuses a data directory created for another genesis or network, with a clear error", async () => {
    const chain = await track(TestChain.create());
    await chain.fund(A);
    await chain.dbs.close();
    for (const options of [{ baseReserve: 5n }, { gasPrice: 200n }, { chainId: 9n }, { network: "another" }]) {
      const error = await TestChain.create({ ...options, dir: chain.dir }).catch((e: unknown) => e);
      expect(error, JSON.stringify(options, (_k, v) => (typeof v === "bigint" ? `${v}` : v))).to.be.instanceOf(ChainError);
      expect((error as ChainError).code).to.equal(ErrorCode.INVALID_PARAMETER);
      expect((error as ChainError).message).to.match(/belongs to another network or genesis/);
      expect((error as ChainError).message).to.include(chain.dir);
    }
    // The same genesis still opens it.
    const reopened = await track(TestChain.create({ dir: chain.dir }));
    expect(await reopened.balance(A.address)).to.equal(1_000_000_000n);
  });

  it("marks a data directory with its storage format and refuses one of a newer format, with what to do", async () => {
    const chain = await track(TestChain.create());
    await chain.dbs.close();
    const dbs = await Databases.open(chain.dir);
    expect(new TextDecoder().decode(await dbs.keyvalue.get("storage_format"))).to.equal(String(STORAGE_FORMAT));
    await dbs.keyvalue.put("storage_format", new TextEncoder().encode(String(STORAGE_FORMAT + 1)));
    await dbs.close();
    const error = await Databases.open(chain.dir).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ChainError);
    expect((error as ChainError).message).to.include(`has storage format ${STORAGE_FORMAT + 1}, written by a newer chainsim; this one reads format ${STORAGE_FORMAT}`);
    // The refusal closed the databases: the directory can be opened again once the marker is right.
    const again = new ClassicLevel<string, Uint8Array>(join(chain.dir, "keyvalue_db"), { valueEncoding: "view" });
    await again.put("storage_format", new TextEncoder().encode(String(STORAGE_FORMAT)));
    await again.close();
    await (await Databases.open(chain.dir)).close();
  });
});
