import { expect } from "chai";
import { parseNodeConfig } from "@chainsim/node";
import { parseJson, stringifyJson } from "@chainsim/protocol";
import { containerNodeConfig } from "../src/container-config.js";
import { parseManifest } from "../src/manifest.js";
import { networkConfigs } from "../src/network-config.js";
import { expectCliError } from "./helpers.js";

const FOUR = parseManifest(`name = "four"\n[genesis]\nbalance = 100000000000000000\n[node.v1]\n[node.v2]\n[node.v3]\n[node.v4]\n`, "four.toml");

const peerHostPort = (peer: { host: string; port: number }) => `${peer.host}:${peer.port}`;

describe("container configs", () => {
  it("listen on 0.0.0.0 on the local ports, name peers by service, keep data in /data", () => {
    const config = containerNodeConfig(FOUR, "v3", { portBase: 20000 });
    expect(config.data_dir).to.equal("/data");
    expect(config.webserver.listen_addresses).to.equal("0.0.0.0:20022");
    expect(config.wsserver.listen_address).to.equal("0.0.0.0:20023");
    expect(config.p2p.listen_address).to.equal("0.0.0.0:20021");
    expect(config.p2p.peers.map(peerHostPort)).to.deep.equal(["v1:20001", "v2:20011", "v4:20031"]);
  });

  it("change nothing else of the config chainsim up generates", () => {
    const local = networkConfigs(FOUR, { dataDir: "/x", portBase: 16000 })[1];
    const container = containerNodeConfig(FOUR, "v2", { portBase: 16000 });
    const { data_dir, webserver, wsserver, p2p, ...rest } = container;
    const { data_dir: _d, webserver: _w, wsserver: _s, p2p: localP2p, ...localRest } = local;
    expect(rest).to.deep.equal(localRest);
    // Peers keep their address, key and port; only the host changes.
    expect(p2p.peers.map(({ host: _h, ...peer }) => peer)).to.deep.equal(localP2p.peers.map(({ host: _h, ...peer }) => peer));
    expect(p2p.peers.map((p) => p.host)).to.deep.equal(["v1", "v3", "v4"]);
    expect([data_dir, webserver, wsserver].every(Boolean)).to.equal(true);
  });

  it("is a valid node config", () => {
    const config = containerNodeConfig(FOUR, "v1", { portBase: 16000, dataDir: "/var/chain", hostOf: (name) => `chain-${name}` });
    const parsed = parseNodeConfig(parseJson(stringifyJson(config)));
    expect(parsed.data_dir).to.equal("/var/chain");
    expect(parsed.p2p.peers.map(peerHostPort)).to.deep.equal(["chain-v2:16011", "chain-v3:16021", "chain-v4:16031"]);
  });

  it("refuses an unknown validator and a port base that does not fit", async () => {
    await expectCliError(() => containerNodeConfig(FOUR, "v5", { portBase: 16000 }), /^network four has no validator "v5"/);
    await expectCliError(() => containerNodeConfig(FOUR, "v1", { portBase: 65510 }), /^--port-base 65510 does not fit/);
  });
});
