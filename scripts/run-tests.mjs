// The repository's test suites (README, "Tests"). Usage: node scripts/run-tests.mjs [all|unit|e2e|mutants]
//   unit     packages/*/test: one package at a time, no processes of their own beyond contract workers
//   e2e      test/e2e: real validator processes, containers, a browser (without the mutation test)
//   mutants  test/e2e/consensus-mutants.test.ts: the consensus simulations must kill every planted bug
//   all      (npm test) the three: unit and e2e in one mocha run, and beside it the mutation test at the
//            lowest CPU priority. The mutation test is CPU-bound for minutes; the multi-process tests leave
//            the CPU idle much of the time, waiting on ledger closes, so it takes what they leave and
//            never their share.
// Ends, like every mocha run here, with the line CI reads: "N passed, N failed".
import { spawn } from "node:child_process";
import { setPriority } from "node:os";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const mocha = fileURLToPath(new URL("../node_modules/mocha/bin/mocha.js", import.meta.url));
const MUTANTS = "test/dist/e2e/consensus-mutants.test.js";
const SUITES = {
  unit: ["packages/*/dist/test/**/*.test.js"],
  e2e: ["test/dist/**/*.test.js", "--ignore", MUTANTS],
  mutants: [MUTANTS],
};
const LOWEST_PRIORITY = 19;
const SUMMARY = /^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/m;

/**
 * Runs mocha on `specs`. Its output is shown as it comes, or with `hold` only kept, and resolves with the
 * exit code and the run's summary line.
 */
function runMocha(specs, { hold = false, niceness = 0 } = {}) {
  const args = [mocha, "--no-config", "--reporter", "./test/reporter.cjs", "--node-option", "no-node-snapshot", "--timeout", "20000", ...specs];
  const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  // Children (the mutation test's simulations) inherit the priority.
  if (niceness) setPriority(child.pid, niceness);
  let output = "";
  for (const [from, to] of [[child.stdout, process.stdout], [child.stderr, process.stderr]]) {
    from.on("data", (chunk) => {
      output += chunk;
      if (!hold) to.write(chunk);
    });
  }
  const stop = () => child.kill("SIGTERM");
  process.once("SIGINT", stop).once("SIGTERM", stop);
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, output, summary: summaryOf(output) })));
}

/** The counts of a run's "N passed, N failed[, N skipped]" line, or undefined when it has none (it crashed). */
function summaryOf(output) {
  const lines = [...output.matchAll(new RegExp(SUMMARY.source, "gm"))];
  const last = lines.at(-1);
  return last && { passed: Number(last[1]), failed: Number(last[2]), skipped: Number(last[3] ?? 0) };
}

const suite = process.argv[2] ?? "all";
if (suite !== "all") {
  if (!SUITES[suite]) {
    console.error(`unknown suite ${JSON.stringify(suite)}: use all, unit, e2e or mutants`);
    process.exit(2);
  }
  process.exit((await runMocha(SUITES[suite])).code ?? 1);
}

const side = runMocha(SUITES.mutants, { hold: true, niceness: LOWEST_PRIORITY });
const main = await runMocha([...SUITES.unit, ...SUITES.e2e]);
const mutants = await side;
process.stdout.write(`\nThe consensus mutation test, run beside the others at CPU priority ${LOWEST_PRIORITY}:\n${mutants.output}\n`);
// A run that ended without its summary line crashed: it counts as one failure, so the total cannot pass.
const runs = [main, mutants].map((run) => run.summary ?? { passed: 0, failed: 1, skipped: 0 });
const total = (key) => runs.reduce((sum, run) => sum + run[key], 0);
const skipped = total("skipped");
console.log(`${total("passed")} passed, ${total("failed")} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(main.code === 0 && mutants.code === 0 && total("failed") === 0 ? 0 : 1);
