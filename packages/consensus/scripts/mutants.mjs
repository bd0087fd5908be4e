// Mutation testing of packages/consensus: each deliberate bug of mutants/catalogue.json is put into a
// scratch copy of the built package, and the simulations alone (dist/test/sim.test.js) must fail on it.
// Usage: npm run test:mutants [-- --json] [-- --only ID[,ID...]] [-- --except ID[,ID...]] [-- --record]   (after npm run build)
// docs/consensus.md ("Mutation testing") lists what the catalogue covers and the last score.
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const scratchRoot = join(packageDir, ".mutants");
const mocha = fileURLToPath(new URL("../../../node_modules/mocha/bin/mocha.js", import.meta.url));
const args = process.argv.slice(2);
const json = args.includes("--json");
const only = args.includes("--only") ? args[args.indexOf("--only") + 1].split(",") : undefined;
const except = args.includes("--except") ? args[args.indexOf("--except") + 1].split(",") : [];
/** Write each killed mutant's killing simulation into the catalogue (`killed_by`), for the next runs to try first. */
const record = args.includes("--record");
/** Seeds per adversarial scenario: enough to kill every catalogued mutant, few enough for CI. */
const SEEDS = process.env.CHAINSIM_SIM_SEEDS ?? "20";
/**
 * A mutant run that outlasts this is ended and counts as killed (a mutant can make the simulations hang).
 * At least 4 times the baseline's run, measured under the same load: beside npm test's other lane
 * (scripts/run-tests.mjs), a run can take much longer than on a quiet machine.
 */
const MIN_TIMEOUT_MS = 240_000;
/** The baseline's bound: it must pass, however slowly; only a hang ends it. */
const BASELINE_TIMEOUT_MS = 1_200_000;
let timeoutMs = BASELINE_TIMEOUT_MS;

const entries = JSON.parse(readFileSync(join(packageDir, "mutants/catalogue.json"), "utf8"));
// An entry with "equivalent" (the argument why no run can tell it from the correct code) is listed, not run.
const equivalent = entries.filter((m) => m.equivalent);
const catalogue = entries.filter((m) => !m.equivalent && (!only || only.includes(m.id)) && !except.includes(m.id));
if (!existsSync(join(packageDir, "dist/test/sim.test.js"))) fail("packages/consensus is not built: run npm run build first");

// Every mutant must still apply to the source as it is: a stale catalogue is an error, not a pass.
for (const m of entries) {
  const source = readFileSync(join(packageDir, m.file), "utf8");
  const count = source.split(m.find).length - 1;
  if (count !== 1) fail(`mutant ${m.id}: its text occurs ${count} times in ${m.file} (expected once); update mutants/catalogue.json`);
}

/** A scratch copy of dist with `mutant` compiled in (or none: the baseline). */
function prepare(id, mutant) {
  const dir = join(scratchRoot, id);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  cpSync(join(packageDir, "dist"), join(dir, "dist"), { recursive: true });
  if (mutant) {
    const source = readFileSync(join(packageDir, mutant.file), "utf8").replace(mutant.find, mutant.replace);
    const { outputText } = ts.transpileModule(source, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } });
    writeFileSync(join(dir, "dist", mutant.file.replace(/\.ts$/, ".js")), outputText);
  }
  return dir;
}

/**
 * Runs the simulations in `dir` (with `grep`, only those whose title matches): "passed", "failed" or "timed out".
 */
function simulate(dir, grep) {
  return new Promise((resolve) => {
    const only = grep === undefined ? [] : ["--grep", grep];
    const child = spawn(process.execPath, [mocha, "--no-config", "--bail", "--timeout", "0", ...only, join(dir, "dist/test/sim.test.js")], {
      env: { ...process.env, CHAINSIM_SIM_SEEDS: SEEDS, CHAINSIM_SIM_FAIL_FAST: "1", CHAINSIM_SIM_TIMEOUT_MS: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const firstFailure = /\n\s+1\) ([^\n]+)/.exec(output)?.[1]?.trim();
      // The assertion that caught it, e.g. "conduct: node 2 sent PREPAREs for two values at view 1 seq 3".
      const violation = /seed \d+: ([^;"\n]+)/.exec(output)?.[1]?.trim();
      resolve({ outcome: signal ? "timed out" : code === 0 ? "passed" : "failed", firstFailure, violation });
    });
  });
}

/** A --grep pattern for a simulation's title whatever its counts (seeds follow CHAINSIM_SIM_SEEDS). */
function titlePattern(title) {
  return title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\d+/g, "\\d+");
}

function fail(message) {
  console.error(`test:mutants: ${message}`);
  process.exit(2);
}

const started = performance.now();
const baseline = await simulate(prepare("baseline"));
if (baseline.outcome !== "passed") fail(`the simulations fail without any mutant (${baseline.firstFailure ?? baseline.outcome}); fix that first`);
timeoutMs = Math.max(MIN_TIMEOUT_MS, 4 * (performance.now() - started));

const results = [];
let next = 0;
async function worker() {
  while (next < catalogue.length) {
    const mutant = catalogue[next++];
    const t = performance.now();
    const dir = prepare(mutant.id, mutant);
    // The simulation that killed it last time first: failing it is a kill. When it passes (the code or the
    // simulations changed since), all of them decide, as without a hint.
    let run = mutant.killed_by ? await simulate(dir, titlePattern(mutant.killed_by)) : undefined;
    if (run === undefined || run.outcome === "passed") run = await simulate(dir);
    const isKilled = run.outcome !== "passed";
    const result = { id: mutant.id, why: mutant.why, killed: isKilled, by: run.firstFailure ?? run.outcome, violation: run.violation, seconds: +((performance.now() - t) / 1000).toFixed(1) };
    results.push(result);
    if (!json) console.log(`${isKilled ? "killed  " : "SURVIVED"} ${mutant.id.padEnd(30)} ${result.seconds}s  ${isKilled ? (result.violation ?? result.by) : mutant.why}`);
  }
}
await Promise.all(Array.from({ length: Math.max(1, Math.min(2, availableParallelism())) }, worker));
rmSync(scratchRoot, { recursive: true, force: true });
if (record) {
  const killers = new Map(results.filter((r) => r.killed && r.by !== "timed out").map((r) => [r.id, r.by]));
  const updated = entries.map((m) => (killers.has(m.id) ? { ...m, killed_by: killers.get(m.id) } : m));
  writeFileSync(join(packageDir, "mutants/catalogue.json"), JSON.stringify(updated, null, 1) + "\n");
}

const killed = results.filter((r) => r.killed).length;
const summary = {
  mutants: results.length,
  killed,
  survived: results.filter((r) => !r.killed).map((r) => r.id),
  equivalent: equivalent.map((m) => m.id),
  seeds_per_scenario: Number(SEEDS),
  seconds: +((performance.now() - started) / 1000).toFixed(0),
};
if (json) console.log(JSON.stringify({ ...summary, results }, null, 2));
else {
  for (const m of equivalent) console.log(`equivalent ${m.id.padEnd(28)} not run: ${m.equivalent}`);
  console.log(`\n${killed} of ${results.length} mutants killed by the simulations alone (${SEEDS} seeds per adversarial scenario, ${summary.seconds} s); ${equivalent.length} equivalent, not run`);
}
process.exit(killed === results.length ? 0 : 1);
