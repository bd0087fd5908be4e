import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "chai";
import { parseNodeConfig } from "@chainsim/node";
import { parseJson } from "@chainsim/protocol";
import { devAccount } from "../src/accounts.js";
import { parseManifest } from "../src/manifest.js";
import { checkPortBase, networkConfigs, nodePorts, validatorPaths, writeNodeConfig } from "../src/network-config.js";
import { expectCliError, tempDir } from "./helpers.js";

const FOUR = parseManifest(
  `name = "four"\n[genesis]\nbalance = 100000000000000000\n[consensus]\nview_timeout_ms = 1500\n[node.v1]\n[node.v2]\n[node.v3]\n[node.v4]\n`,
  "four.toml",
);

describe("network configs", () => {
  it("lays out ports base+10*i+1..3 per node", () => {
    expect(nodePorts(16000, 0)).to.deep.equal({ p2p: 16001, http: 16002, ws: 16003 });
    expect(nodePorts(16000, 3)).to.deep.equal({ p2p: 16031, http: 16032, ws: 16033 });
  });

  it("checks that a port base fits the network", async () => {
    expect(() => checkPortBase(65500, 4, "--port-base")).to.not.throw();
    await expectCliError(() => checkPortBase(65510, 4, "--port-base"), /^--port-base 65510 does not fit 4 validator\(s\): they need ports 65511\.\.65543/);
    await expectCliError(() => checkPortBase(80, 1, "--port-base"), /^--port-base 80 does not fit/);
  });

  it("gives every node its ports, data dir, key, peers and the shared validator list", () => {
    const configs = networkConfigs(FOUR, { dataDir: "/data/four", portBase: 20000 });
    const addresses = ["v1", "v2", "v3", "v4"].map((name) => devAccount("four", name).address);
    expect(configs.map((c) => c.node_name)).to.deep.equal(["v1", "v2", "v3", "v4"]);
    const v3 = configs[2];
    expect(v3.network).to.equal("four");
    expect(v3.data_dir).to.equal("/data/four/v3");
    expect(v3.webserver.listen_addresses).to.equal("127.0.0.1:20022");
    expect(v3.wsserver.listen_address).to.equal("127.0.0.1:20023");
    const peer = (name: string, port: number) => {
      const { address, public_key } = devAccount("four", name);
      return { address, public_key, host: "127.0.0.1", port };
    };
    expect(v3.p2p).to.deep.equal({ listen_address: "127.0.0.1:20021", peers: [peer("v1", 20001), peer("v2", 20011), peer("v4", 20031)] });
    expect(v3.validator.private_key).to.equal(devAccount("four", "v3").private_key);
    for (const config of configs) expect(config.validators).to.deep.equal(addresses);
    expect(v3.genesis.account).to.equal(devAccount("four", "genesis").address);
    expect(v3.genesis.balance).to.equal(100000000000000000n);
    expect(v3.consensus.view_timeout_ms).to.equal(1500);
    expect(v3.dev.private_key_endpoints).to.equal(true);
    expect(v3.debug.fault_injection).to.equal(true);
  });

  it("writes config.json files that parseNodeConfig accepts unchanged (int64 exact)", async () => {
    const { dir, cleanup } = await tempDir();
    try {
      for (const config of networkConfigs(FOUR, { dataDir: dir, portBase: 16000 })) {
        const paths = validatorPaths(dir, config.node_name);
        expect(paths.configFile).to.equal(join(dir, config.node_name, "config.json"));
        await writeNodeConfig(config, paths.configFile);
        const text = await readFile(paths.configFile, "utf8");
        expect(text).to.include('"balance": 100000000000000000');
        expect(parseNodeConfig(parseJson(text))).to.deep.equal(config);
      }
    } finally {
      await cleanup();
    }
  });

  it("resolves a relative data dir so configs work from any working directory", () => {
    const [config] = networkConfigs(FOUR, { dataDir: "rel/dir", portBase: 16000 });
    expect(config.data_dir).to.equal(join(process.cwd(), "rel/dir/v1"));
  });
});
