// @chainsim/node first: it makes Promise.withResolvers, which libp2p 3 needs, exist on Node 20.
import { libp2pIdentity, MESSAGE_PROTOCOL, peerIdOfPublicKey } from "@chainsim/node";
import { noise } from "@chainsafe/libp2p-noise";
import { yamux } from "@chainsafe/libp2p-yamux";
import { generateKeyPair } from "@libp2p/crypto/keys";
import type { Libp2p, Stream } from "@libp2p/interface";
import { tcp } from "@libp2p/tcp";
import { multiaddr } from "@multiformats/multiaddr";
import { createLibp2p } from "libp2p";

/** A validator as a hostile peer dials it: its p2p `host:port` and its public key (b06566…). */
export interface DialTarget {
  p2p: string;
  publicKey: string;
}

/**
 * A libp2p node on the validators' own stack (TCP, noise, yamux) that writes whatever bytes a test gives
 * it on the validators' message protocol: posing as a validator whose key the test holds, or as a stranger.
 */
export class HostilePeer {
  private constructor(private readonly node: Libp2p) {}

  /** With `privateKey` (priSPK…) it has that validator's libp2p identity; without, a fresh one. */
  static async start(privateKey?: string): Promise<HostilePeer> {
    const key = privateKey === undefined ? await generateKeyPair("Ed25519") : (await libp2pIdentity(privateKey)).key;
    const node = await createLibp2p({ privateKey: key, transports: [tcp()], connectionEncrypters: [noise()], streamMuxers: [yamux()] });
    return new HostilePeer(node);
  }

  /** A message stream to `target` (or a request stream), as a validator opens one; rejects when the target refuses the connection. */
  open(target: DialTarget, protocol = MESSAGE_PROTOCOL): Promise<Stream> {
    const colon = target.p2p.lastIndexOf(":");
    const address = multiaddr(`/ip4/${target.p2p.slice(0, colon)}/tcp/${target.p2p.slice(colon + 1)}/p2p/${peerIdOfPublicKey(target.publicKey)}`);
    return this.node.dialProtocol(address, protocol);
  }

  /** Opens a stream, writes `bytes` and closes it. */
  async sendOnce(target: DialTarget, bytes: Uint8Array, protocol = MESSAGE_PROTOCOL): Promise<void> {
    const stream = await this.open(target, protocol);
    stream.send(bytes);
    await stream.close().catch(() => undefined); // the validator may have reset it already
  }

  /** Open connections to `target`. */
  connections(target: DialTarget): number {
    return this.node.getConnections().filter((c) => c.remotePeer.toString() === peerIdOfPublicKey(target.publicKey)).length;
  }

  async stop(): Promise<void> {
    await this.node.stop();
  }
}

