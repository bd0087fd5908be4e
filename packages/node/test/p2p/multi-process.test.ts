import { fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import type { Libp2pPeerNetworkOptions, PeerConfig } from "../../src/index.js";
import type { ParentCommand, PeerReport } from "./fixtures/peer-process.js";
import { testValidator, type TestValidator } from "./keys.js";
import { freePorts, waitUntil } from "./wait.js";

const PEER_PROCESS = fileURLToPath(new URL("./fixtures/peer-process.js", import.meta.url));

/** A validator's p2p layer running in a child process. */
class PeerProcess {
  private constructor(private readonly child: ChildProcess) {}

  static async spawn(options: Libp2pPeerNetworkOptions): Promise<PeerProcess> {
    const child = fork(PEER_PROCESS, [JSON.stringify(options)], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    children.add(child);
    const peer = new PeerProcess(child);
    const [message] = (await Promise.race([once(child, "message"), peer.exited()])) as [{ type: string }];
    expect(message.type).to.equal("ready");
    return peer;
  }

  command(command: ParentCommand): void {
    this.child.send(command);
  }

  async report(): Promise<PeerReport> {
    this.command({ type: "report" });
    const [message] = (await Promise.race([once(this.child, "message"), this.exited()])) as [PeerReport];
    return message;
  }

  private async exited(): Promise<never> {
    await once(this.child, "exit");
    throw new Error("the peer process exited");
  }

  async kill(): Promise<void> {
    await killChild(this.child);
  }
}

const children = new Set<ChildProcess>();

async function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = once(child, "exit");
    child.kill("SIGKILL");
    await exited;
  }
  children.delete(child);
}

describe("Libp2pPeerNetwork across OS processes", function () {
  this.timeout(60_000);
  let validators: TestValidator[];
  let options: (index: number) => Libp2pPeerNetworkOptions;

  beforeEach(async () => {
    validators = await Promise.all(["p0", "p1", "p2"].map((name) => testValidator(name)));
    const ports = await freePorts(3);
    const peers: PeerConfig[] = validators.map((v, i) => ({ address: v.address, public_key: v.publicKey, host: "127.0.0.1", port: ports[i] }));
    options = (index) => ({
      privateKey: validators[index].privateKey,
      listenAddress: `127.0.0.1:${ports[index]}`,
      peers: peers.filter((_, j) => j !== index),
      backoff: { initialMs: 50, maxMs: 1000 },
    });
  });

  afterEach(async () => {
    await Promise.all([...children].map(killChild));
  });

  it("three processes each broadcast 500 1 KiB messages; all arrive, in order per sender", async () => {
    const processes = await Promise.all([0, 1, 2].map((i) => PeerProcess.spawn(options(i))));
    for (const p of processes) p.command({ type: "send", count: 500, size: 1024 });
    await waitUntil(async () => {
      const reports = await Promise.all(processes.map((p) => p.report()));
      return reports.every((r) => Object.values(r.received).filter((e) => e.count === 500).length === 2);
    }, "every process has 500 messages from each other one", 30_000);
    for (const report of await Promise.all(processes.map((p) => p.report()))) {
      expect(Object.values(report.received).every((e) => e.ordered)).to.equal(true);
      expect(report.peers.every((peer) => peer.connected && peer.dropped === 0)).to.equal(true);
    }
  });

  it("reconnects to a process that was killed and started again", async () => {
    const [a, b] = await Promise.all([0, 1].map((i) => PeerProcess.spawn(options(i))));
    const addrA = validators[0].address;
    const addrB = validators[1].address;
    a.command({ type: "send", to: addrB, count: 10, size: 1024 });
    await waitUntil(async () => (await b.report()).received[addrA]?.count === 10, "b has a's first messages");
    await b.kill();
    const statusOfB = async () => (await a.report()).peers.find((p) => p.address === addrB)!;
    await waitUntil(async () => !(await statusOfB()).connected, "a notices b is gone");
    const b2 = await PeerProcess.spawn(options(1));
    await waitUntil(async () => (await statusOfB()).connected, "a reconnects to the new b", 20_000);
    a.command({ type: "send", to: addrB, count: 100, size: 1024 });
    await waitUntil(async () => (await b2.report()).received[addrA]?.count === 100, "the new b has the later messages");
    expect((await b2.report()).received[addrA].ordered).to.equal(true);
    expect((await statusOfB()).reconnects).to.be.at.least(1);
  });
});
