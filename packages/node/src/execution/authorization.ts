import {
  ChainError,
  ErrorCode,
  addressFromPublicKey,
  decodePublicKey,
  type Account,
  type OperationType,
  type SignedTransaction,
} from "@chainsim/protocol";
import type { Ed25519Verifier } from "@chainsim/protocol/node-crypto";

/**
 * Who signed a transaction: the addresses of its valid signatures. Any invalid signature refuses the
 * whole transaction (93), an unparseable key too (90). Memoized per transaction object: the pool and
 * the executor see the same object, so each signature is verified once.
 */
export class SignatureChecker {
  private readonly signers = new WeakMap<SignedTransaction, Set<string>>();

  constructor(private readonly verifier: Ed25519Verifier) {}

  signerAddresses(tx: SignedTransaction): Set<string> {
    let addresses = this.signers.get(tx);
    if (addresses) return addresses;
    addresses = new Set();
    tx.signatures.forEach((signature, i) => {
      const publicKey = signature.public_key ?? "";
      const raw = decodePublicKey(publicKey);
      if (!this.verifier.verify(publicKey, tx.blob, signature.sign_data ?? new Uint8Array())) {
        throw new ChainError(ErrorCode.SIGNATURE_WEIGHT_NOT_ENOUGH, `signatures[${i}] does not verify against the blob`);
      }
      addresses.add(addressFromPublicKey(raw));
    });
    this.signers.set(tx, addresses);
    return addresses;
  }
}

/** Sum of the weights the signing addresses hold over `account` (master key plus listed signers). */
export function signedWeight(account: Account, signers: Set<string>): bigint {
  let weight = signers.has(account.address!) ? (account.priv?.master_weight ?? 0n) : 0n;
  for (const s of account.priv?.signers ?? []) if (signers.has(s.address ?? "")) weight += s.weight ?? 0n;
  return weight;
}

/** The threshold an operation of `type` needs on `account`: its type threshold if set, else tx_threshold. */
export function operationThreshold(account: Account, type: OperationType): bigint {
  const thresholds = account.priv?.thresholds;
  const typed = thresholds?.type_thresholds?.find((t) => (t.type ?? 0) === type);
  return typed?.threshold ?? thresholds?.tx_threshold ?? 0n;
}

export function checkWeight(account: Account, signers: Set<string>, threshold: bigint, what: string): void {
  const weight = signedWeight(account, signers);
  if (weight < threshold) {
    throw new ChainError(
      ErrorCode.SIGNATURE_WEIGHT_NOT_ENOUGH,
      `signature weight ${weight} is below the threshold ${threshold} of ${account.address} for ${what}`,
    );
  }
}
