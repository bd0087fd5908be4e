import { DEFAULT_CONTRACT_LIMITS } from "@chainsim/contracts";
import type { NodeConfig, ValidatorCore } from "@chainsim/node";
import { fromHex, seededRandom } from "@chainsim/protocol";
import { Ed25519Verifier } from "@chainsim/protocol/node-crypto";
import { ClientDriver, RESUBMIT_MS } from "./client-driver.js";
import { FaultDriver } from "./fault-driver.js";
import { describeFault, drawSchedule, SIM_FAULT_KINDS, type SimFault, type SimFaultKind } from "./faults.js";
import { chainOf, nonceProblems } from "./final-checks.js";
import { checkAgreement, checkLiveness, checkNoLoss, checkValidity, livenessBoundMs, recoveryOf, type InvariantResult } from "./invariants/checker.js";
import type { NodeChain } from "./invariants/history.js";
import { AdmissionBroken, SimLoad } from "./load.js";
import { PendingTasks } from "./pending.js";
import { Scheduler } from "./scheduler.js";
import { DEFAULT_WIRE, SimWire, type WireModel } from "./sim-network.js";
import { SimValidator, type SimRun } from "./sim-validator.js";
import type { TraceEntry } from "./trace.js";
import { CommitWatch, ConductWatch, type SimulationFailure } from "./watchers.js";

/**
 * The clock guard of contract runs in the simulation: far beyond any run, so that only the step limit (the
 * same everywhere) ends one, never real time (docs/simulation.md, "What may not be read").
 */
const SIM_CONTRACT_GUARD_MS = 600_000;
/** Valid signatures the run's one verifier keeps (each consensus message is checked by every receiver). */
const REMEMBERED_SIGNATURES = 65_536;

export interface SimulationOptions {
  /** One per validator, as the CLI makes them from a manifest (data_dir and ports are not used). */
  configs: NodeConfig[];
  /** The genesis account's private key: the load funds its accounts from it. */
  genesisPrivateKey: string;
  seed: number;
  /** Virtual time of load and faults (ms); draining and the final checks come after it. */
  durationMs?: number;
  /** At most this long (virtual ms) after `durationMs` for every accepted transaction to commit. */
  drainMs?: number;
  /** Which faults the schedule draws from; none: a fault-free run. */
  faultKinds?: readonly SimFaultKind[];
  /** This fault schedule instead of the one the seed draws (shrinking replays smaller ones). */
  schedule?: SimFault[];
  wire?: WireModel;
  /** Keeps every trace line (the trace hash is computed either way). */
  keepTrace?: boolean;
  /** Test-only: see ReplicaConfig.unsafeQuorum (every validator commits on this many votes). */
  unsafeQuorum?: number;
  /**
   * Test-only: a planted bug (docs/simulation.md, "Proof that it finds bugs"): `bug` changes the core of
   * validator `node` each time it starts (an execution difference, a vote not persisted).
   */
  plant?: { node: string; bug: (core: ValidatorCore) => void };
}

export interface SimulationResult {
  seed: number;
  ok: boolean;
  failures: SimulationFailure[];
  trace_hash: string;
  simulated_ms: number;
  events: number;
  /** The lowest tip among the validators at the end. */
  ledgers: number;
  accepted: number;
  /** The fault schedule that ran, and as text. */
  schedule: SimFault[];
  faults: string[];
  trace?: TraceEntry[];
}

/**
 * One seeded run of a whole network in this process (docs/simulation.md): every validator's real core on a
 * virtual clock, a seeded wire and simulated disks; seeded load and faults; then the scenario checker's
 * invariants and each validator's hash chain. A pure function of its options: the same seed gives the same
 * trace hash.
 */
