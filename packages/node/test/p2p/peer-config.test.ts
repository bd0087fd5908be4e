import { expect } from "chai";
import { ChainError } from "@chainsim/protocol";
import { parseNodeConfig } from "../../src/index.js";
import { testValidator } from "./keys.js";

describe("config p2p.peers", () => {
  let self: Awaited<ReturnType<typeof testValidator>>;
  let peer: { address: string; public_key: string; host: string; port: number };

  before(async () => {
    self = await testValidator("self");
    const other = await testValidator("other");
    peer = { address: other.address, public_key: other.publicKey, host: "127.0.0.1", port: 16011 };
  });

  const config = (peers: unknown) => ({
    network: "n",
    node_name: "v1",
    data_dir: "/tmp/x",
    webserver: { listen_addresses: "127.0.0.1:1" },
    wsserver: { listen_address: "127.0.0.1:2" },
    p2p: { listen_address: "127.0.0.1:3", peers },
    validator: { private_key: self.privateKey },
    validators: [self.address],
    genesis: { account: self.address, balance: 1 },
  });

  const rejects = (peers: unknown, pattern: RegExp) => {
    expect(() => parseNodeConfig(config(peers))).to.throw(ChainError, pattern);
  };

  it("accepts peers as {address, public_key, host, port}, and none when absent", () => {
    expect(parseNodeConfig(config([peer])).p2p.peers).to.deep.equal([peer]);
    expect(parseNodeConfig(config(undefined)).p2p.peers).to.deep.equal([]);
  });

  it("names the first bad key", () => {
    rejects("127.0.0.1:16011", /^config: p2p\.peers should be an array of \{address, public_key, host, port\}/);
    rejects(["127.0.0.1:16011"], /^config: p2p\.peers\[0\] should be an object/);
    rejects([{ ...peer, address: "nobody" }], /^config: p2p\.peers\[0\]\.address is not a valid address/);
    rejects([{ ...peer, public_key: "b0656600" }], /^config: p2p\.peers\[0\]\.public_key should be an Ed25519 public key/);
    rejects([{ ...peer, address: self.address }], /^config: p2p\.peers\[0\]\.public_key is not the key of did:bid:/);
    rejects([{ ...peer, host: "" }], /^config: p2p\.peers\[0\]\.host should be a host name or IP address/);
    rejects([{ ...peer, port: 70000 }], /^config: p2p\.peers\[0\]\.port should be a port number/);
    rejects([peer, { ...peer, port: "x" }], /^config: p2p\.peers\[1\]\.port/);
  });

  it("takes p2p.penalty_threshold and p2p.ban_ms as positive integers, leaving them out when absent (the defaults apply)", () => {
    const withPenalties = (extra: object) => parseNodeConfig({ ...config([peer]), p2p: { ...config([peer]).p2p, ...extra } }).p2p;
    expect(withPenalties({ penalty_threshold: 20, ban_ms: 4000 })).to.include({ penalty_threshold: 20, ban_ms: 4000 });
    expect(withPenalties({})).to.not.have.any.keys("penalty_threshold", "ban_ms");
    expect(() => withPenalties({ penalty_threshold: 0 })).to.throw(ChainError, /^config: p2p\.penalty_threshold should be a positive integer/);
    expect(() => withPenalties({ ban_ms: "60s" })).to.throw(ChainError, /^config: p2p\.ban_ms should be a positive integer/);
  });
});
