export { Libp2pPeerNetwork, MESSAGE_PROTOCOL, REQUEST_PROTOCOL, type Libp2pPeerNetworkOptions } from "./libp2p-peer-network.js";
export { MemoryHub, MemoryPeerNetwork } from "./memory-peer-network.js";
export { encodeFrame, MAX_FRAME_BYTES } from "./frames.js";
export { DEFAULT_QUEUE_LIMITS, type QueueLimits } from "./outbound-queue.js";
export { DEFAULT_BACKOFF, type BackoffPolicy } from "./peer-link.js";
export { libp2pIdentity, peerIdOfPublicKey } from "./peer-identity.js";
export { DEFAULT_PENALTY_POLICY, OFFENCE_POINTS, PeerPenalties, type Offence, type PeerConduct, type PenaltyPolicy } from "./peer-penalties.js";
export type { Channel, MessageHandler, PeerNetwork, PeerStatus, RequestHandler } from "./peer-network.js";
export { CHANNELS } from "./peer-network.js";
