import { codecs, type Asset, type AssetKey, type KeyPair, type MessageCodec } from "@chainsim/protocol";

/**
 * A kind of per-account entry: metadata (by key) or asset balances (by issuer and code). Both are stored
 * beside the account, layered the same way during execution, and hashed into the account
 * (metadatas_hash, assets_hash).
 */
export interface EntryKind<T extends object> {
  /** Key prefix in account_db. */
  readonly prefix: string;
  readonly codec: MessageCodec<T>;
  keyOf(value: T): string;
}

export const METADATA: EntryKind<KeyPair> = { prefix: "m", codec: codecs.KeyPair, keyOf: (kp) => kp.key ?? "" };
export const ASSETS: EntryKind<Asset> = { prefix: "s", codec: codecs.Asset, keyOf: (asset) => assetId(asset.key ?? {}) };

/** One string per asset: issuer and code (neither contains a NUL). */
export function assetId(key: AssetKey): string {
  return `${key.issuer ?? ""}\u0000${key.code ?? ""}`;
}
