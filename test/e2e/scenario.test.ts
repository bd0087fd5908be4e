import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tmpdir } from "node:os";
import { expect } from "chai";
import { loadManifest, parseManifest, runScenario, type ScenarioReport } from "@chainsim/cli";
import { testManifest } from "../harness/network.js";

const FAST = { close_interval_ms: 200, empty_close_interval_ms: 1000, view_timeout_ms: 1000 };
const SCENARIO = ["[scenario]", "tps = 10", "accounts = 4", "perturb_for_ms = 2000", "settle_ms = 1000"];

/** Runs a scenario on a fresh temporary network; the runner stops every validator itself, also on failure. */
async function run(name: string, perturb: Record<string, string[]>, extra: string[], nodeEnv?: Record<string, Record<string, string>>): Promise<ScenarioReport> {
  let text = testManifest(name, 4, FAST, [...SCENARIO, ...extra]);
  for (const [node, kinds] of Object.entries(perturb)) text = text.replace(`[node.${node}]`, `[node.${node}]\nperturb = ${JSON.stringify(kinds)}`);
  const manifest = parseManifest(text, join(tmpdir(), `${name}.toml`));
  const report = await runScenario(manifest, { seed: 1, nodeEnv, onProgress: (m) => process.stderr.write(`    ${m}\n`) });
  process.stderr.write(`    verdict ${JSON.stringify(report)}\n`);
  return report;
}

/**
 * `chainsim scenario` end to end (issue 5, points 4 and 7): a scenario with a kill, a pause and a restart
 * passes every invariant; the same checker FAILS agreement on nodes that commit on 2 votes instead of 2f+1
 * while the primary equivocates.
 */
describe("e2e: scenarios with a verdict", function () {
  this.timeout(240_000);

  it("a kill, a pause and a restart on four validators keep every invariant", async () => {
    const report = await run("e2e-scenario-pass", { v1: ["kill"], v2: ["pause"], v3: ["restart"] }, []);
    expect(report.verdict, JSON.stringify(report.invariants)).to.equal("pass");
    expect(report.perturbations.map((p) => p.kind).sort()).to.deep.equal(["kill", "pause", "restart"]);
    expect(report.perturbations.every((p) => p.recovery_ms !== null)).to.equal(true);
  });

  it("networks/ci.toml: every perturbation kind and an equivocating primary, and every invariant holds", async () => {
    const manifest = await loadManifest(fileURLToPath(new URL("../../../networks/ci.toml", import.meta.url)));
    const report = await runScenario(manifest, { seed: 7, onProgress: (m) => process.stderr.write(`    ${m}\n`) });
    process.stderr.write(`    verdict ${JSON.stringify(report)}\n`);
    expect(report.verdict, JSON.stringify(report.invariants)).to.equal("pass");
    const kinds = ["byzantine", "delay", "disconnect", "drop", "duplicate", "kill", "partition", "pause", "reorder", "restart", "twin", "wipe"];
    expect([...new Set(report.perturbations.map((p) => p.kind))].sort()).to.deep.equal(kinds);
  });

  it("an unsafe quorum (2 of 4) with an equivocating primary fails the agreement check", async () => {
    const equivocate = ["[[fault]]", "at_ms = 1000", 'node = "v1"', 'action = "byzantine"', 'mode = "equivocate"', 'peers = ["v3", "v4"]', "for_ms = 3000"];
    const unsafe = Object.fromEntries(["v1", "v2", "v3", "v4"].map((v) => [v, { CHAINSIM_UNSAFE_QUORUM: "2" }]));
    const report = await run("e2e-scenario-unsafe", {}, equivocate, unsafe);
    expect(report.verdict).to.equal("fail");
    expect(report.invariants.agreement.ok, report.invariants.agreement.detail).to.equal(false);
    expect(report.invariants.agreement.detail).to.match(/differs/);
  });
});
