import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { devAccount } from "../src/accounts.js";
import { CLI_BIN } from "./helpers.js";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function chainsim(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI_BIN, ...args], { cwd: "/" }, (error, stdout, stderr) => {
      resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
    });
  });
}

describe("chainsim command", () => {
  it("keys --json prints the dev accounts of the default manifest, local-4 (from any cwd)", async () => {
    const run = await chainsim("keys", "--json");
    expect(run.code).to.equal(0);
    const json = JSON.parse(run.stdout);
    const { key_file: _, ...genesis } = { ...devAccount("local-4", "genesis"), key_file: undefined };
    const validators = ["v1", "v2", "v3", "v4"].map((name) => ({ name, ...devAccount("local-4", name) }));
    expect(json).to.deep.equal({ network: "local-4", genesis, validators });
  });

  it("keys prints accounts with an INSECURE note", async () => {
    const run = await chainsim("keys");
    expect(run.code).to.equal(0);
    expect(run.stdout).to.include(devAccount("local-4", "v1").private_key).and.include("INSECURE");
  });

  for (const args of [["help"], [], ["--help"], ["up", "--help"]]) {
    it(`${["chainsim", ...args].join(" ")} prints the usage and exits 0`, async () => {
      const run = await chainsim(...args);
      expect(run.code).to.equal(0);
      for (const command of ["up", "down", "keys", "node --config FILE", "help"]) expect(run.stdout).to.include(`\n  ${command}`);
    });
  }

  it("an unknown command exits 2 with a clear message and the usage", async () => {
    const run = await chainsim("launch");
    expect(run.code).to.equal(2);
    expect(run.stderr).to.match(/^chainsim: unknown command "launch"\. Run `chainsim help`/);
    expect(run.stderr).to.include("usage: chainsim <command>");
  });

  it("an unknown option exits 2", async () => {
    const run = await chainsim("keys", "--jsn");
    expect(run.code).to.equal(2);
    expect(run.stderr).to.match(/^chainsim: keys: Unknown option '--jsn'\. Run `chainsim help`/);
  });

  it("sim: --shrink, --trace and --view go with --replay, and --seeds excludes it", async function () {
    this.timeout(120_000); // six commands, each loading the validator code
    for (const [args, message] of [
      [["--shrink"], /--shrink goes with --replay SEED/],
      [["--trace", "/tmp/x.jsonl"], /--trace goes with --replay SEED/],
      [["--view"], /--view goes with --replay SEED/],
      [["--replay", "1", "--seeds", "3"], /--seeds and --replay exclude each other/],
      [["--replay", "1", "--port", "0"], /--port and --host go with --view/],
      [["--seeds", "x"], /--seeds should be a whole number/],
      [["--replay", "1", "--jobs", "2"], /--jobs goes with --seeds/],
      [["--seeds", "2", "--jobs", "0"], /--jobs should be at least 1/],
      [["--replay", "4294967303"], /--replay should be at most 4294967295/],
      [["--seeds", "2", "--from", "4294967295"], /goes past it/],
      [["--replay", "1", "--view", "--port", "99999"], /--port should be at most 65535/],
    ] as const) {
      const run = await chainsim("sim", ...args);
      expect(run.code, args.join(" ")).to.equal(2);
      expect(run.stderr).to.match(message);
      expect(run.stderr, args.join(" ")).not.to.include("    at ");
    }
  });

  it("sim: an unwritable --trace or an unknown --host is a clear error, not a stack trace", async () => {
    for (const [args, message] of [
      [["--replay", "1", "--duration-ms", "1000", "--trace", "/nonexistent-dir/t.jsonl"], /^chainsim: cannot write the trace to \/nonexistent-dir\/t.jsonl \(ENOENT\)/],
      [["--replay", "1", "--duration-ms", "1000", "--view", "--host", "no-such-host.invalid"], /chainsim: no-such-host.invalid does not resolve/],
    ] as const) {
      const run = await chainsim("sim", ...args);
      expect(run.code, args.join(" ")).to.equal(1);
      expect(run.stderr).to.match(message);
      expect(run.stderr).not.to.include("    at ");
    }
  });

  it("sim --replay gives the same trace hash twice and writes its trace", async function () {
    this.timeout(180_000);
    const dir = await mkdtemp(join(tmpdir(), "chainsim-sim-"));
    try {
      const file = join(dir, "trace.jsonl");
      const runs = [await chainsim("sim", "--replay", "5", "--duration-ms", "4000", "--trace", file), await chainsim("sim", "--replay", "5", "--duration-ms", "4000", "--json")];
      expect(runs.map((r) => r.code)).to.deep.equal([0, 0]);
      const hash = /trace hash ([0-9a-f]{64})/.exec(runs[0]!.stdout)![1];
      expect(JSON.parse(runs[1]!.stdout).trace_hash).to.equal(hash);
      const [header] = (await readFile(file, "utf8")).split("\n");
      expect(JSON.parse(header!)).to.include({ format: "chainsim-sim-trace/1", seed: 5, trace_hash: hash });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("sim --jobs 3 runs the same seeds to the same results as one process", async function () {
    this.timeout(180_000);
    const rows = async (...jobs: string[]) => {
      const run = await chainsim("sim", "--seeds", "3", "--from", "20", "--duration-ms", "8000", ...jobs);
      expect(run.code, run.stderr).to.equal(0);
      return run.stdout.split("\n").filter((line) => /^(SEED|\d+ +(pass|FAIL))/.test(line));
    };
    const serial = await rows();
    expect(serial).to.have.length(4);
    expect(await rows("--jobs", "3")).to.deep.equal(serial);
  });

  it("expected failures print one line without a stack trace and exit 1", async () => {
    const run = await chainsim("keys", "/nonexistent.toml");
    expect(run.code).to.equal(1);
    expect(run.stderr).to.equal("chainsim: cannot read manifest /nonexistent.toml (ENOENT). Pass the path of a network manifest such as networks/single.toml.\n");
  });

  for (const command of ["status", "dashboard", "fault", "logs"]) {
    const node = command === "fault" ? ["v1", "kill"] : [];
    it(`${command} shares the --compose parsing: --project without --compose, and --compose with another network, are usage errors`, async () => {
      const alone = await chainsim(command, ...node, "--project", "p");
      expect(alone.code, alone.stderr).to.equal(2);
      expect(alone.stderr).to.include(`${command}: --project goes with --compose`);
      const both = await chainsim(command, ...node, "--compose", "--data-dir", "/tmp/x");
      expect(both.code, both.stderr).to.equal(2);
      expect(both.stderr).to.include(`${command}: --data-dir and --compose exclude each other`);
    });
  }

  it("node without --config is a usage error", async () => {
    const run = await chainsim("node");
    expect(run.code).to.equal(2);
    expect(run.stderr).to.match(/--config FILE is required/);
  });
});
