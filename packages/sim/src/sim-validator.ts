import type { ContractLimits } from "@chainsim/contracts";
import { LOG_LEVELS, openValidatorCore, validatorCrypto, withFaultPlane, type FaultPlane, type NodeConfig, type NodeLog, type StorePoint, type ValidatorCore } from "@chainsim/node";
import { addressFromPublicKey, codecs, decodePrivateKey } from "@chainsim/protocol";
import { NodeEd25519Signer, type Ed25519Verifier } from "@chainsim/protocol/node-crypto";
import type { Scheduler } from "./scheduler.js";
import { SimDisk } from "./sim-disk.js";
import type { SimWire } from "./sim-network.js";
import type { CommitWatch } from "./watchers.js";
import { CountedRuntime, type PendingTasks } from "./pending.js";

export type ValidatorState = "up" | "down" | "paused";

/** What every validator of one run shares. */
export interface SimRun {
  scheduler: Scheduler;
  wire: SimWire;
  /** What every validator's contract engines obey, and where their runs are counted (the clock waits for them). */
  contracts: { limits: ContractLimits; runs: { pending: number } };
  watch: CommitWatch;
  /** Counts the checks a stored ledger starts, so that the clock waits for them. */
  tasks: PendingTasks;
  /** A signature is checked once, however many validators check it. */
  verifier: Ed25519Verifier;
  unsafeQuorum?: number;
}

export interface SimValidatorOptions {
  /** The seed of this validator's fault plane (message faults, Byzantine modes). */
  faultSeed?: number;
  /** A planted bug, applied to the core at every start (tests only). */
  bug?: (core: ValidatorCore) => void;
  /** A second process with this config's key (the twin fault): named `<node>-twin`, it gets half of what peers send the key. */
  twin?: boolean;
}

/**
 * One validator of the simulation: the real validator core (openValidatorCore: storage, execution, pool,
 * consensus, sync, gossip) on a simulated disk, wire and clock. Crashing it drops its timers, its network
 * and whatever its disk loses; starting it again opens what survived, as a restarted process would.
 */
export class SimValidator {
  readonly name: string;
  readonly address: string;
  readonly disk = new SimDisk();
  state: ValidatorState = "down";
  core: ValidatorCore | undefined;
  /** The fault plane of a Byzantine validator (its modes are set on it). */
  plane: FaultPlane | undefined;
  incarnation = 0;
  /** A crash armed for a point of the next ledger write (the crash-at-write fault), with what to do after. */
  private armed: { point: StorePoint; crashed: () => void } | undefined;
  private retire: (() => void) | undefined;
  private stopNetwork: (() => Promise<void>) | undefined;

  constructor(
    readonly config: NodeConfig,
    private readonly run: SimRun,
    private readonly options: SimValidatorOptions = {},
  ) {
    this.name = options.twin ? `${config.node_name}-twin` : config.node_name;
    this.address = addressFromPublicKey(new NodeEd25519Signer(decodePrivateKey(config.validator.private_key)).publicKey);
  }

