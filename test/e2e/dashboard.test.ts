import { expect } from "chai";
import { spawn, type ChildProcess } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN_PATH } from "@chainsim/cli";
import { chromium, type Browser, type Page } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS, skipWithoutChromium } from "../harness/chromium.js";
import { dashboardUrl } from "../harness/dashboard.js";
import { dumpLogsOnFailure, startTestNetwork, testManifest, type TestNetwork } from "../harness/network.js";

/**
 * `chainsim dashboard` in a real headless Chromium (issue 5, point 6): the page shows four nodes with a
 * leader and agreeing hashes, shows a paused (SIGSTOP) validator DOWN, and shows it back after SIGCONT.
 */
describe("e2e: chainsim dashboard in headless Chromium", function () {
  this.timeout(120_000);
  let net: TestNetwork | undefined;
  let dashboard: ChildProcess | undefined;
  let browser: Browser | undefined;
  let page: Page;

  before(async function () {
    skipWithoutChromium(this);
    net = await startTestNetwork(testManifest("e2e-dashboard", 4));
    dashboard = spawn(process.execPath, [BIN_PATH, "dashboard", "--data-dir", net.dataDir, "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
    const url = await dashboardUrl(dashboard);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
    await page.goto(url);
  });
  after(async () => {
    await browser?.close();
    dashboard?.kill("SIGINT");
    await net?.cleanup();
  });
  dumpLogsOnFailure(() => net);

  const row = (name: string) => page.locator(`#nodes tr[data-node="${name}"]`);

  it("shows four nodes up, one leader, and agreeing ledger hashes", async () => {
    await page.locator('#nodes tr[data-state="up"]').nth(3).waitFor({ timeout: 10_000 });
    expect(await page.locator("#nodes tbody tr").count()).to.equal(4);
    expect(await page.locator('#nodes tr[data-role="leader"]').count()).to.equal(1);
    await page.locator("#hashes td.mono").first().waitFor();
    expect(await page.locator("#hashes .mismatch").count()).to.equal(0);
    expect(await page.locator("#chart polyline").count()).to.equal(4);
    expect(await page.locator("#summary").textContent()).to.contain("hashes agree");
    // Pool and view changes are each node's /metrics figures (docs/operations.md, "Metrics"): "?" if unread.
    expect(await page.locator("#nodes td.view-changes").allTextContents()).to.satisfy((cells: string[]) => cells.length === 4 && cells.every((c) => /^\d+$/.test(c)));
    expect(await page.locator("#nodes td.pool").allTextContents()).to.satisfy((cells: string[]) => cells.length === 4 && cells.every((c) => /^\d+$/.test(c)));
  });

  it("lists a node's active fault rule", async () => {
    const v1 = net!.handle.nodes[0];
    const posted = await fetch(`${v1.http}/debug/faults`, { method: "POST", body: JSON.stringify({ kind: "delay", delay_ms: 5, jitter_ms: 0, duration_ms: 60_000 }) });
    expect(((await posted.json()) as { error_code: number }).error_code).to.equal(0);
    const rule = page.locator(`#faults li[data-node="${v1.name}"]`);
    await rule.waitFor({ timeout: 5_000 });
    expect(await rule.textContent()).to.match(/delay.*delay_ms=5.*expires in \d+ s/);
    await fetch(`${v1.http}/debug/faults`, { method: "DELETE" });
    await rule.waitFor({ state: "detached", timeout: 5_000 });
  });

  it("shows a paused validator DOWN, and back once it resumes", async () => {
    const node = net!.handle.nodes[2];
    process.kill(node.pid, "SIGSTOP");
    try {
      // A stopped process keeps its socket open but never answers: DOWN after the 2 s read timeout.
      await row(node.name).and(page.locator('[data-state="down"]')).waitFor({ timeout: 15_000 });
      expect(await row(node.name).textContent()).to.contain("no answer");
      expect(await page.locator("#summary").textContent()).to.contain("1 of 4 DOWN");
      await page.screenshot({ path: join(tmpdir(), "chainsim-dashboard-paused.png"), fullPage: true });
    } finally {
      process.kill(node.pid, "SIGCONT");
    }
    await row(node.name).and(page.locator('[data-state="up"]')).waitFor({ timeout: 15_000 });
    expect(await page.locator("#hashes .mismatch").count()).to.equal(0);
  });
});
