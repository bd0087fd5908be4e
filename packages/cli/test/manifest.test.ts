import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "chai";
import { DEFAULT_CONSENSUS, DEFAULT_LIMITS } from "@chainsim/node";
import { encodePrivateKey } from "@chainsim/protocol";
import { accountFromSeed, devAccount } from "../src/accounts.js";
import { loadManifest, parseManifest } from "../src/manifest.js";
import { DEFAULT_MANIFEST_PATH } from "../src/paths.js";
import { expectCliError, tempDir } from "./helpers.js";

const MINIMAL = `name = "net"\n[genesis]\nbalance = 1000\n[node.a]\n`;

describe("manifest", () => {
  it("reads the default manifest, networks/local-4.toml, with int64 values exact", async () => {
    const manifest = await loadManifest(DEFAULT_MANIFEST_PATH);
    expect(manifest.name).to.equal("local-4");
    expect(manifest.nodes.map((n) => n.name)).to.deep.equal(["v1", "v2", "v3", "v4"]);
    expect(manifest.file).to.equal(DEFAULT_MANIFEST_PATH);
    expect(manifest.port_base).to.equal(16000);
    expect(manifest.genesis.balance).to.equal(100000000000000000n);
    expect(manifest.genesis.gas_price).to.equal(100n);
    expect(manifest.genesis.base_reserve).to.equal(0n);
    expect(manifest.consensus).to.deep.equal({
      close_interval_ms: 1000,
      empty_close_interval_ms: 10000,
      view_timeout_ms: 2000,
      ckp_interval: 10,
      max_txs_per_ledger: DEFAULT_CONSENSUS.max_txs_per_ledger,
    });
    expect(manifest.nodes[0].account).to.deep.equal(devAccount("local-4", "v1"));
    expect(manifest.genesis.account).to.deep.equal(devAccount("local-4", "genesis"));
  });

  it("fills defaults: port_base 16000, node consensus defaults, dev endpoints and fault injection on", () => {
    const manifest = parseManifest(MINIMAL, "net.toml");
    expect(manifest.port_base).to.equal(16000);
    expect(manifest.consensus).to.deep.equal(DEFAULT_CONSENSUS);
    expect(manifest.contracts).to.deep.equal({ steps: 10_240, builtin_steps: 100, lint: false });
    expect(manifest.limits).to.deep.equal(DEFAULT_LIMITS);
    expect(manifest.genesis).to.include({ balance: 1000n, gas_price: 100n, base_reserve: 0n, chain_id: 0n, close_time: 0n });
    expect(manifest.dev).to.deep.equal({ private_key_endpoints: true });
    expect(manifest.debug).to.deep.equal({ fault_injection: true });
    expect(manifest.nodes[0].perturb).to.deep.equal([]);
  });

  it("reads every optional key", () => {
    const manifest = parseManifest(
      `name = "full-1.x"
port_base = 30000
[genesis]
balance = "9223372036854775807"
gas_price = 5
base_reserve = 10
chain_id = 7
close_time = 1700000000000000
[consensus]
close_interval_ms = 100
empty_close_interval_ms = 200
view_timeout_ms = 300
ckp_interval = 4
max_txs_per_ledger = 50
[contracts]
steps = 20000
builtin_steps = 50
lint = true
[limits]
http_body_bytes = 1024
ws_clients = 3
[dev]
private_key_endpoints = false
[debug]
fault_injection = false
[node.v1]
perturb = ["kill", "restart"]
`,
      "full.toml",
    );
    expect(manifest.port_base).to.equal(30000);
    expect(manifest.genesis).to.include({ balance: 9223372036854775807n, gas_price: 5n, base_reserve: 10n, chain_id: 7n, close_time: 1700000000000000n });
    expect(manifest.consensus).to.deep.equal({ close_interval_ms: 100, empty_close_interval_ms: 200, view_timeout_ms: 300, ckp_interval: 4, max_txs_per_ledger: 50 });
    expect(manifest.contracts).to.deep.equal({ steps: 20000, builtin_steps: 50, lint: true });
    expect(manifest.limits).to.deep.equal({ ...DEFAULT_LIMITS, http_body_bytes: 1024, ws_clients: 3 });
    expect(manifest.dev.private_key_endpoints).to.equal(false);
    expect(manifest.debug.fault_injection).to.equal(false);
    expect(manifest.nodes[0].perturb).to.deep.equal(["kill", "restart"]);
  });

  it("keeps [node.NAME] tables in file order", () => {
    const manifest = parseManifest(`name = "n"\n[genesis]\nbalance = 1\n[node.zeta]\n[node.alpha]\n[node.m2]\n`, "n.toml");
    expect(manifest.nodes.map((n) => n.name)).to.deep.equal(["zeta", "alpha", "m2"]);
  });

  describe("key files", () => {
    let dir: string;
    let cleanup: () => Promise<void>;
    beforeEach(async () => ({ dir, cleanup } = await tempDir()));
    afterEach(() => cleanup());

    it("reads key_file (relative to the manifest) for validators and genesis", async () => {
      const seed = new Uint8Array(32).fill(7);
      const genesisSeed = new Uint8Array(32).fill(9);
      await mkdir(join(dir, "keys"));
      await writeFile(join(dir, "keys", "v1.key"), encodePrivateKey(seed) + "\n");
      await writeFile(join(dir, "keys", "genesis.key"), encodePrivateKey(genesisSeed));
      const file = join(dir, "net.toml");
      await writeFile(file, `name = "net"\n[genesis]\nbalance = 1\nkey_file = "keys/genesis.key"\n[node.v1]\nkey_file = "keys/v1.key"\n[node.v2]\n`);
      const manifest = await loadManifest(file);
      expect(manifest.nodes[0].account).to.deep.equal({ ...accountFromSeed(seed), key_file: join(dir, "keys", "v1.key") });
      expect(manifest.nodes[1].account).to.deep.equal(devAccount("net", "v2"));
      expect(manifest.genesis.account).to.deep.equal({ ...accountFromSeed(genesisSeed), key_file: join(dir, "keys", "genesis.key") });
    });

    it("names a key_file that is missing or holds no private key", async () => {
      const file = join(dir, "net.toml");
      const text = `name = "net"\n[genesis]\nbalance = 1\n[node.v1]\nkey_file = "v1.key"\n`;
      await expectCliError(() => parseManifest(text, file), /net\.toml: node\.v1\.key_file names .*v1\.key, which cannot be read \(ENOENT\)/);
      await writeFile(join(dir, "v1.key"), "did:bid:not-a-key");
      const error = await expectCliError(() => parseManifest(text, file), /node\.v1\.key_file names .*v1\.key, which does not hold an Ed25519 private key/);
      expect(error.hint).to.match(/remove key_file to use the dev key/);
    });

    it("refuses two validators with the same key", async () => {
      await writeFile(join(dir, "k"), encodePrivateKey(new Uint8Array(32).fill(1)));
      const text = `name = "net"\n[genesis]\nbalance = 1\n[node.v1]\nkey_file = "k"\n[node.v2]\nkey_file = "k"\n`;
      await expectCliError(() => parseManifest(text, join(dir, "net.toml")), /node\.v2 has the same key as node\.v1/);
    });
  });

  it("names a manifest it cannot read", async () => {
    const error = await expectCliError(() => loadManifest("/nonexistent/net.toml"), /cannot read manifest \/nonexistent\/net\.toml \(ENOENT\)/);
    expect(error.hint).to.match(/networks\/single\.toml/);
  });

  describe("validation errors name the file and the key", () => {
    const cases: [string, string, RegExp][] = [
      ["invalid TOML", `name = "n"\nport_base = = 1\n`, /^net\.toml:2:\d+: invalid TOML: invalid value/],
      ["an unknown top-level key", `nam = "n"\n`, /^net\.toml: nam is not a known key/],
      ["a missing name", `[genesis]\nbalance = 1\n[node.a]\n`, /^net\.toml: name is missing/],
      ["a name that is not a string", `name = 5\n`, /^net\.toml: name should be a non-empty string, got 5/],
      ["a name with a space", `name = "my net"\n`, /^net\.toml: name is "my net", which is not a valid network name/],
      ["a name starting with a digit", `name = "1net"\n`, /not a valid network name/],
      ["no [node] tables", `name = "n"\n[genesis]\nbalance = 1\n`, /^net\.toml: node has no validators/],
      ["an empty [node] table", `name = "n"\n[node]\n`, /^net\.toml: node has no validators/],
      ["a node that is not a table", `name = "n"\nnode = 3\n`, /^net\.toml: node should be a table \(\[node\]\), got 3/],
      ["a node entry that is not a table", `name = "n"\n[node]\nv1 = 3\n`, /^net\.toml: node\.v1 should be a table/],
      ["an invalid node name", `name = "n"\n[node."1x"]\n`, /^net\.toml: node\.1x does not have a valid node name/],
      ["an unknown node key", `name = "n"\n[node.v1]\nport = 1\n`, /^net\.toml: node\.v1\.port is not a known key/],
      ["perturb that is not an array", `name = "n"\n[node.v1]\nperturb = "kill"\n`, /^net\.toml: node\.v1\.perturb should be an array/],
      ["an unknown perturbation", `name = "n"\n[node.v1]\nperturb = ["explode"]\n`, /node\.v1\.perturb has "explode"; allowed values are "kill", "pause"/],
      ["key_file that is not a string", `name = "n"\n[node.v1]\nkey_file = 1\n`, /^net\.toml: node\.v1\.key_file should be a non-empty string/],
      ["a port_base below 1024", `name = "n"\nport_base = 80\n[node.v1]\n`, /^net\.toml: port_base should be at least 1024, got 80/],
      ["a port_base above 65535", `name = "n"\nport_base = 70000\n[node.v1]\n`, /^net\.toml: port_base should be at most 65535/],
      ["a port_base with no room for the nodes", `name = "n"\nport_base = 65520\n[node.a]\n[node.b]\n[node.c]\n`, /^net\.toml: port_base 65520 leaves no room for 3 validators/],
      ["a fractional port_base", `name = "n"\nport_base = 16000.5\n[node.a]\n`, /^net\.toml: port_base should be an integer, got 16000\.5/],
      ["an unknown [dev] key", `name = "n"\n[node.a]\n[dev]\nkeys = true\n`, /^net\.toml: dev\.keys is not a known key/],
      ["a non-boolean dev flag", `name = "n"\n[node.a]\n[dev]\nprivate_key_endpoints = "yes"\n`, /^net\.toml: dev\.private_key_endpoints should be true or false, got "yes"/],
      ["a non-boolean debug flag", `name = "n"\n[node.a]\n[debug]\nfault_injection = 1\n`, /^net\.toml: debug\.fault_injection should be true or false, got 1/],
      ["a missing [genesis]", `name = "n"\n[node.a]\n`, /^net\.toml: genesis is missing/],
      ["a genesis that is not a table", `name = "n"\ngenesis = 1\n[node.a]\n`, /^net\.toml: genesis should be a table/],
      ["an unknown genesis key", `name = "n"\n[node.a]\n[genesis]\nbalance = 1\nbalnce = 2\n`, /^net\.toml: genesis\.balnce is not a known key/],
      ["a missing balance", `name = "n"\n[node.a]\n[genesis]\n`, /^net\.toml: genesis\.balance is missing/],
      ["a non-numeric balance", `name = "n"\n[node.a]\n[genesis]\nbalance = "lots"\n`, /^net\.toml: genesis\.balance should be an integer, got "lots"/],
      ["a fractional balance", `name = "n"\n[node.a]\n[genesis]\nbalance = 1.5\n`, /^net\.toml: genesis\.balance should be an integer, got 1\.5/],
      ["a zero balance", `name = "n"\n[node.a]\n[genesis]\nbalance = 0\n`, /^net\.toml: genesis\.balance should be at least 1, got 0/],
      ["a balance beyond int64", `name = "n"\n[node.a]\n[genesis]\nbalance = 9223372036854775808\n`, /^net\.toml: genesis\.balance is 9223372036854775808, outside the int64 range/],
      ["a negative gas_price", `name = "n"\n[node.a]\n[genesis]\nbalance = 1\ngas_price = -1\n`, /^net\.toml: genesis\.gas_price should be at least 0, got -1/],
      ["a date as close_time", `name = "n"\n[node.a]\n[genesis]\nbalance = 1\nclose_time = 2024-01-01T00:00:00Z\n`, /^net\.toml: genesis\.close_time should be an integer, got a date/],
      ["an unknown consensus key", `name = "n"\n[node.a]\n[genesis]\nbalance = 1\n[consensus]\nview_timeout = 5\n`, /^net\.toml: consensus\.view_timeout is not a known key/],
      ["a zero view timeout", `name = "n"\n[node.a]\n[genesis]\nbalance = 1\n[consensus]\nview_timeout_ms = 0\n`, /^net\.toml: consensus\.view_timeout_ms should be at least 1, got 0/],
      ["a text ckp_interval", `name = "n"\n[node.a]\n[genesis]\nbalance = 1\n[consensus]\nckp_interval = "often"\n`, /^net\.toml: consensus\.ckp_interval should be an integer, got "often"/],
      ["a log_level that is not a level", `name = "n"\nlog_level = "loud"\n[node.a]\n[genesis]\nbalance = 1\n`, /^net\.toml: log_level is "loud"/],
      ["consensus that is not a table", `name = "n"\nconsensus = [1]\n[node.a]\n[genesis]\nbalance = 1\n`, /^net\.toml: consensus should be a table \(\[consensus\]\), got an array/],
      ["an unknown limit", `name = "n"\n[node.a]\n[genesis]\nbalance = 1\n[limits]\nws_client = 5\n`, /^net\.toml: limits\.ws_client is not a known key/],
      ["a zero limit", `name = "n"\n[node.a]\n[genesis]\nbalance = 1\n[limits]\nsubmit_items = 0\n`, /^net\.toml: limits\.submit_items should be at least 1, got 0/],
    ];
    for (const [what, text, pattern] of cases) {
      it(`rejects ${what}`, async () => {
        const error = await expectCliError(() => parseManifest(text, "net.toml"), pattern);
        expect(error.hint, "every error says what to do").to.have.length.greaterThan(10);
      });
    }
  });
});
