// Joint accounts and signatures (compat.md §5 "Authorization", node-api.md "Joint account authorization").
import { expect } from "chai";
import { ErrorCode, OperationType, SignedTransaction, fromHex } from "@chainsim/protocol";
import { TestChain, makeKey, op, recordCode, sign } from "./helpers/chain.js";

describe("authorization", () => {
  let chain: TestChain;
  // A: the joint account; B and C: its two signers (keys only, not accounts).
  const A = makeKey("joint");
  const B = makeKey("signer-b");
  const C = makeKey("signer-c");
  const D = makeKey("dest");

  beforeEach(async () => {
    chain = await TestChain.create();
    await chain.fund(A);
    const record = await chain.run(A, [
      op.setPrivilege({ master_weight: "1", signers: [{ address: B.address, weight: 1n }, { address: C.address, weight: 1n }], tx_threshold: "2" }),
    ]);
    expect(recordCode(record)).to.equal(0);
  });
  afterEach(() => chain.teardown());

  it("stores the 2-of-3 privilege", async () => {
    expect((await chain.account(A.address))!.priv).to.deep.equal({
      master_weight: 1n,
      signers: [
        { address: B.address, weight: 1n },
        { address: C.address, weight: 1n },
      ],
      thresholds: { tx_threshold: 2n },
    });
  });

  for (const [names, keys] of [
    ["master + B", () => [A, B]],
    ["B + C (no master key)", () => [B, C]],
    ["all three", () => [C, A, B]],
  ] as const) {
    it(`accepts a transaction signed by ${names}`, async () => {
      const record = await chain.run(A, [op.pay(D.address, 100n)], { signers: [...keys()] });
      expect(recordCode(record)).to.equal(0);
      expect(await chain.balance(D.address)).to.equal(100n);
    });
  }

  it("refuses a transaction signed by 1 of the 3 keys with 93 at submit", async () => {
    for (const key of [A, B, C]) {
      expect(await chain.submit(await chain.tx(A, [op.pay(D.address, 100n)], { signers: [key] }))).to.equal(ErrorCode.SIGNATURE_WEIGHT_NOT_ENOUGH);
    }
    expect(chain.txs.pool.size).to.equal(0);
  });

  it("counts a key signing twice once", async () => {
    expect(await chain.submit(await chain.tx(A, [op.pay(D.address, 100n)], { signers: [B, B] }))).to.equal(ErrorCode.SIGNATURE_WEIGHT_NOT_ENOUGH);
  });

  it("gives a valid signature by an unrelated key no weight", async () => {
    expect(await chain.submit(await chain.tx(A, [op.pay(D.address, 100n)], { signers: [B, D] }))).to.equal(ErrorCode.SIGNATURE_WEIGHT_NOT_ENOUGH);
  });

  it("enforces a PAY_COIN type threshold higher than tx_threshold, only for that type", async () => {
    const set = await chain.run(A, [op.setPrivilege({ type_thresholds: [{ type: OperationType.PAY_COIN, threshold: 3n }] })], { signers: [A, B] });
    expect(recordCode(set)).to.equal(0);
    expect(await chain.submit(await chain.tx(A, [op.pay(D.address, 100n)], { signers: [A, B] }))).to.equal(ErrorCode.SIGNATURE_WEIGHT_NOT_ENOUGH);
    expect(recordCode(await chain.run(A, [op.log("t", ["2 of 3 is enough for a log"])], { signers: [A, B] }))).to.equal(0);
    expect(recordCode(await chain.run(A, [op.pay(D.address, 100n)], { signers: [A, B, C] }))).to.equal(0);
    expect(await chain.balance(D.address)).to.equal(100n);
  });

  it("does not let a type threshold below tx_threshold lower the source's requirement", async () => {
    // compat.md §5 reads as "per operation: its type threshold, else tx_threshold"; the node (like the
    // original implementation) also requires tx_threshold of the source for the transaction as a whole.
    const set = await chain.run(A, [op.setPrivilege({ type_thresholds: [{ type: OperationType.LOG, threshold: 1n }] })], { signers: [A, B] });
    expect(recordCode(set)).to.equal(0);
    expect(await chain.submit(await chain.tx(A, [op.log("t", ["1 of 3"])], { signers: [A] }))).to.equal(ErrorCode.SIGNATURE_WEIGHT_NOT_ENOUGH);
    expect(recordCode(await chain.run(A, [op.log("t", ["2 of 3"])], { signers: [A, C] }))).to.equal(0);
  });

  it("checks the threshold again when the ledger is built: a privilege raised by an earlier transaction applies", async () => {
    // Both are admitted against the committed state (threshold 2); the first raises it to 3.
    const raise = await chain.tx(A, [op.setPrivilege({ tx_threshold: "3" })], { signers: [A, B] });
    const pay = await chain.tx(A, [op.pay(D.address, 100n)], { nonce: 3n, signers: [A, B] });
    expect(await chain.submit(raise)).to.equal(0);
    expect(await chain.submit(pay)).to.equal(0);
    const ledger = await chain.close();
    expect(ledger.included).to.deep.equal([raise]);
    expect(ledger.refused.map((r) => r.error.code)).to.deep.equal([ErrorCode.SIGNATURE_WEIGHT_NOT_ENOUGH]);
    expect(await chain.record(pay)).to.equal(undefined);
    expect(await chain.account(D.address)).to.equal(undefined);
    expect(chain.txs.pool.size).to.equal(0);
  });

  describe("operation source_address", () => {
    const X = makeKey("x");
    const Y = makeKey("y");
    beforeEach(async () => {
      await chain.fund(X);
      await chain.fund(Y);
    });

    it("needs the operation source's signature (93 without it)", async () => {
      const tx = await chain.tx(X, [op.pay(D.address, 50n, Y.address)]);
      expect(await chain.submit(tx)).to.equal(ErrorCode.SIGNATURE_WEIGHT_NOT_ENOUGH);
    });

    it("runs the operation as that account when it has signed: it pays the amount, the tx source pays the fee", async () => {
      const [x, y] = [await chain.balance(X.address), await chain.balance(Y.address)];
      const record = await chain.run(X, [op.pay(D.address, 50n, Y.address), op.setMetadata({ key: "who", value: "y" }, Y.address)], { signers: [X, Y] });
      expect(recordCode(record)).to.equal(0);
      expect(await chain.balance(Y.address)).to.equal(y - 50n);
      expect(await chain.balance(X.address)).to.equal(x - record.actual_fee!);
      expect(await chain.balance(D.address)).to.equal(50n);
      expect((await chain.metadata(Y.address, "who"))!.value).to.equal("y");
      expect(await chain.metadata(X.address, "who")).to.equal(undefined);
      expect((await chain.account(X.address))!.nonce).to.equal(1n);
      expect((await chain.account(Y.address))!.nonce).to.equal(undefined);
    });

    it("applies the operation source's privilege: the joint account's 2 of 3 inside another account's transaction", async () => {
      expect(await chain.submit(await chain.tx(X, [op.pay(D.address, 5n, A.address)], { signers: [X, B] }))).to.equal(ErrorCode.SIGNATURE_WEIGHT_NOT_ENOUGH);
      expect(recordCode(await chain.run(X, [op.pay(D.address, 5n, A.address)], { signers: [X, B, C] }))).to.equal(0);
      expect(await chain.balance(D.address)).to.equal(5n);
    });

    it("still needs the transaction source's tx_threshold when every operation names another source", async () => {
      // A (2 of 3) sends; its only operation is X's. X's key and A's master key are only 1 of A's 2.
      expect(await chain.submit(await chain.tx(A, [op.pay(D.address, 5n, X.address)], { signers: [A, X] }))).to.equal(ErrorCode.SIGNATURE_WEIGHT_NOT_ENOUGH);
      expect(recordCode(await chain.run(A, [op.pay(D.address, 5n, X.address)], { signers: [A, B, X] }))).to.equal(0);
      expect(await chain.balance(D.address)).to.equal(5n);
    });

    it("refuses an operation source that does not exist with 103", async () => {
      expect(await chain.submit(await chain.tx(X, [op.pay(D.address, 5n, makeKey("nobody").address)]))).to.equal(ErrorCode.ACCOUNT_NOT_EXIST);
    });
  });

  describe("signatures", () => {
    it("refuses an invalid signature with 93, even next to enough valid ones", async () => {
      const tx = await chain.tx(A, [op.pay(D.address, 1n)], { signers: [A, B, C] });
      const other = await chain.tx(A, [op.pay(D.address, 2n)], { signers: [C] });
      // C's signature of another blob, presented for this one.
      const forged = new SignedTransaction(tx.blob, [...tx.signatures.slice(0, 2), other.signatures[0]]);
      expect(await chain.submit(forged)).to.equal(ErrorCode.SIGNATURE_WEIGHT_NOT_ENOUGH);
      const truncated = new SignedTransaction(tx.blob, [{ ...tx.signatures[0], sign_data: tx.signatures[0].sign_data!.subarray(0, 63) }]);
      expect(await chain.submit(truncated)).to.equal(ErrorCode.SIGNATURE_WEIGHT_NOT_ENOUGH);
      expect(chain.txs.pool.size).to.equal(0);
    });

    it("refuses a public key that does not parse with 90", async () => {
      const tx = await chain.tx(chain.genesis, [op.pay(D.address, 1n)]);
      for (const public_key of ["", "zz", "b06566", "b06566" + "00".repeat(33), "b07a66" + "00".repeat(32)]) {
        const bad = new SignedTransaction(tx.blob, [{ public_key, sign_data: tx.signatures[0].sign_data }]);
        expect(await chain.submit(bad), public_key).to.equal(ErrorCode.INVALID_PUBLIC_KEY);
      }
    });

    it("refuses a transaction without signatures with 93", async () => {
      const tx = await chain.tx(chain.genesis, [op.pay(D.address, 1n)], { signatures: [] });
      expect(await chain.submit(tx)).to.equal(ErrorCode.SIGNATURE_WEIGHT_NOT_ENOUGH);
    });

    it("with tx_threshold 0: no signature is still 93, but any valid signature reaches the threshold", async () => {
      const Z = await chain.fund(makeKey("open"));
      expect(recordCode(await chain.run(Z, [op.setThreshold({ tx_threshold: 0n })]))).to.equal(0);
      expect((await chain.account(Z.address))!.priv!.thresholds).to.deep.equal({});
      expect(await chain.submit(await chain.tx(Z, [op.pay(D.address, 1n)], { signatures: [] }))).to.equal(ErrorCode.SIGNATURE_WEIGHT_NOT_ENOUGH);
      // Weight 0 ≥ threshold 0: a stranger's key is enough (compat.md §5 taken literally).
      expect(recordCode(await chain.run(Z, [op.pay(D.address, 1n)], { signers: [D] }))).to.equal(0);
    });

    it("refuses in the ledger too: an unsigned transaction proposed directly is left out", async () => {
      const signed = await chain.tx(chain.genesis, [op.pay(D.address, 1n)]);
      const unsigned = new SignedTransaction(signed.blob, [{ public_key: signed.signatures[0].public_key, sign_data: fromHex("00".repeat(64)) }]);
      const ledger = await chain.close([unsigned]);
      expect(ledger.refused.map((r) => r.error.code)).to.deep.equal([ErrorCode.SIGNATURE_WEIGHT_NOT_ENOUGH]);
      expect(await chain.account(D.address)).to.equal(undefined);
    });

    it("accepts a signature over the blob by the source's key (the signed blob is what is hashed)", async () => {
      const tx = await chain.tx(chain.genesis, [op.pay(D.address, 1n)]);
      const resigned = new SignedTransaction(tx.blob, [await sign(chain.genesis, tx.blob)]);
      expect(resigned.hashHex).to.equal(tx.hashHex);
      expect(await chain.submit(resigned)).to.equal(0);
    });
  });
});
