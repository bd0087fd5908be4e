import { fromHex, toHex } from "./bytes.js";
import { ChainError, ErrorCode } from "./errors.js";
import { codecs, type RawTransactionEnv, type Signature, type Transaction } from "./messages.js";
import { transactionHash, type SignatureJson } from "./signing.js";

/**
 * A transaction as submitted: the exact blob bytes (hash and signatures are over them), their decoded
 * form, and the signatures. Immutable once built.
 */
export class SignedTransaction {
  readonly hash: Uint8Array;
  readonly hashHex: string;
  readonly transaction: Transaction;
  /** Byte size of the TransactionEnv (transaction + signatures): the gas of a plain transaction. */
  readonly envSize: number;

  constructor(
    readonly blob: Uint8Array,
    readonly signatures: Signature[],
  ) {
    this.transaction = codecs.Transaction.decode(blob);
    this.hash = transactionHash(blob);
    this.hashHex = toHex(this.hash);
    this.envSize = codecs.RawTransactionEnv.encode(this.env()).length;
  }

  static fromEnv(env: RawTransactionEnv): SignedTransaction {
    return new SignedTransaction(env.transaction ?? new Uint8Array(), env.signatures ?? []);
  }

  /** From the HTTP form: hex blob plus `[{sign_data, public_key}]`. ChainError(2) for malformed input. */
  static fromJson(blobHex: unknown, signatures: unknown): SignedTransaction {
    if (typeof blobHex !== "string" || blobHex.length === 0) {
      throw new ChainError(ErrorCode.INVALID_PARAMETER, "transaction_blob should be a non-empty hex string");
    }
    const blob = fromHex(blobHex, "transaction_blob");
    if (!Array.isArray(signatures)) throw new ChainError(ErrorCode.INVALID_PARAMETER, "signatures should be an array");
    const parsed = signatures.map((s, i) => {
      const sig = s as Partial<SignatureJson> | null;
      if (typeof sig?.public_key !== "string" || typeof sig.sign_data !== "string") {
        throw new ChainError(ErrorCode.INVALID_PARAMETER, `signatures[${i}] needs public_key and sign_data strings`);
      }
      return { public_key: sig.public_key, sign_data: fromHex(sig.sign_data, `signatures[${i}].sign_data`) };
    });
    return new SignedTransaction(blob, parsed);
  }

  env(): RawTransactionEnv {
    return { transaction: this.blob, signatures: this.signatures };
  }

  signaturesJson(): SignatureJson[] {
    return this.signatures.map((s) => ({ public_key: s.public_key ?? "", sign_data: toHex(s.sign_data ?? new Uint8Array()) }));
  }
}
