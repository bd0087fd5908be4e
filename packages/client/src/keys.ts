import * as ed from "@noble/ed25519";
import { sha512 } from "@noble/hashes/sha2.js";
import {
  addressFromPublicKey,
  decodePrivateKey,
  encodePrivateKey,
  encodePublicKey,
  type Ed25519Signer,
} from "@chainsim/protocol";

// @noble/ed25519 ships only async methods, which hash with WebCrypto. We enable its synchronous API
// with a pure-JS sha512 so that a signer's public key is known at construction (Ed25519Signer exposes it
// as a plain property) and so that signing also works where crypto.subtle is missing (pages served over
// plain http from a LAN address). A sha512 configured earlier by the application is kept.
ed.hashes.sha512 ??= sha512;

/** Ed25519 in pure JS (browser-safe): the client's implementation of protocol's Ed25519Signer. */
export class NobleEd25519Signer implements Ed25519Signer {
  readonly publicKey: Uint8Array;
  readonly #seed: Uint8Array;

  /** `seed`: the 32-byte secret key (RFC 8032 seed). */
  constructor(seed: Uint8Array) {
    this.#seed = seed.slice();
    this.publicKey = ed.getPublicKey(this.#seed);
  }

  async sign(message: Uint8Array): Promise<Uint8Array> {
    return ed.sign(message, this.#seed);
  }
}

/** An account key in every text form the API uses, plus its signer. */
export class Keypair {
  /** `did:bid:ef…` */
  readonly address: string;
  /** `b06566…` hex */
  readonly publicKey: string;
  /** `priSPK…` */
  readonly privateKey: string;
  readonly signer: NobleEd25519Signer;

  private constructor(seed: Uint8Array) {
    // encodePrivateKey first: it rejects a seed that is not 32 bytes with ChainError(91).
    this.privateKey = encodePrivateKey(seed);
    this.signer = new NobleEd25519Signer(seed);
    this.publicKey = encodePublicKey(this.signer.publicKey);
    this.address = addressFromPublicKey(this.signer.publicKey);
  }

  /** A new random key (crypto.getRandomValues). */
  static generate(): Keypair {
    return new Keypair(ed.utils.randomSecretKey());
  }

  /** From a `priSPK…` private key; ChainError(91) when the text is not one. */
  static fromPrivateKey(privateKey: string): Keypair {
    return new Keypair(decodePrivateKey(privateKey));
  }

  /** From the raw 32-byte seed. */
  static fromSeed(seed: Uint8Array): Keypair {
    return new Keypair(seed);
  }
}
