import { expect } from "chai";
import { ChainError } from "@chainsim/protocol";
import { DEFAULT_LIMITS, parseNodeConfig } from "../src/index.js";
import { testValidator } from "./p2p/keys.js";

describe("node config", () => {
  let self: Awaited<ReturnType<typeof testValidator>>;
  let peer: { address: string; public_key: string; host: string; port: number };

  before(async () => {
    self = await testValidator("self");
    const other = await testValidator("other");
    peer = { address: other.address, public_key: other.publicKey, host: "127.0.0.1", port: 16011 };
  });

  const config = (peers: unknown, limits?: unknown) => ({
    network: "n",
    node_name: "v1",
    data_dir: "/tmp/x",
    webserver: { listen_addresses: "127.0.0.1:1" },
    wsserver: { listen_address: "127.0.0.1:2" },
    p2p: { listen_address: "127.0.0.1:3", peers },
    validator: { private_key: self.privateKey },
    validators: [self.address],
    genesis: { account: self.address, balance: 1 },
    limits,
  });

  const rejects = (peers: unknown, pattern: RegExp) => {
    expect(() => parseNodeConfig(config(peers))).to.throw(ChainError, pattern);
  };

  it("accepts p2p.peers as {address, public_key, host, port}, and none when absent", () => {
    expect(parseNodeConfig(config([peer])).p2p.peers).to.deep.equal([peer]);
    expect(parseNodeConfig(config(undefined)).p2p.peers).to.deep.equal([]);
  });

  it("names the first bad p2p.peers key", () => {
    rejects("127.0.0.1:16011", /^config: p2p\.peers should be an array of \{address, public_key, host, port\}/);
    rejects(["127.0.0.1:16011"], /^config: p2p\.peers\[0\] should be an object/);
    rejects([{ ...peer, address: "nobody" }], /^config: p2p\.peers\[0\]\.address is not a valid address/);
    rejects([{ ...peer, public_key: "b0656600" }], /^config: p2p\.peers\[0\]\.public_key should be an Ed25519 public key/);
    rejects([{ ...peer, address: self.address }], /^config: p2p\.peers\[0\]\.public_key is not the key of did:bid:/);
    rejects([{ ...peer, host: "" }], /^config: p2p\.peers\[0\]\.host should be a host name or IP address/);
    rejects([{ ...peer, port: 70000 }], /^config: p2p\.peers\[0\]\.port should be a port number/);
    rejects([peer, { ...peer, port: "x" }], /^config: p2p\.peers\[1\]\.port/);
  });

  it("fills limits from the defaults and keeps the ones given", () => {
    expect(parseNodeConfig(config([])).limits).to.deep.equal(DEFAULT_LIMITS);
    expect(parseNodeConfig(config([], { ws_clients: 3 })).limits).to.deep.equal({ ...DEFAULT_LIMITS, ws_clients: 3 });
  });

  it("refuses a limit that is unknown or not a positive integer", () => {
    const rejectsLimits = (limits: unknown, pattern: RegExp) => expect(() => parseNodeConfig(config([], limits))).to.throw(ChainError, pattern);
    rejectsLimits({ ws_client: 3 }, /^config: limits\.ws_client is not a setting/);
    rejectsLimits({ submit_items: 0 }, /^config: limits\.submit_items should be a positive integer/);
    rejectsLimits({ pool_bytes: "64mb" }, /^config: limits\.pool_bytes should be a positive integer/);
    rejectsLimits({ p2p_ban_ms: 2 ** 31 }, /^config: limits\.p2p_ban_ms should be at most 2147483647 ms/);
    rejectsLimits({ http_body_bytes: 2000, http_bodies_in_flight_bytes: 1000 }, /^config: limits\.http_bodies_in_flight_bytes should be at least limits\.http_body_bytes \(2000\)/);
    expect(() => parseNodeConfig(config([peer, { ...peer, port: 16021 }], { p2p_connections: 1 }))).to.throw(ChainError, /^config: limits\.p2p_connections should be at least the number of peers \(2\)/);
  });
});
