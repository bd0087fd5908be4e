import { expect } from "chai";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveTraceView } from "@chainsim/cli";
import { simulate, traceFileText, type SimulationFailure } from "@chainsim/sim";
import { testNetwork } from "@chainsim/sim/dist/test/network.js";
import { chromium, type Browser, type Page } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS, skipWithoutChromium } from "../harness/chromium.js";

/** With a quorum of 2 of 4, seed 1's partition lets both sides commit: the ledgers diverge. */
const FORKING_RUN = { seed: 1, durationMs: 25_000, unsafeQuorum: 2, faultKinds: ["partition" as const], keepTrace: true };
const NODES = ["v1", "v2", "v3", "v4"];

/**
 * The simulation's trace view (docs/simulation.md, "The trace view") in a real headless Chromium: a forking run's trace,
 * served by serveTraceView, shows one lane per validator, its messages, and the agreement violation, which
 * "go to violation" brings into view; a page without a served trace reads one from a file the user opens.
 */
describe("e2e: the simulation's trace view in headless Chromium", function () {
  this.timeout(300_000);
  let browser: Browser | undefined;
  const servers: { close(): Promise<void> }[] = [];
  let dir: string | undefined;
  let traceText: string;
  let agreement: SimulationFailure;

  before(async function () {
    skipWithoutChromium(this);
    const result = await simulate({ ...testNetwork(4), ...FORKING_RUN });
    agreement = result.failures.find((f) => f.invariant === "agreement")!;
    expect(agreement?.at_ms, "the forking run's agreement violation").to.be.a("number");
    traceText = traceFileText(result, NODES);
    dir = await mkdtemp(join(tmpdir(), "chainsim-sim-view-"));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    for (const server of servers) await server.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function openView(text: string): Promise<Page> {
    const server = await serveTraceView(text, { port: 0 });
    servers.push(server);
    const page = await browser!.newPage({ viewport: { width: 1400, height: 820 } });
    await page.goto(server.url);
    return page;
  }

  /** The body's data-* attributes: how many lanes and arrows the page drew, and its view's time range. */
  async function view(page: Page) {
    const body = page.locator("body");
    const [lanes, arrows, start, end] = await Promise.all(["lanes", "arrows", "view-start", "view-end"].map((name) => body.getAttribute(`data-${name}`)));
    return { lanes: Number(lanes), arrows: Number(arrows), start: Number(start), end: Number(end), endText: end };
  }
  /** Waits until the page has drawn a frame over a trace. */
  const drawn = (page: Page) => page.locator('body[data-state="ready"][data-arrows]').waitFor();

  it("shows a lane per validator, the messages, and the agreement violation; 'go to violation' brings it into view", async () => {
    const page = await openView(traceText);
    await drawn(page);
    expect(await page.locator("#lanes [data-lane]").allTextContents()).to.deep.equal(NODES);
    for (const name of NODES) expect(await page.locator(`#lanes [data-lane="${name}"]`).count()).to.equal(1);
    const whole = await view(page);
    expect(whole.lanes).to.equal(4);
    expect(whole.arrows).to.be.above(0);
    const banner = page.locator("#violation");
    expect(await banner.isVisible()).to.equal(true);
    expect(await banner.getAttribute("data-invariant")).to.equal("agreement");
    expect(await banner.textContent()).to.contain(agreement.detail);
    const overview = join(tmpdir(), "chainsim-sim-view-overview.png");
    await page.screenshot({ path: overview, fullPage: true });

    await page.locator("#goto-violation").click();
    await page.locator(`body:not([data-view-end="${whole.endText}"])`).waitFor();
    const zoomed = await view(page);
    expect(zoomed.start).to.be.at.most(agreement.at_ms!);
    expect(zoomed.end).to.be.at.least(agreement.at_ms!);
    expect(zoomed.end - zoomed.start).to.be.below(whole.end - whole.start);
    expect(zoomed.arrows).to.be.above(0);
    const screenshot = join(tmpdir(), "chainsim-sim-view-violation.png");
    await page.screenshot({ path: screenshot, fullPage: true });
    console.log(`      screenshots: ${overview}, ${screenshot}`);
  });

  it("without a served trace, reads a trace file the user opens (and names what is wrong with a bad one)", async () => {
    const page = await openView("");
    await page.locator('body[data-state="empty"]').waitFor();
    const bad = join(dir!, "bad.jsonl");
    await writeFile(bad, '{"format":"something-else"}\n');
    await page.setInputFiles("#open-file", bad);
    await page.locator('body[data-state="error"]').waitFor();
    expect(await page.locator("#message").textContent()).to.contain("not a trace file");

    const file = join(dir!, "seed-1.jsonl");
    await writeFile(file, traceText);
    await page.setInputFiles("#open-file", file);
    await drawn(page);
    expect(await page.locator("#lanes [data-lane]").count()).to.equal(4);
    expect((await view(page)).arrows).to.be.above(0);
    expect(await page.locator("#violation").getAttribute("data-invariant")).to.equal("agreement");
  });
});
