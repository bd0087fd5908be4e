import { expect } from "chai";
import { parseManifest } from "../src/manifest.js";
import { buildSchedule } from "../src/scenario/schedule.js";
import { expectCliError } from "./helpers.js";

const BASE = `name = "net"\n[genesis]\nbalance = 1000\n[consensus]\nview_timeout_ms = 1000\n`;
const NODES = `[node.a]\nperturb = ["kill", "twin"]\n[node.b]\nperturb = ["pause", "wipe", "disconnect"]\n[node.c]\n`;
const parse = (text: string) => parseManifest(BASE + text, "net.toml");

describe("manifest: perturb lists, [scenario] and the [[fault]] schedule", () => {
  it("reads perturb lists, scenario defaults and timed faults in at_ms order", () => {
    const manifest = parse(`${NODES}[[fault]]\nat_ms = 5000\nnode = "primary"\naction = "byzantine"\nmode = "equivocate"\nfor_ms = 2000\n[[fault]]\nat_ms = 100\nnode = "a"\naction = "partition"\npeers = ["b"]\nfor_ms = 1000\n`);
    expect(manifest.nodes.map((n) => n.perturb)).to.deep.equal([["kill", "twin"], ["pause", "wipe", "disconnect"], []]);
    expect(manifest.scenario).to.deep.equal({ tps: 20, accounts: 8, perturb_for_ms: 3000, settle_ms: 2000, crashes: 0, crash_pause_ms: 1000, crash_store_share: 0.5 });
    expect(manifest.faults).to.deep.equal([
      { at_ms: 100, node: "a", action: "partition", peers: ["b"], for_ms: 1000 },
      { at_ms: 5000, node: "primary", action: "byzantine", mode: "equivocate", for_ms: 2000 },
    ]);
  });

  it("refuses faults with clear errors", async () => {
    const fault = (body: string) => () => parse(`${NODES}[[fault]]\n${body}\n`);
    await expectCliError(fault(`at_ms = 1\nnode = "z"\naction = "kill"\nfor_ms = 1`), /fault\[0\]\.node names "z", which is not a validator/);
    await expectCliError(fault(`at_ms = 1\nnode = "a"\naction = "explode"`), /fault\[0\]\.action is "explode"/);
    await expectCliError(fault(`at_ms = 1\nnode = "a"\naction = "drop"\nfor_ms = 1`), /fault\[0\]\.probability is missing: drop needs it/);
    await expectCliError(fault(`at_ms = 1\nnode = "a"\naction = "drop"\nprobability = 2\nfor_ms = 1`), /probability should be between 0 and 1/);
    await expectCliError(fault(`at_ms = 1\nnode = "a"\naction = "pause"`), /for_ms is missing/);
    await expectCliError(fault(`at_ms = 1\nnode = "a"\naction = "restart"\nfor_ms = 5`), /for_ms does not apply: restart happens at once/);
    await expectCliError(fault(`node = "a"\naction = "restart"`), /at_ms is missing/);
    await expectCliError(fault(`at_ms = 1\nnode = "a"\naction = "restart"\nwhen = 3`), /fault\[0\]\.when is not a known key/);
    await expectCliError(() => parse(`[node.a]\nperturb = ["melt"]\n`), /perturb has "melt"/);
    await expectCliError(() => parse(`[debug]\nfault_injection = false\n${NODES}`), /fault_injection is false, but disconnect go through the fault plane/);
    await expectCliError(() => parse(`[debug]\nfault_injection = false\n[scenario]\ncrashes = 2\n[node.a]\n`), /fault_injection is false, but crash_store_share go through the fault plane/);
    await expectCliError(() => parse(`[scenario]\ncrash_store_share = 2\n[node.a]\n`), /crash_store_share should be between 0 and 1/);
  });

  it("a seed gives the same schedule; timed faults come first", () => {
    const manifest = parse(`${NODES}[[fault]]\nat_ms = 10\nnode = "c"\naction = "delay"\ndelay_ms = 5\nfor_ms = 100\n`);
    const first = buildSchedule(manifest, 42);
    expect(buildSchedule(manifest, 42)).to.deep.equal(first);
    expect(first[0]).to.deep.include({ node: "c", at_ms: 10 });
    expect(first.slice(1).map((s) => s.spec.action).sort()).to.deep.equal(["disconnect", "kill", "pause", "twin", "wipe"]);
    expect(first.find((s) => s.spec.action === "wipe")!.spec.for_ms).to.equal(undefined);
    expect(first.find((s) => s.spec.action === "kill")!.spec.for_ms).to.equal(3000);
    const orders = new Set([1, 2, 3, 4, 5].map((seed) => buildSchedule(manifest, seed).map((s) => `${s.node}:${s.spec.action}`).join()));
    expect(orders.size).to.be.greaterThan(1);
  });

  it("a crash series: N seeded kills after the other steps, a seeded share armed at a store point", () => {
    const manifest = parse(`[scenario]\ncrashes = 40\ncrash_pause_ms = 300\ncrash_store_share = 0.5\n${NODES}`);
    const schedule = buildSchedule(manifest, 7);
    expect(buildSchedule(manifest, 7)).to.deep.equal(schedule);
    const crashes = schedule.filter((s) => s.crash);
    expect(crashes).to.have.length(40);
    expect(schedule.slice(-40)).to.deep.equal(crashes); // after the perturb steps
    expect(crashes.every((s) => s.spec.action === "kill" && s.spec.for_ms! <= 300 && s.gap_ms < 1000)).to.equal(true);
    expect(new Set(crashes.map((s) => s.node))).to.deep.equal(new Set(["a", "b", "c"]));
    const armed = crashes.filter((s) => s.crash!.store_point);
    expect(armed.length).to.be.within(10, 30);
    expect(new Set(armed.map((s) => s.crash!.store_point))).to.deep.equal(new Set(["before-ledger-write", "ledger-write", "state-apply"]));
    const none = buildSchedule(parse(`[scenario]\ncrashes = 5\ncrash_store_share = 0\n${NODES}`), 7).filter((s) => s.crash);
    expect(none.map((s) => s.crash)).to.deep.equal([{}, {}, {}, {}, {}]);
  });
});
