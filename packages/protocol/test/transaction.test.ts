import { expect } from "chai";
import { ChainError, ErrorCode, MAX_INTEGER_DIGITS, SignedTransaction, codecs, fromHex, parseJson, stringifyJson, toHex } from "../src/index.js";
import { Ed25519Verifier, NodeEd25519Signer, sha256 as nodeSha256 } from "../src/node-crypto.js";
import { sha256 } from "../src/signing.js";
import { TRANSACTION_VECTOR, describeSignerConformance } from "../src/testing/index.js";

function errorCode(f: () => unknown): ErrorCode {
  try {
    f();
  } catch (e) {
    if (e instanceof ChainError) return e.code;
    throw e;
  }
  return ErrorCode.SUCCESS;
}

describe("transaction blob (compat.md §3)", () => {
  it("encodes the JSON form of the test vector to the exact blob", () => {
    const tx = codecs.Transaction.fromJson(TRANSACTION_VECTOR.json);
    expect(toHex(codecs.Transaction.encode(tx))).to.equal(TRANSACTION_VECTOR.blob);
  });

  it("accepts numeric strings and big integers for int64 fields", () => {
    const json = structuredClone(TRANSACTION_VECTOR.json) as Record<string, unknown>;
    json.nonce = "1";
    json.fee_limit = 1000000n;
    (json.operations as { pay_coin: { amount: unknown } }[])[0].pay_coin.amount = "12345";
    expect(toHex(codecs.Transaction.encode(codecs.Transaction.fromJson(json)))).to.equal(TRANSACTION_VECTOR.blob);
  });

  it("computes the hash over the blob bytes and decodes back to the same JSON", () => {
    const signed = new SignedTransaction(fromHex(TRANSACTION_VECTOR.blob), []);
    expect(signed.hashHex).to.equal(TRANSACTION_VECTOR.hash);
    const json = codecs.Transaction.toJson(signed.transaction);
    expect(parseJson(stringifyJson(json))).to.deep.equal(TRANSACTION_VECTOR.json);
  });

  it("refuses integers of more than MAX_INTEGER_DIGITS digits (BigInt's conversion is quadratic), not decimals", () => {
    expect(parseJson(`[${"9".repeat(MAX_INTEGER_DIGITS)}]`)).to.deep.equal([BigInt("9".repeat(MAX_INTEGER_DIGITS))]);
    expect(() => parseJson(`{"a":${"9".repeat(MAX_INTEGER_DIGITS + 1)}}`)).to.throw(SyntaxError, `an integer of ${MAX_INTEGER_DIGITS + 1} digits (at most ${MAX_INTEGER_DIGITS})`);
    expect(parseJson(`[0.${"9".repeat(1000)}]`)).to.deep.equal([1]);
  });

  it("keeps int64 values beyond 2^53 exact through JSON", () => {
    const text = '{"nonce":9223372036854775807,"fee_limit":100000000000000001}';
    const tx = codecs.Transaction.fromJson(parseJson(text));
    expect(tx.nonce).to.equal(9223372036854775807n);
    expect(tx.fee_limit).to.equal(100000000000000001n);
    expect(stringifyJson(codecs.Transaction.toJson(codecs.Transaction.decode(codecs.Transaction.encode(tx))))).to.equal(
      text,
    );
  });

  it("omits proto3 defaults, so explicit zeros encode like absent fields", () => {
    const withZeros = codecs.Transaction.fromJson({ ...TRANSACTION_VECTOR.json, ceil_ledger_seq: 0, chain_id: "0", metadata: "" });
    expect(toHex(codecs.Transaction.encode(withZeros))).to.equal(TRANSACTION_VECTOR.blob);
  });

  it("refuses malformed JSON with 2, naming the field", () => {
    const bad = (patch: Record<string, unknown>) => () => codecs.Transaction.fromJson({ ...TRANSACTION_VECTOR.json, ...patch });
    expect(errorCode(bad({ nonce: "one" }))).to.equal(ErrorCode.INVALID_PARAMETER);
    expect(errorCode(bad({ nonce: 1.5 }))).to.equal(ErrorCode.INVALID_PARAMETER);
    expect(errorCode(bad({ nonce: "9223372036854775808" }))).to.equal(ErrorCode.INVALID_PARAMETER);
    expect(errorCode(bad({ operations: {} }))).to.equal(ErrorCode.INVALID_PARAMETER);
    expect(errorCode(bad({ operations: [{ type: 99 }] }))).to.equal(ErrorCode.INVALID_PARAMETER);
    expect(errorCode(bad({ metadata: "xyz" }))).to.equal(ErrorCode.INVALID_PARAMETER);
    try {
      bad({ operations: [{ type: 7, pay_coin: { amount: "lots" } }] })();
      expect.fail("should throw");
    } catch (e) {
      expect((e as Error).message).to.contain("operations[0].pay_coin.amount");
    }
  });

  it("refuses a blob that is not a Transaction with 2", () => {
    expect(errorCode(() => new SignedTransaction(fromHex("0aff"), []))).to.equal(ErrorCode.INVALID_PARAMETER);
    expect(errorCode(() => SignedTransaction.fromJson("zz", []))).to.equal(ErrorCode.INVALID_PARAMETER);
  });

  it("measures gas as the TransactionEnv byte size", () => {
    const signed = SignedTransaction.fromJson(TRANSACTION_VECTOR.blob, [
      { public_key: TRANSACTION_VECTOR.publicKey, sign_data: TRANSACTION_VECTOR.signature },
    ]);
    const blobLength = TRANSACTION_VECTOR.blob.length / 2;
    // env = tag+len+blob (101 bytes), then one 138-byte Signature: tag + 2-byte len + (2+70 key) + (2+64 sig)
    expect(signed.envSize).to.equal(2 + blobLength + 3 + (2 + 70) + (2 + 64));
  });
});

