import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "chai";
import { formatReport, parseManifest, runScenario } from "@chainsim/cli";
import { buildOfflineImage, freePortPrefix, requirePodman, REPO, removeComposeProject } from "../harness/podman.js";

/**
 * The container backend for real (issue 5, point 5): `chainsim scenario --compose` on docker-compose.yml under
 * podman, with a pause, a kill and a disconnect (leaving the project network) of one container each, keeps
 * every invariant. Fails when podman cannot be installed or run here.
 */

const PROJECT = `chainsim-scn-${process.pid}-${randomBytes(3).toString("hex")}`;
const SCENARIO = ["[scenario]", "tps = 10", "accounts = 4", "perturb_for_ms = 3000", "settle_ms = 2000"];
const PERTURB: Record<string, string> = { v2: "pause", v3: "kill", v4: "disconnect" };

/** networks/local-4.toml (what the containers run: same name, keys and genesis) with perturb lists and a [scenario] table. */
async function composeScenarioManifest() {
  let text = await readFile(join(REPO, "networks/local-4.toml"), "utf8");
  for (const [node, kind] of Object.entries(PERTURB)) text = text.replace(/^\[node\.(v\d)\].*$/gm, (line, name) => (name === node ? `[node.${name}]\nperturb = ["${kind}"]` : line));
  return parseManifest(`${text}\n${SCENARIO.join("\n")}\n`, join(REPO, "networks/local-4-scenario.toml"));
}

describe("e2e: a scenario on the compose network (container backend, podman)", function () {
  this.timeout(300_000);
  let prefix = 0;
  let started = false;

  before(async function () {
    await requirePodman();
    const t0 = Date.now();
    await buildOfflineImage();
    console.log(`      image ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    prefix = await freePortPrefix(4);
  });

  after(async function () {
    if (!started) return;
    const t0 = Date.now();
    await removeComposeProject(PROJECT, { CHAINSIM_PORT_PREFIX: String(prefix) });
    console.log(`      teardown ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  });

  it("a pause, a kill and a disconnect of one container each keep agreement, validity, no loss and liveness", async () => {
    const manifest = await composeScenarioManifest();
    started = true; // the runner takes the project down itself; after() makes sure, also when it failed half-way
    const report = await runScenario(manifest, {
      seed: 1,
      portBase: prefix * 100,
      compose: { file: join(REPO, "docker-compose.yml"), project: PROJECT },
      onProgress: (m) => process.stderr.write(`    ${m}\n`),
    });
    process.stderr.write(`${formatReport(report).replace(/^/gm, "    ")}\n`);
    expect(report.verdict, JSON.stringify(report.invariants)).to.equal("pass");
    expect(report.perturbations.map((p) => p.kind).sort()).to.deep.equal(["disconnect", "kill", "pause"]);
    expect(report.perturbations.every((p) => p.recovery_ms !== null), JSON.stringify(report.perturbations)).to.equal(true);
  });
});
