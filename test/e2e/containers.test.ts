import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { expect } from "chai";
import { BIN_PATH, loadManifest, nodePorts, type Manifest } from "@chainsim/cli";
import { ChainsimClient, Keypair, createContract, expectOk, payCoin, sendTransaction, waitForTransaction } from "@chainsim/client";
import { ErrorCode } from "@chainsim/protocol";
import { dashboardUrl } from "../harness/dashboard.js";
import { chainsimFault, faultStateTable, type FaultBackend, type Observed } from "../harness/fault-states.js";
import { waitFor } from "../harness/network.js";
import { buildOfflineImage, freePortPrefix, requirePodman, printContainerLogs, removeComposeProject, REPO, run, tail } from "../harness/podman.js";

/**
 * docker-compose.yml for real: the local-4 network as four podman containers from the image `npm run
 * image:offline` assembles (docs/containers.md). Fails when podman cannot be installed or run here.
 */

/** The project name keeps containers, volumes and the network apart from any other compose project. */
const PROJECT = `chainsim-e2e-${process.pid}-${randomBytes(3).toString("hex")}`;

describe("e2e: docker-compose.yml under podman (local-4 in four containers)", function () {
  this.timeout(600_000);
  let manifest: Manifest;
  let clients: ChainsimClient[] = [];
  let composeEnv: Record<string, string> = {};
  let started = false;
  let failed = false;
  const timings: string[] = [];

  const compose = (args: string[], timeoutMs = 180_000) => run("podman-compose", ["-f", "docker-compose.yml", "-p", PROJECT, ...args], { timeoutMs, env: composeEnv });

  async function timed<T>(what: string, action: () => Promise<T>): Promise<T> {
    const t0 = Date.now();
    const value = await action();
    timings.push(`${what} ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    return value;
  }

  /** Fails at once, with the container's last log lines, when a validator's container has stopped. */
  async function failIfExited(): Promise<void> {
    const ps = await run("podman", ["ps", "-a", "--filter", `label=io.podman.compose.project=${PROJECT}`, "--format", "{{.Names}} {{.State}}"]);
    const exited = ps.stdout.split("\n").filter((line) => /\s(exited|stopped|dead)$/i.test(line)).map((line) => line.split(" ")[0]);
    if (exited.length === 0) return;
    const logs = await run("podman", ["logs", "--tail", "5", exited[0]]);
    throw new Error(`container(s) ${exited.join(", ")} stopped; last log lines of ${exited[0]}:\n${tail(logs.stdout + logs.stderr, 5)}`);
  }

  before(async function () {
    await timed("podman setup and probe", requirePodman);
    manifest = await loadManifest(`${REPO}/networks/local-4.toml`);
    // The test runs after `npm test` built everything, so the image is assembled from the current dist/.
    await timed("npm run image:offline", buildOfflineImage);
    const prefix = await freePortPrefix(manifest.nodes.length);
    composeEnv = { CHAINSIM_PORT_PREFIX: String(prefix) };
    clients = manifest.nodes.map((_, i) => new ChainsimClient(`http://127.0.0.1:${nodePorts(prefix * 100, i).http}`, { timeoutMs: 5_000 }));
    started = true; // from here on, after() tears down whatever `up` managed to create
    await timed("podman-compose up -d", () => compose(["up", "-d"]).then((r) => {
      if (r.code !== 0) throw new Error(`podman-compose up -d exited ${r.code}:\n${tail(r.stderr || r.stdout)}`);
    }));
  });

  afterEach(function () {
    if (this.currentTest?.state === "failed") failed = true;
  });

  after(async function () {
    this.timeout(300_000);
    if (!started) return;
    if (failed) {
      await printContainerLogs(PROJECT, manifest.nodes.map((n) => n.name));
    }
    await timed("teardown (down -v)", () => removeComposeProject(PROJECT, composeEnv));
    console.log(`      timings: ${timings.join(", ")}`);
  });

  it("all four validators answer /hello on their published ports", async () => {
    await timed("up → all four answer /hello", () =>
      waitFor(
        "every container to answer /hello",
        async () => {
          if ((await Promise.all(clients.map((c) => c.hello().then(() => true, () => false)))).every(Boolean)) return true;
          await failIfExited();
          return undefined;
        },
        60_000,
        250,
      ),
    );
  });

  it("close ledgers together: the same ledger hash at every common seq past genesis", async () => {
    // Without transactions a ledger closes every empty_close_interval_ms; allow three of them.
    const bound = 3 * manifest.consensus.empty_close_interval_ms + 10_000;
    const common = await timed("first common closed ledger", () =>
      waitFor(
        "every validator to close a ledger past genesis",
        async () => {
          const seqs = await Promise.all(clients.map(async (c) => Number(expectOk(await c.getLedger()).result.header.seq)));
          const min = Math.min(...seqs);
          return min >= 2 ? min : undefined;
        },
        bound,
        500,
      ),
    );
    for (let seq = 2; seq <= common; seq++) {
      const hashes = await Promise.all(clients.map(async (c) => expectOk(await c.getLedger({ seq })).result.header.hash));
      const byNode = Object.fromEntries(manifest.nodes.map((n, i) => [n.name, hashes[i]]));
      expect(new Set(hashes).size, `ledger hashes at seq ${seq}: ${JSON.stringify(byNode)}`).to.equal(1);
    }
  });

  it("a transaction submitted to one container is readable on all four", async () => {
    const genesis = Keypair.fromPrivateKey(manifest.genesis.account.private_key);
    const dest = Keypair.generate();
    const { hash } = await sendTransaction(clients[1], { signers: [genesis], operations: [payCoin(dest.address, 1_000_000)] });
    const seen = await timed("transaction on all four", () =>
      waitFor(
        `transaction ${hash} (submitted to v2) on every validator`,
        async () => {
          const found = await Promise.all(clients.map(async (c) => (await c.getTransactionHistory({ hash })).error_code === ErrorCode.SUCCESS));
          return found.every(Boolean) ? found : undefined;
        },
        30_000,
        250,
      ).catch(async (error: Error) => {
        const found = await Promise.all(clients.map(async (c) => (await c.getTransactionHistory({ hash })).error_code));
        const byNode = manifest.nodes.map((n, i) => `${n.name}: error_code ${found[i]}`).join(", ");
        throw new Error(`${error.message} (getTransactionHistory: ${byNode})`);
      }),
    );
    expect(seen).to.deep.equal([true, true, true, true]);
    const records = await Promise.all(clients.map(async (c) => expectOk(await c.getTransactionHistory({ hash })).result.transactions[0]));
    for (const record of records) expect(record.error_code).to.equal(ErrorCode.SUCCESS);
    expect(new Set(records.map((r) => String(r.ledger_seq))).size, "the same ledger on every validator").to.equal(1);
  });

  it("runs contracts in each container's contract worker: a deployment, a call and a query everywhere", async () => {
    const genesis = Keypair.fromPrivateKey(manifest.genesis.account.private_key);
    const code = `function init() {} function main(i) { Chain.store("seen", i); } function query() { return Chain.load("seen") + "|" + String(/^(a+)+$/.test("a".repeat(30) + "!")); }`;
    const deployed = await sendTransaction(clients[0], { signers: [genesis], operations: [createContract(code)], feeLimit: 200_000_000n });
    const created = await timed("contract deployed", () => waitForTransaction(clients[0], deployed.hash, { timeoutMs: 60_000 }));
    expect(created.error_code, created.error_desc).to.equal(0);
    const address = JSON.parse(created.error_desc)[0].contract_address as string;
    // The call goes to v3, which reads the sender's nonce from its own ledger: wait until that ledger has the deployment.
    await waitForTransaction(clients[2], deployed.hash, { timeoutMs: 30_000 });
    const called = await sendTransaction(clients[2], { signers: [genesis], operations: [payCoin(address, 0n, { input: "hello" })], feeLimit: 10_000_000n });
    expect((await waitForTransaction(clients[2], called.hash, { timeoutMs: 60_000 })).error_code).to.equal(0);
    for (const client of clients) {
      const answer = await waitFor("the call on every validator", async () => {
        const result = await client.callContract({ contract_address: address, input: "", opt_type: 2, source_address: "" } as never);
        const value = (result.result as { query_rets?: { result?: { value?: string } }[] }).query_rets?.[0]?.result?.value;
        return value === "hello|false" ? value : undefined;
      }, 30_000, 250);
      expect(answer).to.equal("hello|false");
    }
  });

  /** chainsim on this project: --compose (docker-compose.yml of the repository) --project, on the test's ports. */
  const backend = (): FaultBackend => ({
    kind: "compose",
    networkArgs: ["--compose", "--project", PROJECT],
    env: composeEnv,
    observe: observeV1,
    waitServing: async () => void (await waitFor("v1 to answer /hello", () => clients[0].hello().then(() => true, () => undefined), 60_000, 250)),
  });

  /** v1's container as podman shows it: its state, and whether it is on the project network. */
  async function observeV1(): Promise<Observed> {
    const inspect = await run("podman", ["inspect", "--format", "{{.State.Status}}\t{{json .NetworkSettings.Networks}}", `${PROJECT}_v1_1`]);
    const [status, networks] = inspect.stdout.trim().split("\t");
    const process = status === "running" ? "running" : status === "paused" ? "paused" : "down";
    return { process, disconnected: !(`${PROJECT}_default` in (JSON.parse(networks || "{}") ?? {})) };
  }

  it("chainsim status --compose reads the four containers", async () => {
    // Exit 0 = every node answered and the hashes agree; a loaded machine may time a reading out, so poll (bounded).
    let last = { code: -1, stdout: "", stderr: "" };
    const status = await waitFor(
      "chainsim status --compose to exit 0",
      async () => {
        last = await run(process.execPath, [BIN_PATH, "status", "--compose", "--project", PROJECT, "--json"], { env: composeEnv, timeoutMs: 120_000 });
        return last.code === 0 ? last : undefined;
      },
      180_000,
      1_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; last exit ${last.code}: ${tail(last.stdout + last.stderr, 10)}`);
    });
    const network = JSON.parse(status.stdout) as { nodes: { name: string; error?: string }[] };
    expect(network.nodes.map((n) => n.name)).to.deep.equal(["v1", "v2", "v3", "v4"]);
    expect(network.nodes.filter((n) => n.error)).to.deep.equal([]);
  });

  it("chainsim dashboard --compose watches the four containers", async () => {
    let dashboard: ChildProcess | undefined;
    try {
      dashboard = spawn(process.execPath, [BIN_PATH, "dashboard", "--compose", "--project", PROJECT, "--port", "0"], { cwd: REPO, env: { ...process.env, ...composeEnv }, stdio: ["ignore", "pipe", "inherit"] });
      const url = await dashboardUrl(dashboard);
      const nodes = await waitFor(
        "the dashboard to show four nodes up",
        async () => {
          const state = (await (await fetch(`${url}api/state`)).json()) as { nodes: { name: string; error?: string }[] };
          return state.nodes.length === 4 && state.nodes.every((n) => !n.error) ? state.nodes : undefined;
        },
        30_000,
        250,
      );
      expect(nodes.map((n) => n.name)).to.deep.equal(["v1", "v2", "v3", "v4"]);
    } finally {
      dashboard?.kill("SIGINT");
    }
  });

  it("chainsim logs --compose merges the four containers' node.log, and NODE --level keeps one", async () => {
    type Record = { time: string; node: string; level: string; msg: string };
    const logs = async (...args: string[]): Promise<Record[]> => {
      const result = await run(process.execPath, [BIN_PATH, "logs", ...args, "--compose", "--project", PROJECT, "--json"], { env: composeEnv, timeoutMs: 120_000 });
      expect(result.code, tail(result.stderr, 8)).to.equal(0);
      return result.stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record);
    };
    const all = await logs();
    expect([...new Set(all.map((r) => r.node))].sort()).to.deep.equal(["v1", "v2", "v3", "v4"]);
    expect(all.map((r) => r.time), "in time order").to.deep.equal(all.map((r) => r.time).sort());
    const v2 = await logs("v2", "--level", "info");
    expect(v2.length).to.be.greaterThan(0);
    expect(v2.every((r) => r.node === "v2" && ["info", "warn", "error", "fatal"].includes(r.level)), JSON.stringify(v2.slice(0, 3))).to.equal(true);
  });

  it("chainsim fault v1 kill --compose, then chainsim fault v1 start --compose brings v1 back", async () => {
    const killed = await chainsimFault(backend(), ["v1", "kill"]);
    expect(killed.code, killed.stderr).to.equal(0);
    expect((await observeV1()).process).to.equal("down");
    const started = await timed("fault v1 start --compose", () => chainsimFault(backend(), ["v1", "start"]));
    expect(started.code, started.stderr).to.equal(0);
    expect(await observeV1()).to.deep.equal({ process: "running", disconnected: false });
    await backend().waitServing();
  });

  describe("chainsim fault --compose on a down, paused or disconnected container", () => {
    faultStateTable(backend);
  });
});
