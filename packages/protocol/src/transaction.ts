import { equalBytes, fromHex, toHex } from "./bytes.js";
import { ChainError, ErrorCode } from "./errors.js";
import { canonicalAddress } from "./keys.js";
import { codecs, type RawTransactionEnv, type Signature, type Signer, type Transaction } from "./messages.js";
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
    this.transaction = canonicalAddresses(codecs.Transaction.decode(blob));
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

  /** Same blob (by hash) and the same signatures: what one node pooled and another proposed. */
  sameAs(other: SignedTransaction): boolean {
    return (
      this.hashHex === other.hashHex &&
      this.signatures.length === other.signatures.length &&
      this.signatures.every((s, i) => s.public_key === other.signatures[i]!.public_key && equalBytes(s.sign_data ?? new Uint8Array(), other.signatures[i]!.sign_data ?? new Uint8Array()))
    );
  }

  env(): RawTransactionEnv {
    return { transaction: this.blob, signatures: this.signatures };
  }

  signaturesJson(): SignatureJson[] {
    return this.signatures.map((s) => ({ public_key: s.public_key ?? "", sign_data: toHex(s.sign_data ?? new Uint8Array()) }));
  }
}

/**
 * The transaction with every address in its canonical form, so that accounts are found and signers matched
 * by one key however a client wrote them. Only the decoded form changes, never the signed bytes.
 */
function canonicalAddresses(tx: Transaction): Transaction {
  const signers = (list?: Signer[]) => list?.map((s) => (s.address ? { ...s, address: canonicalAddress(s.address) } : s));
  const address = (text?: string) => (text === undefined ? undefined : canonicalAddress(text));
  return codecs.Transaction.canonical({
    ...tx,
    source_address: address(tx.source_address),
    operations: tx.operations?.map((op) => ({
      ...op,
      source_address: address(op.source_address),
      ...(op.create_account && {
        create_account: {
          ...op.create_account,
          dest_address: address(op.create_account.dest_address),
          ...(op.create_account.priv && { priv: { ...op.create_account.priv, signers: signers(op.create_account.priv.signers) } }),
          ...(op.create_account.contract && { contract: { ...op.create_account.contract, owner: address(op.create_account.contract.owner) } }),
        },
      }),
      ...(op.pay_coin && { pay_coin: { ...op.pay_coin, dest_address: address(op.pay_coin.dest_address) } }),
      ...(op.set_privilege && { set_privilege: { ...op.set_privilege, signers: signers(op.set_privilege.signers) } }),
      ...(op.set_signer_weight && { set_signer_weight: { ...op.set_signer_weight, signers: signers(op.set_signer_weight.signers) } }),
    })),
  });
}

/**
 * The canonical addresses a transaction touches: its source, operation sources and destinations. A
 * WebSocket subscription to an address gets exactly the transactions that touch it (compat.md §9).
 */
export function touchedAddresses(tx: Transaction): Set<string> {
  const touched = new Set<string>();
  const add = (address?: string) => address && touched.add(canonicalAddress(address));
  add(tx.source_address);
  for (const op of tx.operations ?? []) {
    add(op.source_address);
    add(op.create_account?.dest_address);
    add(op.pay_coin?.dest_address);
    add(op.pay_asset?.dest_address);
    add(op.upgrade_contract?.dest_address);
    add(op.set_controlled_area?.dest_address);
  }
  return touched;
}
