export { faultTolerance, primaryOf, quorumSize, verifierOf, type ConsensusCrypto, type ReplicaConfig, type Verifier } from "./config.js";
export { verifyCommitProof, type CommitProof } from "./certificates.js";
export { open, sign, type Body, type Checkpoint, type NewView, type PrePrepare, type SignedMessage, type ViewChange, type Vote } from "./messages.js";
export type { Commit, Output, SyncRequest } from "./output.js";
export type { PersistedInstance, PersistedState } from "./persist.js";
export { Replica } from "./replica.js";
export type { ConsensusStatus, InstanceStatus, Phase } from "./status.js";
