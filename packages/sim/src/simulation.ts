import { DEFAULT_CONTRACT_LIMITS, JsRuntime } from "@chainsim/contracts";
import type { NodeConfig, ValidatorCore } from "@chainsim/node";
import { codecs, fromHex, seededRandom, toHex } from "@chainsim/protocol";
import { Ed25519Verifier } from "@chainsim/protocol/node-crypto";
import { describeFault, drawSchedule, SIM_FAULT_KINDS, type SimFault, type SimFaultKind } from "./faults.js";
import { checkAgreement, checkLiveness, checkNoLoss, checkValidity, livenessBoundMs, recoveryOf, type InvariantResult } from "./invariants/checker.js";
import type { History, NodeChain, PerturbationRecord, StatusSample } from "./invariants/history.js";
import { AdmissionBroken, SimLoad } from "./load.js";
import { CountedRuntime, PendingTasks } from "./pending.js";
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
const SAMPLE_MS = 250;
const RESUBMIT_MS = 2_000;
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
  const runtime = new CountedRuntime(new JsRuntime(limits));
  const tasks = new PendingTasks();
  scheduler.watch(runtime);
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
  const run: SimRun = { scheduler, wire, contracts: { runtime, limits }, watch, tasks, verifier, unsafeQuorum: options.unsafeQuorum };
  const validators = configs.map((config) => {
    const bug = options.plant?.node === config.node_name ? options.plant.bug : undefined;
    return new SimValidator(config, run, { faultSeed: Math.floor(faultSeeds() * 2 ** 32), bug });
  });
  for (const v of validators) names.set(v.address, v.name);
  try {
    for (const v of validators) await v.start();
    const load = new SimLoad(config0.network, options.genesisPrivateKey, config0.genesis.chain_id, config0.genesis.gas_price, stream(0x5eed0003));
    const schedule = options.schedule ?? drawSchedule(stream(0x5eed0004), validators.map((v) => v.name), 3_000, durationMs, options.faultKinds ?? SIM_FAULT_KINDS);
    const records: PerturbationRecord[] = [];
    const samples: StatusSample[] = [];
    const pick = stream(0x5eed0005);
    const anyValidator = () => validators[Math.floor(pick() * validators.length)]!;
    const reference = () => validators.find((v) => v.state === "up");

    const bound = livenessBoundMs(validators.length, config0.consensus);
    // every heal's recovery seen, or its bound passed: liveness is decided
    const healsDecided = () => {
      const sorted = [...samples].sort((a, b) => a.at_ms - b.at_ms);
      return records.every((record) => scheduler.now() > record.healed_ms + bound || recoveryOf(sorted, record, bound).recovery_ms !== undefined);
    };
    let loading = true;
    // load: a step every 50-250 ms, each to a validator the seed picks, until durationMs and then until
    // liveness is decided (an idle network closes a ledger only every empty_close_interval_ms)
    const loadStep = () => {
      if (!loading) return;
      const target = anyValidator();
      tasks.track(() => load.step(target, scheduler.now()), fail("load"));
      scheduler.at(50 + Math.floor(pick() * 200), "load", "load", loadStep);
    };
    scheduler.at(0, "load", "load", loadStep);
    // a client retries what it has not seen committed
    const committed = new Set<string>();
    const resubmit = () => {
      const ref = reference();
      if (ref) {
        tasks.track(async () => {
          const missing: string[] = [];
          for (const hash of load.outstanding(committed)) {
            if (await ref.core!.ledgers.ledgers.record(hash)) committed.add(hash);
            else missing.push(hash);
          }
          if (missing.length > 0) await load.resubmit(anyValidator(), missing, scheduler.now());
        }, fail("load"));
      }
      scheduler.at(RESUBMIT_MS, "load", "resubmit", resubmit);
    };
    scheduler.at(RESUBMIT_MS, "load", "resubmit", resubmit);
    // status samples, as the scenario's sampler reads getConsensusInfo
    const sample = () => {
      for (const v of validators) {
        const status = v.state === "up" ? v.core!.consensus.status() : undefined;
        samples.push({ at_ms: scheduler.now(), node: v.name, seq: v.state === "up" ? Number(v.core!.ledgers.lastHeader.seq) : undefined, view: status?.view });
      }
      scheduler.at(SAMPLE_MS, "sampler", "sample", sample);
    };
    scheduler.at(SAMPLE_MS, "sampler", "sample", sample);
    for (const fault of schedule) schedule1(fault);

    function schedule1(fault: SimFault): void {
      const v = validators.find((x) => x.name === fault.node)!;
      const honest = validators.filter((x) => x !== v).map((x) => x.name);
      scheduler.at(fault.at_ms - scheduler.elapsed, "faults", "fault", () => {
        scheduler.trace({ kind: "fault", node: fault.node, what: describeFault(fault) });
        const healAt = () => scheduler.now() + fault.duration_ms;
        records.push({ node: fault.node, kind: fault.kind, at_ms: scheduler.now(), healed_ms: healAt(), honest });
        const heal = (then: () => void) =>
          scheduler.at(fault.duration_ms, "faults", "heal", () => {
            scheduler.trace({ kind: "heal", node: fault.node, what: describeFault(fault) });
            then();
          });
        const restartLater = () => heal(() => tasks.track(() => v.start(), fail("restart")));
        switch (fault.kind) {
          case "kill":
            v.crash();
            return void restartLater();
          case "power-cut":
            v.crash({ keptFraction: fault.kept ?? 0 });
            return void restartLater();
          case "wipe":
            v.crash();
            v.disk.wipe();
            conduct.forget(v.name);
            return void restartLater();
          case "crash-at-write":
            v.armCrash(fault.point!, () => scheduler.trace({ kind: "crash", node: v.name, what: `crashed at ${fault.point}` }));
            heal(() => {
              v.disarm();
              tasks.track(() => v.start(), fail("restart"));
            });
            return;
          case "twin": {
            // a second process with v's key: what it signs contradicts v, by design
            conduct.exempt(v.name);
            const twin = new SimValidator(v.config, run, { faultSeed: Math.floor(faultSeeds() * 2 ** 32), twin: true });
            tasks.track(() => twin.start(), fail("twin"));
            heal(() => twin.halt());
            return;
          }
          case "pause":
            v.pause();
            heal(() => v.resume());
            return;
          case "partition":
            {
              const side = validators.filter((x) => fault.side!.includes(x.name));
              wire.partition(side.map((x) => x.address), validators.filter((x) => !side.includes(x)).map((x) => x.address));
            }
            heal(() => wire.heal());
            return;
          default: {
            if (fault.kind === "byzantine") conduct.exempt(v.name);
            const rule = fault.kind === "byzantine" ? { kind: "byzantine", mode: fault.mode } : ruleOf(fault.kind);
            v.plane?.add({ ...rule, duration_ms: fault.duration_ms });
            heal(() => undefined); // the rule expires by itself; the trace marks when
          }
        }
      });
    }

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
      loading &&= !healsDecided();
      return !loading && scheduler.elapsed > durationMs + RESUBMIT_MS && load.outstanding(committed).length === 0 && behind().length === 0;
    });
    const chains: NodeChain[] = [];
    for (const v of validators) if (v.core) chains.push(await chainOf(v, failures));
    const invariants: Record<string, InvariantResult> = {
      agreement: checkAgreement(chains, validators.map((v) => v.name)),
      validity: checkValidity(load.history, chains, (blob, sig) => verifier.verify(sig.public_key, fromHex(blob), fromHex(sig.sign_data))),
      no_loss: checkNoLoss(load.history, chains),
      liveness: checkLiveness(samples, records, bound).invariant,
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
    runtime.dispose();
  }
}

