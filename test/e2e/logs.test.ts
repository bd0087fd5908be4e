import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { BIN_PATH } from "@chainsim/cli";
import { expect } from "chai";
import { startTestNetwork, testManifest, waitFor, type TestNetwork } from "../harness/network.js";

interface Record {
  time: string;
  level: string;
  node: string;
  msg: string;
  [field: string]: unknown;
}

const run = promisify(execFile);
const chainsim = (...args: string[]) => run(process.execPath, [BIN_PATH, ...args]);
const records = (stdout: string): Record[] => stdout.trim().split("\n").map((line) => JSON.parse(line) as Record);

/** Two validators writing JSON logs at debug; `chainsim logs` merges them (docs/operations.md, "Logs"). */
describe("e2e: node logs and chainsim logs", function () {
  this.timeout(120_000);
  let net: TestNetwork;
  let follower: ChildProcess | undefined;

  before(async () => {
    net = await startTestNetwork(`log_level = "debug"\n` + testManifest("e2e-logs", 2));
  });
  afterEach(() => {
    follower?.kill("SIGKILL");
    follower = undefined;
  });
  after(async () => net?.cleanup());

  it("each node writes JSON lines with time, level, node and msg in its data directory", async () => {
    const lines = (await readFile(join(net.dataDir, "v1", "node.log"), "utf8")).trim().split("\n").map((line) => JSON.parse(line) as Record);
    for (const record of lines) {
      expect(record).to.include.keys("time", "level", "node", "msg");
      expect(record.node).to.equal("v1");
    }
    expect(lines.some((r) => r.level === "debug" && r.msg === "closed ledger" && typeof r.seq === "number")).to.equal(true);
  });

  it("--json merges the lines of every node in time order", async () => {
    const merged = records((await chainsim("logs", "--json", "--data-dir", net.dataDir)).stdout);
    expect(new Set(merged.map((r) => r.node))).to.deep.equal(new Set(["v1", "v2"]));
    for (let i = 1; i < merged.length; i++) expect(merged[i].time >= merged[i - 1].time, `line ${i} is older than line ${i - 1}`).to.equal(true);
    const atInfo = records((await chainsim("logs", "--json", "--level", "info", "--data-dir", net.dataDir, "v2")).stdout);
    expect(atInfo.length).to.be.above(0);
    expect(atInfo.every((r) => r.node === "v2" && r.level !== "debug" && r.level !== "trace")).to.equal(true);
  });

  it("--follow prints the lines written after it started", async () => {
    const seen: Record[] = [];
    follower = spawn(process.execPath, [BIN_PATH, "logs", "--follow", "--json", "--data-dir", net.dataDir], { stdio: ["ignore", "pipe", "inherit"] });
    let buffered = "";
    follower.stdout!.on("data", (chunk: Buffer) => {
      const lines = (buffered + chunk.toString()).split("\n");
      buffered = lines.pop()!;
      seen.push(...lines.map((line) => JSON.parse(line) as Record));
    });
    await waitFor("the lines already written", async () => (seen.length > 0 ? true : undefined), 60_000);
    // Its first lines out, it has read what the files held (they are small) a moment later: lines 2 s newer
    // can only come from reading the files as they grow. Empty ledgers close every second, logged by every node.
    const later = new Date(Date.now() + 2000).toISOString();
    await waitFor("lines written after --follow started, from every node", async () => {
      const fresh = new Set(seen.filter((r) => r.time > later && r.msg === "closed ledger").map((r) => r.node));
      return fresh.size === 2 ? true : undefined;
    }, 30_000);
    for (let i = 1; i < seen.length; i++) expect(seen[i].time >= seen[i - 1].time, `line ${i} is older than line ${i - 1}`).to.equal(true);
  });

  it("says what to do for an unknown node or a directory without a network", async () => {
    const unknown = await chainsim("logs", "v9", "--data-dir", net.dataDir).catch((error: { code: number; stderr: string }) => error);
    expect(unknown).to.include({ code: 1 });
    expect((unknown as { stderr: string }).stderr).to.match(/no validator v9 in .*\. Use one of v1, v2\.\n/);
    const empty = await mkdtemp(join(tmpdir(), "chainsim-no-network-"));
    try {
      const none = await chainsim("logs", "--data-dir", empty).catch((error: { code: number; stderr: string }) => error);
      expect((none as { stderr: string }).stderr).to.match(/no chainsim network in .*\. Start one with `chainsim up`/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