  /** Opens the disk as it is and starts the validator core (a process start). */
  async start(): Promise<void> {
    if (this.state !== "down") return;
    const incarnation = ++this.incarnation;
    const clock = this.run.scheduler.clockFor(this.name);
    const signer = new NodeEd25519Signer(decodePrivateKey(this.config.validator.private_key));
    const crypto = validatorCrypto(this.config, signer, this.address, this.run.verifier);
    const peers = this.config.p2p.peers.map((peer) => peer.address);
    const wired = this.run.wire.attach(this.address, peers, clock, this.options.twin);
    const faults =
      this.options.faultSeed === undefined
        ? undefined
        : withFaultPlane(wired, { peers, validators: this.config.validators, crypto, seed: this.options.faultSeed, unsafeQuorum: this.run.unsafeQuorum ?? null, clock });
    const dbs = await this.disk.open();
    const runtime = new CountedRuntime(this.run.contracts.limits, this.run.contracts.runs);
    const core = await openValidatorCore({
      config: this.config,
      validatorAddress: this.address,
      dbs,
      network: faults?.network ?? wired,
      contracts: { runtime, limits: this.run.contracts.limits },
      crypto,
      log: SimValidator.silentLog,
      clock,
      verifier: this.run.verifier,
      unsafeQuorum: this.run.unsafeQuorum,
      censoring: faults && (() => faults.plane.byzantine("censor")),
    });
    this.options.bug?.(core);
    await (faults?.network ?? wired).start();
    core.ledgers.onClosed((ledger) => {
      if (this.core !== core) return;
      const seq = Number(ledger.header.seq);
      this.run.watch.committed(this.name, seq, ledger.header.hash!, ledger.header.previous_hash ?? new Uint8Array(), ledger.included.length);
      this.run.tasks.track(async () => this.run.watch.balances(this.name, seq, await totalBalance(core), this.config.genesis.balance), () => {
        // the validator crashed while its accounts were read: the next ledger is checked
      });
    });
    core.ledgers.onStorePoint((point) => {
      if (this.armed?.point !== point || this.core !== core) return;
      const { crashed } = this.armed;
      this.armed = undefined;
      this.crash();
      crashed();
    });
    core.consensus.start();
    this.core = core;
    this.plane = faults?.plane;
    this.retire = () => {
      clock.retire();
      runtime.retire();
    };
    this.stopNetwork = () => {
      this.run.wire.detach(wired);
      return wired.stop();
    };
    this.state = "up";
    this.run.scheduler.trace({ kind: "start", node: this.name, what: `incarnation ${incarnation}, at ledger ${core.ledgers.lastHeader.seq}` });
  }

  /**
   * The process dies at this instant: no timer of it runs again, nothing more leaves or arrives, its disk
   * keeps what a crash keeps (with `powerCut`, what was synced and a prefix of the rest).
   */
  crash(powerCut?: { keptFraction: number }): void {
    if (this.state === "down") return;
    this.die(powerCut);
    this.run.scheduler.trace({ kind: "crash", node: this.name, what: powerCut ? `power cut: ${powerCut.keptFraction.toFixed(2)} of the unsynced writes kept` : "process killed" });
  }

  /** Stops the validator at the end of a run, untraced (its disk stays readable). */
  halt(): void {
    if (this.state !== "down") this.die();
  }

  private die(powerCut?: { keptFraction: number }): void {
    if (this.state === "paused") this.run.scheduler.resume(this.name);
    this.retire?.();
    this.run.scheduler.cancelOwner(this.name);
    void this.stopNetwork?.();
    this.disk.crash(powerCut);
    this.core = undefined;
    this.plane = undefined;
    this.state = "down";
  }

  /** Crashes this validator when its next ledger write reaches `point`; `crashed` runs then. */
  armCrash(point: StorePoint, crashed: () => void): void {
    this.armed = { point, crashed };
  }

  /** Whether a crash is still armed; disarms it. */
  disarm(): boolean {
    const was = this.armed !== undefined;
    this.armed = undefined;
    return was;
  }

  pause(): void {
    if (this.state !== "up") return;
    this.run.scheduler.pause(this.name);
    this.state = "paused";
    this.run.scheduler.trace({ kind: "pause", node: this.name, what: "paused" });
  }

  resume(): void {
    if (this.state !== "paused") return;
    this.run.scheduler.resume(this.name);
    this.state = "up";
    this.run.scheduler.trace({ kind: "resume", node: this.name, what: "resumed" });
  }

  /**
   * The validators' logs go nowhere: nothing in a run reads them, and formatting every line cost time. The
   * trace (`--trace`) says what happened.
   */
  private static readonly silentLog: NodeLog = Object.assign(() => {}, Object.fromEntries(LOG_LEVELS.map((level) => [level, () => {}]))) as unknown as NodeLog;

}

/** The coins every account of `core`'s state holds together. */
async function totalBalance(core: ValidatorCore): Promise<bigint> {
  let total = 0n;
  for await (const [, encoded] of core.ledgers.accounts.encodedAccounts()) total += codecs.Account.decode(encoded).balance ?? 0n;
  return total;
}
