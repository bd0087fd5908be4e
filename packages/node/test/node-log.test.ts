import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { expect } from "chai";
import { parseNodeConfig } from "../src/config.js";
import { openNodeLog } from "../src/logging/node-log.js";

/** The node's logger and its log_level setting (docs/operations.md, "Logs"). */
describe("node log", () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), "chainsim-node-log-"))));
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("writes JSON lines at log_level and above to node.log in the data directory, and the same to stdout", async () => {
    let stdout = "";
    const sink = new Writable({ write: (chunk, _encoding, done) => ((stdout += chunk), done()) });
    const { log, close } = openNodeLog({ name: "v3", dataDir: join(dir, "v3"), level: "warn", stdout: sink });
    log("started");
    log.debug("closed ledger", { seq: 5 });
    log.warn("p2p: peer disconnected", { peer: "did:bid:x" });
    log.error("internal error");
    close();
    const file = await readFile(join(dir, "v3", "node.log"), "utf8");
    expect(stdout).to.equal(file);
    const records = file.trim().split("\n").map((line) => JSON.parse(line));
    expect(records.map((r) => [r.level, r.node, r.msg])).to.deep.equal([
      ["warn", "v3", "p2p: peer disconnected"],
      ["error", "v3", "internal error"],
    ]);
    expect(records[0].peer).to.equal("did:bid:x");
    expect(records[0].time).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("reads log_level from the config file: info when absent, a clear error when not a level", () => {
    const config = (extra: object) => ({
      network: "n",
      node_name: "v1",
      data_dir: dir,
      webserver: { listen_addresses: "127.0.0.1:1" },
      wsserver: { listen_address: "127.0.0.1:2" },
      p2p: { listen_address: "127.0.0.1:3" },
      validator: { private_key: "priSPKkurEPth8nvTRZhptwQ6uTQE4j9xRjeiEAUMqwkBdy4sp" },
      validators: ["did:bid:eftvx8wdfr24jC1aSbyJrtkmW5VShHi4"],
      genesis: { account: "did:bid:eftvx8wdfr24jC1aSbyJrtkmW5VShHi4", balance: 1 },
      ...extra,
    });
    expect(parseNodeConfig(config({})).log_level).to.equal("info");
    expect(parseNodeConfig(config({ log_level: "debug" })).log_level).to.equal("debug");
    expect(() => parseNodeConfig(config({ log_level: "verbose" }))).to.throw(/config: log_level should be one of trace, debug, info, warn, error, fatal/);
  });
});
