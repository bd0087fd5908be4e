import { setTimeout as sleep } from "node:timers/promises";
import { fromHex } from "@chainsim/protocol";
import { Ed25519Verifier } from "@chainsim/protocol/node-crypto";
import { waitForAgreement } from "../agreement.js";
import { openComposeNetwork } from "../containers/compose-network.js";
import { CliError } from "../errors.js";
import { applyFault, takesNodeOffline, type FaultTarget, type FaultTargetNode } from "../faults/apply-fault.js";
import { ContainerBackend } from "../faults/container-backend.js";
import { describeFault } from "../faults/fault-action.js";
import { handleTarget } from "../faults/handle-target.js";
import { launchNetwork } from "../launcher.js";
import type { Manifest } from "../manifest.js";
import { launchTemporaryNetwork } from "../temporary-network.js";
import { checkAgreement, checkLiveness, checkNoLoss, checkValidity, commitLatency, livenessBoundMs, recoveryOf, viewChanges } from "@chainsim/sim";
import { readChains, readLedgers, startSampler, tipOf } from "./collect.js";
import type { PerturbationRecord, StatusSample } from "@chainsim/sim";
import { LoadGenerator } from "./load.js";
import { getJson } from "../node-http.js";
import type { ScenarioReport } from "./report.js";
import { buildSchedule, describeStep, type Step } from "./schedule.js";
import { crashAndRestart, emptyCrashCounts } from "./crashes.js";

export interface ScenarioOptions {
  seed: number;
  /** Run in this directory (wiped first) on the manifest's or --port-base's ports; default: a temporary directory on free ports. */
  dataDir?: string;
  portBase?: number;
  /** Extra environment per validator (tests: a test-only unsafe mode). */
  nodeEnv?: Record<string, Record<string, string>>;
  /** Run on a compose project instead of local processes (the container backend); portBase is where it publishes. */
  compose?: { file: string; project: string };
  /**
   * The liveness bound instead of the one computed from the manifest (livenessBoundMs): a slow or shared
   * machine closes ledgers later, which is not a liveness failure of the protocol (docs/faults.md).
   */
  livenessBoundMs?: number;
  onProgress?: (message: string) => void;
}

/** The network a scenario perturbs: where faults land, and how to stop it at the end. */
interface ScenarioNetwork {
  target: FaultTarget;
  stop(): Promise<void>;
}

/** setup → start → load → perturb → wait → check → stop (product.md §4); the network is stopped in every case. */
export async function runScenario(manifest: Manifest, options: ScenarioOptions): Promise<ScenarioReport> {
  const progress = options.onProgress ?? (() => {});
  const schedule = buildSchedule(manifest, options.seed);
  progress(`scenario ${manifest.name}, seed ${options.seed}: ${schedule.length} step(s)`);
  for (const step of schedule) progress(`  ${describeStep(step)}`);
  const twins = schedule.some((s) => s.spec.action === "twin");
  if (options.compose && twins) throw new CliError("twin is not available on a compose network (a twin is a second process with the same key)", "Remove twin from the perturb lists, or run without --compose");
  const network = options.compose ? await composeNetwork(manifest, options.compose, options, progress) : await processNetwork(manifest, twins, options, progress);
  try {
    const bound = options.livenessBoundMs ?? livenessBoundMs(manifest.nodes.length, manifest.consensus);
    return await drive(manifest, network.target, schedule, { seed: options.seed, bound }, progress);
  } finally {
    await network.stop();
  }
}

/**
 * How long a (re)started validator may take to answer /hello. A restart after a crash replays the redo log
 * and syncs; on a loaded machine that takes tens of seconds, which is slow but not a failed restart.
 */
const READY_TIMEOUT_MS = 120_000;

