import type { StableCheckpoint } from "./checkpoints.js";
import type { Instance } from "./instance.js";
import type { NewView, Signed, ViewChange } from "./messages.js";

/** A replica's protocol state: what snapshot() saves and status() reports. */
export interface ReplicaState {
  /** The current view; while !viewActive, the view being changed to. */
  view: number;
  viewActive: boolean;
  /** View changes since the last commit in an active view; the timeout doubles with each. */
  failedViews: number;
  /** Seqs up to this were assigned by the current view's NEW-VIEW; fresh pre-prepares must be above. */
  newViewMaxSeq: number;
  lastExecuted: number;
  /** Handed to the node as commits (≥ lastExecuted: execution may lag). */
  lastDelivered: number;
  stable: StableCheckpoint;
  /** Instances above the stable checkpoint, by seq. */
  log: Map<number, Instance>;
  /** Per replica, its VIEW-CHANGE for the highest view above our current one (ours included). */
  viewChanges: Map<number, Signed<ViewChange>>;
  /** The NEW-VIEW that started the current view (none in view 0). */
  newView?: Signed<NewView>;
}
