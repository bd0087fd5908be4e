/** Signing and hashing, injected so the state machine stays pure (the node passes Ed25519 over node:crypto). */
export interface ConsensusCrypto {
  /** Signs with this replica's validator key. */
  sign(bytes: Uint8Array): Uint8Array;
  /** True when `signature` is validator `replica`'s signature of `bytes`. */
  verify(replica: number, bytes: Uint8Array, signature: Uint8Array): boolean;
  /** Hex sha256 of a proposed value (lowercase, 64 characters). */
  digest(value: Uint8Array): string;
}

export interface ReplicaConfig {
  /** Validator addresses in replica order: replica i is validators[i]. */
  validators: string[];
  /** This replica's index in `validators`. */
  self: number;
  /** A checkpoint every ckpInterval executed seqs; the window is 2 × ckpInterval seqs above the stable one. */
  ckpInterval: number;
  /** Base view-change timeout; doubles per consecutive failed view (capped at 2^6). */
  viewTimeoutMs: number;
  crypto: ConsensusCrypto;
  /** The state every validator starts from, a checkpoint that needs no proof. Default seq 0, digest "". */
  genesis?: { seq: number; stateDigest: string };
  /**
   * UNSAFE, tests only: prepare, commit and accept certificates with this many votes instead of the quorum.
   * Exists so tests can show the safety checkers catching a broken node. Never set it in a real network.
   */
  unsafeQuorum?: number;
}

/** f: the faulty replicas n validators tolerate. */
export function faultTolerance(n: number): number {
  return Math.floor((n - 1) / 3);
}

/**
 * Votes that make a certificate: 2f+1 when n = 3f+1. For other n it is ⌈(n+f+1)/2⌉, the smallest size at
 * which any two quorums share f+1 replicas (so at least one honest one); with n = 2, 2f+1 = 1 would let
 * each replica commit alone.
 */
export function quorumSize(n: number): number {
  return Math.ceil((n + faultTolerance(n) + 1) / 2);
}

export function primaryOf(view: number, n: number): number {
  return view % n;
}

/** The numbers every certificate check needs: who may sign, how to check, and how many make a quorum. */
export interface Verifier {
  validators: string[];
  crypto: Pick<ConsensusCrypto, "verify" | "digest">;
  quorum: number;
}

export function verifierOf(config: ReplicaConfig): Verifier {
  return { validators: config.validators, crypto: config.crypto, quorum: config.unsafeQuorum ?? quorumSize(config.validators.length) };
}

export function checkConfig(config: ReplicaConfig): void {
  const n = config.validators.length;
  const problems = [
    n < 1 && "there must be at least one validator",
    !(Number.isInteger(config.self) && config.self >= 0 && config.self < n) && `self ${config.self} is not a validator index`,
    !(Number.isInteger(config.ckpInterval) && config.ckpInterval >= 1) && "ckpInterval must be a positive integer",
    !(config.viewTimeoutMs > 0) && "viewTimeoutMs must be positive",
    config.unsafeQuorum !== undefined && !(Number.isInteger(config.unsafeQuorum) && config.unsafeQuorum >= 1) && "unsafeQuorum must be a positive integer",
  ].filter(Boolean);
  if (problems.length > 0) throw new Error(`invalid replica config: ${problems.join("; ")}`);
}