/** Validators as local processes (the launcher), ready once they agree on ledger 2. */
async function processNetwork(manifest: Manifest, twins: boolean, options: ScenarioOptions, progress: (m: string) => void): Promise<ScenarioNetwork> {
  if (options.dataDir === undefined) {
    const slots = manifest.nodes.length * (twins ? 2 : 1);
    const network = await launchTemporaryNetwork(() => manifest, { portSlots: slots, nodeEnv: options.nodeEnv, readyTimeoutMs: READY_TIMEOUT_MS, onProgress: progress });
    return { target: handleTarget(network.handle), stop: network.cleanup };
  }
  const handle = await launchNetwork(manifest, { dataDir: options.dataDir, portBase: options.portBase, fresh: true, nodeEnv: options.nodeEnv, readyTimeoutMs: READY_TIMEOUT_MS, onProgress: progress });
  await waitForAgreement(handle, { onProgress: progress }).catch(async (error) => {
    await handle.stop();
    throw error;
  });
  return { target: handleTarget(handle), stop: () => handle.stop() };
}

/** Validators in a compose project (the container backend), brought up here if it is not running and then taken down at the end. */
async function composeNetwork(manifest: Manifest, compose: { file: string; project: string }, options: ScenarioOptions, progress: (m: string) => void): Promise<ScenarioNetwork> {
  const network = await openComposeNetwork(manifest, { ...compose, portBase: options.portBase ?? manifest.port_base, bringUp: true, onProgress: progress });
  return { target: new ContainerBackend(network), stop: () => network.stop() };
}

async function drive(manifest: Manifest, target: FaultTarget, schedule: Step[], { seed, bound }: { seed: number; bound: number }, progress: (m: string) => void): Promise<ScenarioReport> {
  const names = manifest.nodes.map((n) => n.name);
  const down = new Set<string>();
  const live = () => target.nodes.filter((n) => !down.has(n.name));
  const sampler = startSampler(() => target.nodes);
  const load = new LoadGenerator(manifest, live, manifest.scenario.accounts);
  const records: PerturbationRecord[] = [];
  const crashes = emptyCrashCounts();
  try {
    progress(`funding ${manifest.scenario.accounts} sender accounts`);
    await load.fund(target.nodes[0], 30_000 + bound);
    const loadStart = Date.now();
    load.start(manifest.scenario.tps);
    progress(`load: ${manifest.scenario.tps} payments/s over the live nodes; liveness bound ${bound} ms`);

    for (const step of schedule) {
      await sleep(step.at_ms !== undefined ? Math.max(0, loadStart + step.at_ms - Date.now()) : step.gap_ms);
      const node = step.node === "primary" ? await primaryName(target.nodes) : step.node;
      const at = Date.now();
      progress(`${((at - loadStart) / 1000).toFixed(1)} s: ${describeFault(node, step.spec)}`);
      if (takesNodeOffline(target, step.spec)) down.add(node);
      if (step.crash) {
        const pauseMs = step.spec.for_ms ?? 0;
        progress(`  ${await crashAndRestart(target, node, { storePoint: step.crash.store_point, pauseMs, armedMs: bound }, crashes)}`);
      } else {
        const heal = await applyFault(target, node, step.spec);
        if (heal) {
          await sleep(step.spec.for_ms ?? 0);
          await heal();
        }
      }
      down.delete(node);
      const record = { node, kind: step.crash ? "crash" : step.spec.action, at_ms: at - loadStart, healed_ms: Date.now(), honest: names };
      records.push(record);
      const recovered = await waitForRecovery(sampler.samples, record, bound);
      progress(recovered === undefined ? `  not recovered within ${bound} ms` : `  recovered in ${recovered} ms`);
      // The next crash of a series only once this one caught up, late or not: two validators down at once
      // would lose the quorum (n = 4 tolerates one). Liveness still reports the bound missed.
      if (recovered === undefined && step.crash) await waitForRecovery(sampler.samples, record, READY_TIMEOUT_MS);
    }
    await sleep(manifest.scenario.settle_ms);
    const loadMs = Date.now() - loadStart;
    await load.stop();
    progress(`load stopped: ${load.history.submissions.length} submissions, ${load.accepted().size} accepted; waiting for them to commit`);
    await drain(target.nodes[0], load, bound);
    await sampler.stop();
    progress("reading every ledger of every node");
    const chains = await readChains(target.nodes, progress);
    const verifier = new Ed25519Verifier();
    const verify = (blob: string, sig: { public_key: string; sign_data: string }) => {
      try {
        return verifier.verifyJson(sig, fromHex(blob));
      } catch {
        return false; // an unparseable public key is an invalid signature
      }
    };
    const liveness = checkLiveness(sampler.samples, records, bound, crashes.restarts_failed);
    const invariants = {
      agreement: checkAgreement(chains, names),
      validity: checkValidity(load.history, chains, verify),
      no_loss: checkNoLoss(load.history, chains),
      liveness: liveness.invariant,
    };
    const latency = commitLatency(load.history, chains);
    const onChain = new Set(chains.flatMap((c) => c.ledgers.flatMap((l) => l.txs.map((tx) => tx.hash))));
    const accepted = load.accepted();
    return {
      verdict: Object.values(invariants).every((i) => i.ok) ? "pass" : "fail",
      invariants,
      perturbations: liveness.recoveries.map((r) => ({ node: r.node, kind: r.kind, at_ms: r.at_ms, healed_ms: r.healed_ms - loadStart, recovery_ms: r.recovery_ms ?? null })),
      tps: Math.round((latency.committed / (loadMs / 1000)) * 10) / 10,
      latency_ms: { p50: latency.p50, p99: latency.p99 },
      view_changes: viewChanges(sampler.samples),
      seed,
      counts: { accepted: accepted.size, committed: [...accepted].filter((hash) => onChain.has(hash)).length, ledgers_checked: chains.reduce((sum, c) => sum + c.ledgers.length, 0) },
      ...(schedule.some((step) => step.crash) && { crashes }),
    };
  } finally {
    await load.stop();
    await sampler.stop();
  }
}