describe("sha256 with node:crypto", () => {
  it("gives the package root's digest, for empty input and for a view into a larger buffer", () => {
    const backing = Uint8Array.from({ length: 300 }, (_, i) => (i * 7) & 0xff);
    for (const data of [new Uint8Array(), Uint8Array.of(1), backing, backing.subarray(17, 250)]) {
      expect(toHex(nodeSha256(data))).to.equal(toHex(sha256(data)));
    }
  });
});

describe("signature verification with node:crypto", () => {
  const verifier = new Ed25519Verifier(2);

  it("accepts the signature of the test vector", () => {
    const ok = verifier.verify(TRANSACTION_VECTOR.publicKey, fromHex(TRANSACTION_VECTOR.blob), fromHex(TRANSACTION_VECTOR.signature));
    expect(ok).to.equal(true);
  });

  it("refuses a tampered blob, a tampered signature and a wrong length", () => {
    const blob = fromHex(TRANSACTION_VECTOR.blob);
    const sig = fromHex(TRANSACTION_VECTOR.signature);
    const tamperedBlob = blob.slice();
    tamperedBlob[tamperedBlob.length - 1] ^= 1;
    const tamperedSig = sig.slice();
    tamperedSig[0] ^= 1;
    expect(verifier.verify(TRANSACTION_VECTOR.publicKey, tamperedBlob, sig)).to.equal(false);
    expect(verifier.verify(TRANSACTION_VECTOR.publicKey, blob, tamperedSig)).to.equal(false);
    expect(verifier.verify(TRANSACTION_VECTOR.publicKey, blob, sig.subarray(1))).to.equal(false);
  });

  it("remembers valid signatures with their message: the same signature over other bytes still fails", () => {
    const remembering = new Ed25519Verifier(2, 2);
    const blob = fromHex(TRANSACTION_VECTOR.blob);
    const sig = fromHex(TRANSACTION_VECTOR.signature);
    expect(remembering.verify(TRANSACTION_VECTOR.publicKey, blob, sig)).to.equal(true);
    expect(remembering.verify(TRANSACTION_VECTOR.publicKey, blob.slice(), sig)).to.equal(true);
    const other = blob.slice();
    other[0] ^= 1;
    expect(remembering.verify(TRANSACTION_VECTOR.publicKey, other, sig)).to.equal(false);
    expect(remembering.verify(TRANSACTION_VECTOR.publicKey, blob.subarray(1), sig)).to.equal(false);
    // the remembered copy is the verifier's own: changing the caller's bytes later changes nothing
    const mutable = blob.slice();
    expect(remembering.verify(TRANSACTION_VECTOR.publicKey, mutable, sig)).to.equal(true);
    mutable[3] ^= 1;
    expect(remembering.verify(TRANSACTION_VECTOR.publicKey, mutable, sig)).to.equal(false);
  });

  it("refuses an unparseable public key with 90", () => {
    expect(errorCode(() => verifier.verify("b06566", Uint8Array.of(), new Uint8Array(64)))).to.equal(ErrorCode.INVALID_PUBLIC_KEY);
  });
});

describeSignerConformance("node:crypto", (seed) => new NodeEd25519Signer(seed));

describe("canonical value form", () => {
  it("encodes zero int64 values like absent fields, also after they pass through the wire", () => {
    const account = { address: "did:bid:efe9Go8grZgiMy2ZFDEYgAtEZUfsNaoy", balance: 0n, nonce: 0n };
    const encoded = codecs.Account.encode(account);
    expect(toHex(encoded)).to.equal(toHex(codecs.Account.encode({ address: account.address })));
    expect(codecs.Account.canonical(account)).to.deep.equal({ address: account.address });
  });

  it("keeps default values inside lists: [\"a\", \"\"] has two entries", () => {
    const op = codecs.Operation.fromJson({ type: 8, log: { topic: "t", datas: ["a", ""] } });
    expect(op.log!.datas).to.deep.equal(["a", ""]);
    expect(codecs.Operation.decode(codecs.Operation.encode(op)).log!.datas).to.deep.equal(["a", ""]);
  });
});

describe("JSON field reading by type", () => {
  it("reads a number given for a string field as its text: master_weight 0 is \"0\", not absent", () => {
    const op = codecs.Operation.fromJson({ type: 9, set_privilege: { master_weight: 0, tx_threshold: "1" } });
    expect(op.set_privilege).to.deep.equal({ master_weight: "0", tx_threshold: "1" });
  });

  it("refuses values of the wrong type instead of dropping them", () => {
    expect(errorCode(() => codecs.Transaction.fromJson({ nonce: "" }))).to.equal(ErrorCode.INVALID_PARAMETER);
    expect(errorCode(() => codecs.Operation.fromJson({ type: 4, set_metadata: { delete_flag: 0 } }))).to.equal(ErrorCode.INVALID_PARAMETER);
    expect(errorCode(() => codecs.Transaction.fromJson({ metadata: 0 }))).to.equal(ErrorCode.INVALID_PARAMETER);
  });

  it("takes only real enum names, and int32 within its range", () => {
    expect(errorCode(() => codecs.Operation.fromJson({ type: "constructor" }))).to.equal(ErrorCode.INVALID_PARAMETER);
    expect(codecs.Operation.fromJson({ type: "PAY_COIN" }).type).to.equal(7);
    expect(errorCode(() => codecs.Transaction.fromJson({ domain_id: 3_000_000_000 }))).to.equal(ErrorCode.INVALID_PARAMETER);
    expect(codecs.Transaction.fromJson({ domain_id: -5 }).domain_id).to.equal(-5);
  });
});
