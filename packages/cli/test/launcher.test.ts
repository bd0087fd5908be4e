import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { expect } from "chai";
import { CliError } from "../src/errors.js";
import { launchNetwork, stopRecordedNetwork, type LaunchOptions } from "../src/launcher.js";
import { parseManifest, type Manifest } from "../src/manifest.js";
import { readNetworkRecord } from "../src/network-record.js";
import { isValidatorRunning } from "../src/processes.js";
import { freePortBase } from "../src/temporary-network.js";
import { stopValidator } from "../src/validator.js";
import { expectCliError, FAKE_VALIDATOR, tempDir } from "./helpers.js";

/** Launcher tests run a stand-in validator (test/fixtures/fake-validator.ts) instead of `chainsim node`. */
describe("launcher (with a stand-in validator)", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let manifest: Manifest;
  let portBase: number;
  const stops: (() => Promise<unknown>)[] = [];

  const options = (mode: string, extra: Partial<LaunchOptions> = {}): LaunchOptions => ({
    dataDir: join(dir, "data"),
    portBase,
    command: [process.execPath, FAKE_VALIDATOR, mode],
    ...extra,
  });
  const launch = async (mode: string, extra: Partial<LaunchOptions> = {}) => {
    const handle = await launchNetwork(manifest, options(mode, extra));
    stops.push(() => handle.stop());
    return handle;
  };
  const hello = async (url: string) => (await fetch(`${url}/hello`)).json() as Promise<{ node: string }>;

  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir());
    manifest = parseManifest(`name = "t"\n[genesis]\nbalance = 1\n[node.v1]\n[node.v2]\n`, join(dir, "t.toml"));
    portBase = await freePortBase(2);
  });
  afterEach(async () => {
    await Promise.all(stops.splice(0).map((stop) => stop()));
    await cleanup();
  });

  it("starts every validator, waits for /hello, records the network and stops it", async () => {
    const progress: string[] = [];
    const handle = await launch("ok", { onProgress: (message) => progress.push(message) });
    expect(handle.endpoints().map((n) => [n.name, n.http, n.ws, n.p2p])).to.deep.equal([
      ["v1", `http://127.0.0.1:${portBase + 2}`, `ws://127.0.0.1:${portBase + 3}`, `127.0.0.1:${portBase + 1}`],
      ["v2", `http://127.0.0.1:${portBase + 12}`, `ws://127.0.0.1:${portBase + 13}`, `127.0.0.1:${portBase + 11}`],
    ]);
    expect((await hello(handle.nodes[1].http)).node).to.equal("v2");
    expect(progress.some((m) => /v2 answers \/hello/.test(m))).to.equal(true);

    const record = (await readNetworkRecord(join(dir, "data")))!;
    expect(record).to.include({ network: "t", manifest: join(dir, "t.toml"), port_base: portBase, detached: false, launcher_pid: process.pid });
    expect(record.nodes.map((n) => n.pid)).to.deep.equal(handle.nodes.map((n) => n.pid));
    expect(await readFile(record.nodes[0].log_file, "utf8")).to.match(/"msg":"chainsim: starting v1"}\nfake v1: listening/);

    await handle.stop();
    for (const node of handle.nodes) expect(isValidatorRunning(node.pid, node.process.paths.configFile)).to.equal(false);
    expect(await readNetworkRecord(join(dir, "data"))).to.equal(undefined);
  });

  it("refuses a data dir whose recorded network still runs", async () => {
    await launch("ok");
    await expectCliError(() => launchNetwork(manifest, options("ok", { portBase: portBase + 100 })), /network t is already running from .*\(v1 pid \d+, v2 pid \d+\)/);
  });

  it("checks ports before starting anything", async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(portBase + 12, "127.0.0.1", resolve));
    try {
      const error = await expectCliError(() => launch("ok"), new RegExp(`^port ${portBase + 12} \\(http of v2\\) is already in use`));
      expect(error.hint).to.match(/--port-base/);
      expect(existsSync(join(dir, "data", "v1", "config.json"))).to.equal(false);
    } finally {
      blocker.close();
    }
  });

  it("fails fast with the log tail when a validator exits, and stops the others", async () => {
    const error = await expectCliError(() => launch("crash"), /^validator v\d exited \(exit code 1\) while the network was starting/);
    expect(error.details).to.match(/\| fake v\d: cannot open the database \(simulated\)/);
    expect(error.hint).to.match(/node\.log/);
    expect(await readNetworkRecord(join(dir, "data"))).to.equal(undefined);
  });

  it("fails with the log tail when a validator does not answer /hello in time", async () => {
    const error = await expectCliError(() => launch("silent", { readyTimeoutMs: 600 }), /^validator v1 did not answer GET http:\/\/127\.0\.0\.1:\d+\/hello within 0\.6 s/);
    expect(error.details).to.match(/\| \S+Z v1 INFO  chainsim: starting v1$/m);
    const record = await readNetworkRecord(join(dir, "data"));
    expect(record).to.equal(undefined);
  });

  it("stops the validators already started when its signal is aborted during start-up", async () => {
    const pids: number[] = [];
    const controller = new AbortController();
    const onProgress = (message: string) => {
      const started = /^started v\d \(pid (\d+)\)/.exec(message);
      if (started) pids.push(Number(started[1]));
      if (pids.length === 2) controller.abort(new CliError("interrupted", "try again"));
    };
    await expectCliError(() => launch("silent", { onProgress, signal: controller.signal }), /^interrupted$/);
    expect(pids).to.have.length(2);
    for (const [i, pid] of pids.entries()) expect(isValidatorRunning(pid, join(dir, "data", `v${i + 1}`, "config.json"))).to.equal(false);
    expect(await readNetworkRecord(join(dir, "data"))).to.equal(undefined);
  });

  it("restarts one validator after SIGKILL, wiping its data on request", async () => {
    const handle = await launch("ok");
    const v2 = handle.nodes[1];
    const oldPid = v2.pid;
    await writeFile(join(v2.process.paths.dir, "ledger_db"), "old state");
    await handle.restart("v2", { signal: "SIGKILL", wipe: true });
    expect(v2.pid).to.not.equal(oldPid);
    expect(isValidatorRunning(oldPid, v2.process.paths.configFile)).to.equal(false);
    expect((await hello(v2.http)).node).to.equal("v2");
    expect(existsSync(join(v2.process.paths.dir, "ledger_db"))).to.equal(false);
    expect(existsSync(v2.process.paths.configFile)).to.equal(true);
    expect((await readNetworkRecord(join(dir, "data")))!.nodes[1].pid).to.equal(v2.pid);
    await expectCliError(() => handle.restart("v9"), /network t has no validator v9/);
  });

  it("falls back to SIGKILL when a validator ignores SIGTERM", async () => {
    const handle = await launch("ignore-term");
    expect(await stopValidator(handle.nodes[0].process, { graceMs: 200 })).to.equal("killed");
    expect(await stopValidator(handle.nodes[0].process)).to.equal("not running");
    await stopValidator(handle.nodes[1].process, { signal: "SIGKILL" });
  });

  it("stops a detached network from its record (chainsim down)", async () => {
    const handle = await launch("ok", { detach: true }); // also stopped by afterEach if an assertion fails
    const result = (await stopRecordedNetwork(join(dir, "data")))!;
    expect(result.record.detached).to.equal(true);
    expect(result.stopped).to.deep.equal(handle.nodes.map((n) => ({ name: n.name, pid: n.pid, outcome: "stopped" })));
    expect(await stopRecordedNetwork(join(dir, "data"))).to.equal(undefined);
  });

  it("--fresh wipes a network's data dir but refuses a foreign non-empty directory", async () => {
    const foreign = join(dir, "foreign");
    await mkdir(foreign);
    await writeFile(join(foreign, "precious.txt"), "keep me");
    await expectCliError(() => launch("ok", { dataDir: foreign, fresh: true }), /--fresh would wipe .*foreign, which holds files but no chainsim network/);
    expect(existsSync(join(foreign, "precious.txt"))).to.equal(true);

    const first = await launch("ok");
    await first.stop();
    await writeFile(join(dir, "data", "v1", "ledger_db"), "old chain");
    await launch("ok", { fresh: true });
    expect(existsSync(join(dir, "data", "v1", "ledger_db"))).to.equal(false);
  });
});