/** Waits (bounded) until the samples show every honest node past the tip at healing; the recovery time, or undefined. */
async function waitForRecovery(samples: StatusSample[], record: PerturbationRecord, bound: number): Promise<number | undefined> {
  for (;;) {
    const { recovery_ms } = recoveryOf([...samples].sort((a, b) => a.at_ms - b.at_ms), record, bound);
    if (recovery_ms !== undefined) return recovery_ms;
    if (Date.now() > record.healed_ms + bound) return undefined;
    await sleep(250);
  }
}

/**
 * The wait phase: until every accepted transaction is in a ledger of the first node, bounded. What is
 * still missing is submitted again (a client retries what it has not seen committed; the same hash cannot
 * commit twice), so a pool lost with a killed node does not count as lost if the network takes it again.
 */
async function drain(node: FaultTargetNode, load: LoadGenerator, bound: number): Promise<void> {
  const deadline = Date.now() + 2 * bound;
  const seen = new Set<string>();
  let from = 1;
  for (;;) {
    const tip = await tipOf(node.http).catch(() => from - 1);
    const ledgers = tip >= from ? await readLedgers(node.http, from, tip).catch(() => []) : [];
    for (const ledger of ledgers) for (const tx of ledger.txs) seen.add(tx.hash);
    from += ledgers.length;
    const missing = [...load.accepted()].filter((hash) => !seen.has(hash));
    if (missing.length === 0 || Date.now() > deadline) return;
    await load.resubmit(missing);
    await sleep(1000);
  }
}

async function primaryName(nodes: FaultTargetNode[]): Promise<string> {
  for (const node of nodes) {
    const info = await getJson(node.http, "/getConsensusInfo").catch(() => undefined);
    const leader = nodes.find((n) => n.address === info?.leader);
    if (leader) return leader.name;
  }
  return nodes[0].name;
}
