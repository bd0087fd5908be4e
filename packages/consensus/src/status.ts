import type { Instance } from "./instance.js";
import type { ReplicaState } from "./state.js";

/** Phase names as getConsensusInfo reports them (the family spells COMMITED with one T). */
export type Phase = "PHASE_NONE" | "PHASE_PREPREPARED" | "PHASE_PREPARED" | "PHASE_COMMITED";

export interface InstanceStatus {
  seq: number;
  /** View of the accepted pre-prepare, or of the commit certificate when there is no pre-prepare. */
  view: number;
  phase: Phase;
  /** Digest of the decided value, else of the accepted pre-prepare; "" for none or a null request. */
  digest: string;
  /** Whether a pre-prepare was accepted (and from which replica's address). */
  prePrepare: string | null;
  /** Addresses whose PREPARE matches the accepted pre-prepare. */
  prepares: string[];
  /** Addresses of the commit certificate, or of the COMMITs matching the accepted pre-prepare. */
  commits: string[];
  /** The nowMs of the call that created the instance, accepted its pre-prepare, and decided it. */
  startMs: number;
  lastProposeMs: number | null;
  endMs: number | null;
}

export interface ConsensusStatus {
  replicaId: number;
  validatorAddress: string;
  validators: string[];
  view: number;
  primary: number;
  leader: string;
  isPrimary: boolean;
  viewActive: boolean;
  quorum: number;
  f: number;
  ckpInterval: number;
  lastExecutedSeq: number;
  stableCheckpoint: { seq: number; digest: string };
  instances: InstanceStatus[];
  /** While changing view: the view asked for and who asked for which view. */
  viewChange: { targetView: number; requests: { replica: number; address: string; view: number }[] } | null;
}

export interface StatusContext {
  validators: string[];
  self: number;
  f: number;
  quorum: number;
  ckpInterval: number;
  primary: number;
}

export function statusOf(state: ReplicaState, ctx: StatusContext): ConsensusStatus {
  const address = (replica: number) => ctx.validators[replica];
  return {
    replicaId: ctx.self,
    validatorAddress: address(ctx.self),
    validators: [...ctx.validators],
    view: state.view,
    primary: ctx.primary,
    leader: address(ctx.primary),
    isPrimary: ctx.primary === ctx.self,
    viewActive: state.viewActive,
    quorum: ctx.quorum,
    f: ctx.f,
    ckpInterval: ctx.ckpInterval,
    lastExecutedSeq: state.lastExecuted,
    stableCheckpoint: { seq: state.stable.seq, digest: state.stable.digest },
    instances: [...state.log.values()].sort((a, b) => a.seq - b.seq).map((i) => instanceStatus(i, address)),
    viewChange: state.viewActive
      ? null
      : {
          targetView: state.view,
          requests: [...state.viewChanges.values()]
            .map(({ body }) => ({ replica: body.replica, address: address(body.replica), view: body.view }))
            .sort((a, b) => a.replica - b.replica),
        },
  };
}

function instanceStatus(instance: Instance, address: (replica: number) => string): InstanceStatus {
  const pp = instance.prePrepare?.body;
  const matching = (votes: Map<number, { body: { view: number; digest: string } }>) =>
    [...votes].filter(([, v]) => pp && v.body.view === pp.view && v.body.digest === pp.digest).map(([r]) => r);
  const certificate = instance.committed?.map((c) => c.body.replica);
  const phase: Phase = certificate
    ? "PHASE_COMMITED"
    : instance.prepared && instance.prepared.prePrepare.body.view === instance.view
      ? "PHASE_PREPARED"
      : pp
        ? "PHASE_PREPREPARED"
        : "PHASE_NONE";
  return {
    seq: instance.seq,
    view: pp?.view ?? instance.committed?.[0].body.view ?? -1,
    phase,
    digest: instance.committedDigest() ?? pp?.digest ?? "",
    prePrepare: pp ? address(pp.replica) : null,
    prepares: matching(instance.prepares).sort((a, b) => a - b).map(address),
    commits: (certificate ?? matching(instance.commits)).sort((a, b) => a - b).map(address),
    startMs: instance.startMs,
    lastProposeMs: instance.lastProposeMs ?? null,
    endMs: instance.endMs ?? null,
  };
}