function ruleOf(kind: SimFaultKind): Record<string, unknown> {
  if (kind === "delay") return { kind, delay_ms: 200, jitter_ms: 400 };
  if (kind === "reorder") return { kind, probability: 0.5, window_ms: 300 };
  return { kind, probability: 0.3 };
}

/**
 * A validator's ledgers as the checker reads them, and its hash chain checked on the way: each header's
 * previous_hash is the hash of the ledger before it. Contract-made transactions are left out (no client
 * submitted them).
 */
async function chainOf(v: SimValidator, failures: SimulationFailure[]): Promise<NodeChain> {
  const store = v.core!.ledgers.ledgers;
  const ledgers: NodeChain["ledgers"] = [];
  let previous: Uint8Array | undefined;
  for (let seq = 1n; seq <= v.core!.ledgers.lastHeader.seq!; seq++) {
    const ledger = await store.ledger(seq);
    const header = ledger!.header!;
    if (previous && toHex(header.previous_hash ?? new Uint8Array()) !== toHex(previous)) {
      failures.push({ invariant: "hash_chain", detail: `${v.name}: ledger ${seq}'s previous_hash is not the hash of ledger ${seq - 1n}` });
    }
    previous = header.hash;
    const records = await Promise.all((ledger!.tx_hashes ?? []).map((hash) => store.record(toHex(hash))));
    const madeByContracts = new Set(records.flatMap((r) => (r?.contract_tx_hashes ?? []).map(toHex)));
    const txs = records
      .filter((r) => r && !madeByContracts.has(toHex(r.hash!)))
      .map((r) => ({ hash: toHex(r!.hash!), signatures: (r!.transaction_env?.signatures ?? []).map((s) => ({ public_key: s.public_key!, sign_data: toHex(s.sign_data!) })) }));
    ledgers.push({ seq: Number(seq), hash: toHex(header.hash!), close_ms: Number((header.close_time ?? 0n) / 1000n), txs });
  }
  return { name: v.name, ledgers };
}

/**
 * Nonces: on `v`, the transactions each load account has in the ledgers carry nonces 1, 2, … n without a gap
 * or a repeat, and the account's nonce is n (a failed transaction uses its nonce too).
 */
async function nonceProblems(v: SimValidator, chain: NodeChain, history: History): Promise<SimulationFailure[]> {
  const bySource = new Map<string, bigint[]>();
  for (const ledger of chain.ledgers) {
    for (const tx of ledger.txs) {
      const signed = history.txs[tx.hash];
      if (!signed) continue; // validity reports it
      const { source_address = "", nonce = 0n } = codecs.Transaction.decode(fromHex(signed.blob));
      bySource.set(source_address, [...(bySource.get(source_address) ?? []), nonce]);
    }
  }
  const problems: SimulationFailure[] = [];
  for (const [source, nonces] of bySource) {
    const stored = (await v.core!.ledgers.accounts.account(source))?.nonce ?? 0n;
    const consecutive = nonces.every((nonce, i) => nonce === BigInt(i + 1));
    if (!consecutive || stored !== BigInt(nonces.length)) {
      problems.push({ invariant: "nonces", detail: `${v.name}: ${source} has transactions with nonces ${nonces.slice(0, 8).join(",")}${nonces.length > 8 ? ",…" : ""} in its ledgers and nonce ${stored}` });
    }
  }
  return problems;
}