export async function simulate(options: SimulationOptions): Promise<SimulationResult> {
  const { configs, seed } = options;
  const durationMs = options.durationMs ?? 30_000;
  const drainMs = options.drainMs ?? 30_000;
  const scheduler = new Scheduler(options.keepTrace ?? false);
  const stream = (salt: number) => seededRandom((seed ^ salt) >>> 0);
  const names = new Map<string, string>();
  const wire = new SimWire(scheduler, stream(0x5eed0001), options.wire ?? DEFAULT_WIRE, names);
  const config0 = configs[0]!;
  const limits = { ...DEFAULT_CONTRACT_LIMITS, steps: config0.contracts.steps, builtinSteps: config0.contracts.builtin_steps, lint: config0.contracts.lint, timeMs: SIM_CONTRACT_GUARD_MS };
  const contractRuns = { pending: 0 };
  const tasks = new PendingTasks();
  scheduler.watch(contractRuns);
  scheduler.watch(tasks);
  const watch = new CommitWatch(scheduler);
  const failures: SimulationFailure[] = watch.failures;
  const fail = (invariant: string) => (error: unknown) =>
    failures.push({ invariant: error instanceof AdmissionBroken ? error.invariant : invariant, detail: error instanceof AdmissionBroken ? error.message : ((error as Error)?.stack ?? String(error)), at_ms: scheduler.elapsed });
  const faultSeeds = stream(0x5eed0002);
  const conduct = new ConductWatch(scheduler, failures);
  const verifier = new Ed25519Verifier(undefined, REMEMBERED_SIGNATURES);
  wire.onSent = (from, channel, payload) => {
    if (channel === "consensus") conduct.sent(from, payload);
  };
  const run: SimRun = { scheduler, wire, contracts: { limits, runs: contractRuns }, watch, tasks, verifier, unsafeQuorum: options.unsafeQuorum };
  const validators = configs.map((config) => {
    const bug = options.plant?.node === config.node_name ? options.plant.bug : undefined;
    return new SimValidator(config, run, { faultSeed: Math.floor(faultSeeds() * 2 ** 32), bug });
  });
  for (const v of validators) names.set(v.address, v.name);
  try {
    for (const v of validators) await v.start();
    const load = new SimLoad(config0.network, options.genesisPrivateKey, config0.genesis.chain_id, config0.genesis.gas_price, stream(0x5eed0003));
    const schedule = options.schedule ?? drawSchedule(stream(0x5eed0004), validators.map((v) => v.name), 3_000, durationMs, options.faultKinds ?? SIM_FAULT_KINDS);
    const clients = new ClientDriver({ scheduler, tasks, load, validators, pick: stream(0x5eed0005), fail });
    const bound = livenessBoundMs(validators.length, config0.consensus);
    const faults = new FaultDriver({ run, validators, conduct, tasks, fail, faultSeeds: () => Math.floor(faultSeeds() * 2 ** 32), schedule, boundMs: bound });
    // every heal's recovery seen, or its bound passed: liveness is decided
    const healsDecided = () => {
      const sorted = [...clients.samples].sort((x, y) => x.at_ms - y.at_ms);
      return faults.records.every((record) => scheduler.now() > record.healed_ms + bound || recoveryOf(sorted, record, bound).recovery_ms !== undefined);
    };
    clients.start();
    for (const fault of schedule) faults.schedule(fault);

    await scheduler.run(durationMs);
    // drain: load goes on until liveness is decided; then, until every accepted transaction is in the
    // reference validator's ledgers and every validator has reached the ledger the network was at when
    // faults ended
    const tipOf = (v: SimValidator) => Number(v.core?.ledgers.lastHeader.seq ?? 0);
    const target = Math.max(...validators.map(tipOf));
    const behind = () => validators.filter((v) => tipOf(v) < target);
    let checkedAt = 0;
    await scheduler.run(durationMs + drainMs, () => {
      if (scheduler.elapsed - checkedAt < RESUBMIT_MS) return false;
      checkedAt = scheduler.elapsed;
      // load goes on until liveness is decided (an idle network closes a ledger only every empty_close_interval_ms)
      clients.loading &&= !healsDecided();
      return !clients.loading && scheduler.elapsed > durationMs + RESUBMIT_MS && load.outstanding(clients.committed).length === 0 && behind().length === 0;
    });
    const chains: NodeChain[] = [];
    for (const v of validators) if (v.core) chains.push(await chainOf(v, failures));
    const invariants: Record<string, InvariantResult> = {
      agreement: checkAgreement(chains, validators.map((v) => v.name)),
      validity: checkValidity(load.history, chains, (blob, sig) => verifier.verify(sig.public_key, fromHex(blob), fromHex(sig.sign_data))),
      no_loss: checkNoLoss(load.history, chains),
      liveness: checkLiveness(clients.samples, faults.records, bound).invariant,
    };
    for (const v of validators) if (v.core) failures.push(...(await nonceProblems(v, chains.find((c) => c.name === v.name)!, load.history)).slice(0, 1));
    const laggards = behind();
    if (laggards.length > 0) {
      invariants.caught_up = { ok: false, detail: `${laggards.map((v) => `${v.name} at ledger ${tipOf(v)}`).join(", ")} never reached ledger ${target}, where the network was when faults and load ended, within ${drainMs} ms` };
    }
    for (const [invariant, { ok, detail }] of Object.entries(invariants)) {
      if (!ok && !failures.some((f) => f.invariant === invariant)) failures.push({ invariant, detail });
    }
    return {
      seed,
      ok: failures.length === 0,
      failures,
      trace_hash: scheduler.traceHash(),
      simulated_ms: scheduler.elapsed,
      events: scheduler.events,
      ledgers: Math.min(...chains.map((c) => c.ledgers.at(-1)?.seq ?? 0)),
      accepted: load.accepted().length,
      schedule,
      faults: schedule.map(describeFault),
      trace: scheduler.entries,
    };
  } finally {
    for (const v of validators) v.halt();
  }
}


