import type { InstanceStatus, Phase } from "@chainsim/consensus";
import type { Json } from "@chainsim/protocol";
import type { NodeContext } from "../context.js";
import { formatTime } from "./time.js";

/** phase_item as the family numbers its phases. */
const PHASE_ITEMS: Record<Phase, number> = { PHASE_NONE: 0, PHASE_PREPREPARED: 1, PHASE_PREPARED: 2, PHASE_COMMITED: 3 };

/** getConsensusInfo: the replica's live state (packages/consensus), in the family's field names. */
export function consensusInfo(ctx: NodeContext): { [key: string]: Json } {
  const status = ctx.consensus.status();
  const viewChange = status.viewChange;
  return {
    abnormal_records: null,
    ckp_interval: status.ckpInterval,
    fault_number: status.f,
    instances: status.instances.map((instance) => instanceInfo(instance, status.instances.length > 0 && !status.viewActive)),
    is_leader: status.isPrimary,
    last_exe_seq: status.lastExecutedSeq,
    leader: status.leader,
    quorum_size: status.quorum,
    replica_id: status.replicaId,
    type: "pbft",
    validator_address: status.validatorAddress,
    validator_address_random: false,
    validators: status.validators,
    view_active: status.viewActive,
    view_number: status.view,
    viewchanges: viewChange
      ? `changing to view ${viewChange.targetView}; asked by ${viewChange.requests.map((r) => `replica ${r.replica} (${r.address}) for view ${r.view}`).join(", ") || "nobody yet"}`
      : null,
  };
}

function instanceInfo(instance: InstanceStatus, viewChanging: boolean): { [key: string]: Json } {
  const time = (ms: number | null) => (ms === null ? "" : formatTime(ms));
  const digest = instance.digest || "(null request)";
  return {
    commits: instance.commits.map((address) => `${address} committed ${digest}`),
    cons_value: instance.digest,
    end_time: time(instance.endMs),
    have_send_viewchange: viewChanging && instance.phase !== "PHASE_COMMITED",
    last_propose_time: time(instance.lastProposeMs),
    phase: instance.phase,
    phase_item: PHASE_ITEMS[instance.phase],
    pre_prepare: instance.prePrepare ? `view ${instance.view} seq ${instance.seq} value ${digest} from ${instance.prePrepare}` : "",
    pre_prepare_round: instance.prePrepare ? 1 : 0,
    prepares: instance.prepares.map((address) => `${address} prepared ${digest}`),
    seq: instance.seq,
    start_time: time(instance.startMs),
    vn: instance.view,
  };
}
