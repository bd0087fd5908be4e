// The repository's test suites (README, "Tests"). Usage: node scripts/run-tests.mjs [all|unit|e2e|sims|mutants]
//   unit     packages/*/test: one package at a time, no processes of their own beyond contract workers
//   e2e      test/e2e: real validator processes, containers, a browser (without the mutation test)
//   mutants  test/e2e/consensus-mutants.test.ts: the consensus simulations must kill every planted bug
//   sims     packages/consensus/test/sim.test.ts: the seeded simulations of the consensus core
//   all      (npm test) all of them, in two lanes side by side whose summary lines are added up (see `lanes`):
//              - unit tests (the simulations with fewer seeds) and most e2e tests: CPU-bound;
//              - the container tests and the crash series (containers, compose-scenario, crash-consistency),
//                mostly waiting on podman and on restarts, then CI's budget of whole-network simulation seeds
//                (sim-seeds) and the mutation test.
//            Every test asserts conditions with bounded waits, never durations, so lanes side by side only
//            make them slower.
// Ends, like every mocha run here, with the line CI reads: "N passed, N failed".
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const mocha = fileURLToPath(new URL("../node_modules/mocha/bin/mocha.js", import.meta.url));
const MUTANTS = "test/dist/e2e/consensus-mutants.test.js";
const SIMS = "packages/consensus/dist/test/sim.test.js";
const SLOW_E2E = ["containers", "compose-scenario", "crash-consistency", "sim-seeds"].map((name) => `test/dist/e2e/${name}.test.js`);
const SUITES = {
  unit: ["packages/*/dist/test/**/*.test.js"],
  e2e: ["test/dist/**/*.test.js", "--ignore", MUTANTS],
  mutants: [MUTANTS],
  sims: [SIMS],
};
/**
 * Seeds per adversarial scenario of the simulations in npm test (CHAINSIM_SIM_SEEDS sets others): a quarter of
 * their default (npm run test:sims), for CI's 30 minutes; the mutation test shows that 20 already catch every
 * catalogued bug.
 */
const NPM_TEST_SIM_SEEDS = process.env.CHAINSIM_SIM_SEEDS ?? "25";
const SUMMARY = /^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/m;

/**
 * Runs mocha on `specs`. Its output is shown as it comes, or with `hold` only kept, and resolves with the
 * exit code and the run's summary line.
 */
function runMocha(specs, { hold = false, env = {} } = {}) {
  const args = [mocha, "--no-config", "--reporter", "./test/reporter.cjs", "--node-option", "no-node-snapshot", "--timeout", "20000", ...specs];
  // A process group of its own: stopping a run stops what its tests started too (the mutation test's
  // simulations), which would otherwise hold its output pipe open, and npm test with it, past CI's timeout.
  const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env }, detached: true });
  let output = "";
  for (const [from, to] of [[child.stdout, process.stdout], [child.stderr, process.stderr]]) {
    from.on("data", (chunk) => {
      output += chunk;
      if (!hold) to.write(chunk);
    });
  }
  const stop = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // the group is gone already
    }
  };
  process.once("SIGINT", stop).once("SIGTERM", stop);
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, output, summary: summaryOf(output) })));
}

/** The counts of a run's "N passed, N failed[, N skipped]" line, or undefined when it has none (it crashed). */
function summaryOf(output) {
  const lines = [...output.matchAll(new RegExp(SUMMARY.source, "gm"))];
  const last = lines.at(-1);
  return last && { passed: Number(last[1]), failed: Number(last[2]), skipped: Number(last[3] ?? 0) };
}

/** Mocha's report of a run's failures (from "N failing" to the summary line), at most 150 lines, or "". */
function failuresOf(output) {
  const lines = output.split("\n");
  const from = lines.findIndex((line) => /^\s*\d+ failing$/.test(line));
  if (from < 0) return "";
  const to = lines.findIndex((line, i) => i > from && SUMMARY.test(line));
  const report = lines.slice(from, to < 0 ? undefined : to);
  return report.length > 150 ? [...report.slice(0, 150), `  … ${report.length - 150} more lines above`].join("\n") : report.join("\n");
}

const suite = process.argv[2] ?? "all";
if (suite !== "all") {
  if (!SUITES[suite]) {
    console.error(`unknown suite ${JSON.stringify(suite)}: use all, unit, e2e, sims or mutants`);
    process.exit(2);
  }
  process.exit((await runMocha(SUITES[suite])).code ?? 1);
}

const ignore = (files) => files.flatMap((file) => ["--ignore", file]);
/**
 * npm test's two lanes, side by side on CI's two cores. The first is CPU-bound (unit tests, the simulations,
 * validators under load); the second mostly waits (on podman, on restarts, on a fault's recovery) and
 * then, when that is done, runs the mutation test, which is CPU-bound again.
 */
const lanes = [
  {
    title: `unit tests (the simulations with ${NPM_TEST_SIM_SEEDS} seeds per adversarial scenario) and e2e tests`,
    specs: [...SUITES.unit, ...SUITES.e2e, ...ignore(SLOW_E2E)],
    env: { CHAINSIM_SIM_SEEDS: NPM_TEST_SIM_SEEDS },
  },
  { title: "container tests, the crash series, the simulation seeds and the mutation test", specs: [...SLOW_E2E, ...SUITES.mutants], hold: true },
];
const started = performance.now();
const ended = await Promise.all(
  lanes.map(async ({ specs, hold, env }) => ({ ...(await runMocha(specs, { hold, env })), minutes: ((performance.now() - started) / 60_000).toFixed(1) })),
);
for (const [i, { title }] of lanes.entries()) {
  if (lanes[i].hold) process.stdout.write(`\nThe ${title}, run beside the others:\n${ended[i].output}\n`);
}
// The failures again, last: CI shows the end of a long output, and the first lane's report scrolled off above
// the second lane's.
for (const [i, { title }] of lanes.entries()) {
  const failures = failuresOf(ended[i].output);
  if (failures) process.stdout.write(`\nFailures of lane ${i + 1} (${title}), as reported above:\n${failures}\n`);
}
for (const [i, { title }] of lanes.entries()) console.log(`lane ${i + 1} (${title}): ${ended[i].minutes} min`);
// A run that ended without its summary line crashed, and one that exited non-zero with none failed was stopped
// or broke after its tests: each counts as one failure, so the total line never reads as a pass.
const summaries = ended.map(({ summary, code }) => (summary && (code === 0 || summary.failed > 0) ? summary : { passed: summary?.passed ?? 0, failed: 1, skipped: summary?.skipped ?? 0 }));
const total = (key) => summaries.reduce((sum, run) => sum + run[key], 0);
const skipped = total("skipped");
console.log(`${total("passed")} passed, ${total("failed")} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(ended.every((run) => run.code === 0) && total("failed") === 0 ? 0 : 1);
