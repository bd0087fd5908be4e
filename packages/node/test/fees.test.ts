// Fees and admission (compat.md §5, §6), and the testTransaction fee estimate.
import { expect } from "chai";
import { ChainError, ErrorCode, SignedTransaction, codecs, toHex, type Transaction } from "@chainsim/protocol";
import { actualFee } from "../src/execution/checks.js";
import { EMPTY_HASH } from "../src/execution/operations.js";
import { simulateTransaction } from "../src/execution/simulate.js";
import { GAS_PRICE, TEST_CONTRACTS, TestChain, chainPerTest, codeOf, makeKey, op, recordCode, sign } from "./helpers/chain.js";

const A = makeKey("a");
const B = makeKey("b");

describe("fees", () => {
  let chain: TestChain;
  const newChain = chainPerTest((c) => (chain = c));

  /** The transaction with fee_limit equal to its own fee (fee_limit is part of the priced bytes). */
  async function withExactFeeLimit(build: (feeLimit: bigint) => Promise<SignedTransaction>): Promise<SignedTransaction> {
    let tx = await build(1n);
    while (tx.transaction.fee_limit !== actualFee(tx)) tx = await build(actualFee(tx));
    return tx;
  }

  it("charges actual_fee = TransactionEnv size × gas_price on success and credits it to the proposer", async () => {
    await chain.fund(A);
    const [a, validator] = [await chain.balance(A.address), await chain.balance(chain.validator.address)];
    const tx = await chain.tx(A, [op.pay(B.address, 1_000n)], { gas_price: 150n });
    const envSize = codecs.RawTransactionEnv.encode({ transaction: tx.blob, signatures: tx.signatures }).length;
    expect(tx.envSize).to.equal(envSize);
    expect(await chain.submit(tx)).to.equal(0);
    await chain.close();
    const record = (await chain.record(tx))!;
    expect(recordCode(record)).to.equal(0);
    expect(record.actual_fee).to.equal(BigInt(envSize) * 150n);
    expect(await chain.balance(A.address)).to.equal(a - 1_000n - record.actual_fee!);
    expect(await chain.balance(chain.validator.address)).to.equal(validator + record.actual_fee!);
  });

  it("credits the proposer with the fees of every transaction of the ledger", async () => {
    await chain.fund(A);
    const before = await chain.balance(chain.validator.address);
    const txs = [await chain.tx(A, [op.log("t", ["1"])]), await chain.tx(A, [op.pay(A.address, 1n)], { nonce: 2n }), await chain.tx(chain.genesis, [op.pay(B.address, 3n)])];
    for (const tx of txs) expect(await chain.submit(tx)).to.equal(0);
    const ledger = await chain.close();
    expect(ledger.included).to.have.length(3);
    const total = txs.reduce((sum, tx) => sum + actualFee(tx), 0n);
    expect(await chain.balance(chain.validator.address)).to.equal(before + total);
    const supply = (await Promise.all([chain.genesis, A, B, chain.validator].map((k) => chain.balance(k.address)))).reduce((s, b) => s + b, 0n);
    expect(supply).to.equal(100_000_000_000_000n, "fees move coins, they neither create nor burn them");
  });

  it("charges a failing transaction its actual_fee and rolls back all its operations, earlier successful ones included", async () => {
    await chain.fund(A);
    const before = (await chain.account(A.address))!;
    const tx = await chain.tx(A, [
      op.setMetadata({ key: "k", value: "v" }),
      op.pay(B.address, 500n),
      op.setPrivilege({ master_weight: "9" }),
      op.pay(A.address, 1n), // 101
      op.log("never", ["reached"]),
    ]);
    expect(await chain.submit(tx)).to.equal(0);
    await chain.close();
    const record = (await chain.record(tx))!;
    expect(record.error_code).to.equal(ErrorCode.SOURCE_EQUALS_DESTINATION);
    expect(record.actual_fee).to.equal(actualFee(tx));
    expect(record.actual_fee! < tx.transaction.fee_limit!).to.equal(true, "charged the fee, not the fee_limit");
    expect(await chain.account(A.address)).to.deep.equal({ ...before, nonce: 1n, balance: before.balance! - actualFee(tx) });
    expect(await chain.metadata(A.address, "k")).to.equal(undefined);
    expect(toHex((await chain.account(A.address))!.metadatas_hash!)).to.equal(toHex(EMPTY_HASH));
    expect(await chain.account(B.address)).to.equal(undefined);
  });

  it("refuses fee_limit below the fee with 111, and accepts fee_limit equal to it", async () => {
    const exact = await withExactFeeLimit((fee_limit) => chain.tx(chain.genesis, [op.pay(B.address, 1n)], { fee_limit }));
    const short = await chain.tx(chain.genesis, [op.pay(B.address, 1n)], { fee_limit: exact.transaction.fee_limit! - 1n });
    expect(actualFee(short)).to.equal(actualFee(exact));
    expect(await chain.submit(short)).to.equal(ErrorCode.FEE_NOT_ENOUGH);
    expect(await chain.submit(await chain.tx(chain.genesis, [op.pay(B.address, 1n)], { fee_limit: 1_000n }))).to.equal(ErrorCode.FEE_NOT_ENOUGH);
    expect(await chain.submit(exact)).to.equal(0);
    await chain.close();
    expect((await chain.record(exact))!.actual_fee).to.equal(exact.transaction.fee_limit);
  });

  it("refuses gas_price below the network minimum with 112", async () => {
    expect(await chain.submit(await chain.tx(chain.genesis, [op.pay(B.address, 1n)], { gas_price: GAS_PRICE - 1n }))).to.equal(ErrorCode.FEE_INVALID);
    expect(await chain.submit(await chain.tx(chain.genesis, [op.pay(B.address, 1n)], { gas_price: 0n }))).to.equal(ErrorCode.FEE_INVALID);
    const c = await newChain({ gasPrice: 1_000n });
    expect(await c.submit(await c.tx(c.genesis, [op.pay(B.address, 1n)], { gas_price: 999n }))).to.equal(ErrorCode.FEE_INVALID);
    expect(await c.submit(await c.tx(c.genesis, [op.pay(B.address, 1n)], { gas_price: 1_000n }))).to.equal(0);
  });

  it("refuses a balance below fee_limit + base_reserve with 100", async () => {
    const c = await newChain({ baseReserve: 1_000_000n });
    await c.fund(A, 2_000_000n);
    expect(await c.submit(await c.tx(A, [op.log("t", ["x"])], { fee_limit: 1_000_001n }))).to.equal(ErrorCode.LOW_RESERVE);
    const ok = await c.tx(A, [op.log("t", ["x"])], { fee_limit: 1_000_000n });
    expect(await c.submit(ok)).to.equal(0);
    await c.close();
    expect(await c.balance(A.address)).to.equal(2_000_000n - actualFee(ok));

    await chain.fund(A, 999_999n);
    expect(await chain.submit(await chain.tx(A, [op.log("t", ["x"])], { fee_limit: 1_000_000n }))).to.equal(ErrorCode.LOW_RESERVE);
  });

  it("refuses 0 operations with 97 and 101 with 98; 100 are fine", async () => {
    expect(await chain.submit(await chain.tx(chain.genesis, []))).to.equal(ErrorCode.MISSING_OPERATIONS);
    const logs = (n: number) => Array.from({ length: n }, (_, i) => op.log("t", [String(i)]));
    expect(await chain.submit(await chain.tx(chain.genesis, logs(101)))).to.equal(ErrorCode.TOO_MANY_OPERATIONS);
    expect(recordCode(await chain.run(chain.genesis, logs(100)))).to.equal(0);
  });

  it("refuses a transaction of 1 MiB or more with 146", async () => {
    const big = Array.from({ length: 4 }, (_, i) => op.setMetadata({ key: `k${i}`, value: "v".repeat(256 * 1024) }));
    expect(await chain.submit(await chain.tx(chain.genesis, big, { fee_limit: 1_000_000_000n }))).to.equal(ErrorCode.TX_TOO_BIG);
  });

  it("refuses a chain_id other than the network's with 2; an absent chain_id is accepted", async () => {
    const c = await newChain({ chainId: 7n });
    expect(await c.submit(await c.tx(c.genesis, [op.pay(B.address, 1n)], { chain_id: 8n }))).to.equal(ErrorCode.INVALID_PARAMETER);
    expect(await c.submit(await c.tx(c.genesis, [op.pay(B.address, 1n)], { chain_id: 7n }))).to.equal(0);
    expect(await c.submit(await c.tx(c.genesis, [op.pay(B.address, 2n)], { nonce: 2n }))).to.equal(0);
    expect(await chain.submit(await chain.tx(chain.genesis, [op.pay(B.address, 1n)], { chain_id: 7n }))).to.equal(ErrorCode.INVALID_PARAMETER);
  });

  it("refuses a domain_id other than 0 with 170", async () => {
    expect(await chain.submit(await chain.tx(chain.genesis, [op.pay(B.address, 1n)], { domain_id: 5 }))).to.equal(ErrorCode.DOMAIN_NOT_EXIST);
  });

  it("refuses ceil_ledger_seq in the past with 2, at submit and when the ledger is built", async () => {
    // Ledger 1 is the genesis: the next ledger is 2.
    expect(await chain.submit(await chain.tx(chain.genesis, [op.pay(B.address, 1n)], { ceil_ledger_seq: 1n }))).to.equal(ErrorCode.INVALID_PARAMETER);
    const late = await chain.tx(chain.genesis, [op.pay(B.address, 1n)], { ceil_ledger_seq: 2n });
    expect(await chain.submit(late)).to.equal(0);
    await chain.close([]); // ledger 2 closes without it
    const ledger = await chain.close(); // ledger 3 is too late
    expect(ledger.refused.map((r) => r.error.code)).to.deep.equal([ErrorCode.INVALID_PARAMETER]);
    expect(await chain.record(late)).to.equal(undefined);
    expect(chain.txs.pool.size).to.equal(0);
    expect(recordCode(await chain.run(chain.genesis, [op.pay(B.address, 1n)], { ceil_ledger_seq: 4n }))).to.equal(0);
  });

  describe("simulateTransaction (testTransaction)", () => {
    const simulate = (input: Transaction, signatures = 1) => simulateTransaction(TEST_CONTRACTS, chain.ledgers.stateView(), chain.ledgers.params, { seq: chain.ledgers.lastHeader.seq! + 1n, closeTime: (chain.ledgers.lastHeader.close_time ?? 0n) + 1n, ledgerHash: async () => undefined }, input, signatures);

    it("returns fee_limit == actual_fee, fills nonce and gas_price, and writes nothing", async () => {
      const header = chain.ledgers.lastHeader;
      const genesis = await chain.account(chain.genesis.address);
      const simulation = await simulate({ source_address: chain.genesis.address, operations: [op.pay(B.address, 1234n), op.setMetadata({ key: "k", value: "v" })] });
      expect(simulation.transaction.fee_limit).to.equal(simulation.actualFee);
      expect(simulation.actualFee).to.equal(simulation.gas * GAS_PRICE);
      expect(simulation.transaction.nonce).to.equal(1n);
      expect(simulation.transaction.gas_price).to.equal(GAS_PRICE);
      expect(await chain.account(B.address)).to.equal(undefined);
      expect(await chain.metadata(chain.genesis.address, "k")).to.equal(undefined);
      expect(await chain.account(chain.genesis.address)).to.deep.equal(genesis);
      expect(chain.ledgers.lastHeader).to.equal(header);
      expect(chain.txs.pool.size).to.equal(0);
    });

    it("prices exactly what the signed transaction is charged", async () => {
      for (const keys of [[chain.genesis], [chain.genesis, A]]) {
        const simulation = await simulate({ source_address: chain.genesis.address, operations: [op.pay(B.address, 1234n)], fee_limit: 10n ** 12n }, keys.length);
        expect(simulation.transaction.fee_limit).to.equal(simulation.actualFee);
        const blob = codecs.Transaction.encode(simulation.transaction);
        const tx = new SignedTransaction(blob, await Promise.all(keys.map((k) => sign(k, blob))));
        expect(tx.hashHex).to.equal(simulation.hashHex);
        expect(actualFee(tx)).to.equal(simulation.actualFee);
        expect(await chain.submit(tx)).to.equal(0);
        await chain.close();
        expect((await chain.record(tx))!.actual_fee).to.equal(simulation.actualFee);
      }
    });

    it("throws the code the transaction would fail with", async () => {
      const code = await codeOf(simulate({ source_address: chain.genesis.address, operations: [op.pay(chain.genesis.address, 1n)] }));
      expect(code).to.equal(ErrorCode.SOURCE_EQUALS_DESTINATION);
      expect(await codeOf(simulate({ source_address: A.address, operations: [op.pay(B.address, 1n)] }))).to.equal(ErrorCode.ACCOUNT_NOT_EXIST);
      expect(await codeOf(simulate({ source_address: chain.genesis.address }))).to.equal(ErrorCode.MISSING_OPERATIONS);
      const error = await simulate({ source_address: chain.genesis.address, operations: [op.create(A.address, 1n, null)] }).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(ChainError);
    });

    it("applies the checks of a submission, signatures aside: gas price, nonce, addresses, balance", async () => {
      const pay = [op.pay(B.address, 1n)];
      const from = (fields: Partial<Transaction>) => simulate({ source_address: chain.genesis.address, operations: pay, ...fields });
      expect(await codeOf(from({ gas_price: GAS_PRICE - 1n }))).to.equal(ErrorCode.FEE_INVALID);
      await chain.run(chain.genesis, pay);
      expect(await codeOf(from({ nonce: 1n }))).to.equal(ErrorCode.BAD_NONCE);
      expect(await codeOf(from({ operations: [op.pay("did:bid:efnope", 1n)] }))).to.equal(ErrorCode.INVALID_ADDRESS);
      const poor = makeKey("poor");
      await chain.run(chain.genesis, [op.pay(poor.address, 10n)]);
      expect(await codeOf(simulate({ source_address: poor.address, operations: [op.pay(B.address, 1n)] }))).to.equal(ErrorCode.LOW_RESERVE);
    });
  });
});
