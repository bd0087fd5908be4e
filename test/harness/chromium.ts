import { existsSync } from "node:fs";

/** Debian's chromium, which the browser tests drive through playwright-core. */
export const CHROMIUM = "/usr/bin/chromium";
/**
 * As root on a machine whose network is closed: no sandbox, and none of Chromium's own connections.
 * playwright gives every launch a new empty profile directory itself.
 */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Skips the suite (saying why) where Chromium is not installed; call it first in a before hook. */
export function skipWithoutChromium(context: Mocha.Context): void {
  if (existsSync(CHROMIUM)) return;
  process.stdout.write(`      skipped: ${CHROMIUM} is missing (.ci/run installs Debian's chromium as root; run it as root or install chromium)\n`);
  context.skip();
}
