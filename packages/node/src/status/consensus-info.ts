import { toHex, type Json } from "@chainsim/protocol";
import type { NodeContext } from "../context.js";
import { formatTime } from "./time.js";

/**
 * getConsensusInfo of a single validator: it is always the primary of view 0, quorum 1, and every
 * ledger it closes is an instance committed on its own vote. (Several validators need PBFT, a later release.)
 */
export function consensusInfo(ctx: NodeContext): { [key: string]: Json } {
  const n = ctx.config.validators.length;
  const f = Math.floor((n - 1) / 3);
  const header = ctx.ledgers.lastHeader;
  const closedAt = formatTime(Number((header.close_time ?? 0n) / 1000n));
  const digest = toHex(header.consensus_value_hash ?? new Uint8Array());
  const self = ctx.validatorAddress;
  return {
    abnormal_records: null,
    ckp_interval: ctx.config.consensus.ckp_interval,
    fault_number: f,
    instances: [
      {
        commits: [`replica ${ctx.config.validators.indexOf(self)} (${self}) committed ${digest}`],
        cons_value: digest,
        end_time: closedAt,
        have_send_viewchange: false,
        last_propose_time: closedAt,
        phase: "PHASE_COMMITED",
        phase_item: 3,
        pre_prepare: `view 0 seq ${header.seq} value ${digest} from ${self}`,
        pre_prepare_round: 1,
        prepares: [`replica ${ctx.config.validators.indexOf(self)} (${self}) prepared ${digest}`],
        seq: header.seq!,
        start_time: closedAt,
        vn: 0,
      },
    ],
    is_leader: ctx.config.validators[0] === self,
    last_exe_seq: header.seq!,
    leader: ctx.config.validators[0],
    quorum_size: 2 * f + 1,
    replica_id: ctx.config.validators.indexOf(self),
    type: "pbft",
    validator_address: self,
    validator_address_random: false,
    validators: ctx.config.validators,
    view_active: true,
    view_number: 0,
    viewchanges: null,
  };
}
