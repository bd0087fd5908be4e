import { codecs } from "@chainsim/protocol";
import type { Channel } from "@chainsim/node";

/**
 * One line of a simulation's trace (docs/simulation.md, "The trace view"): what happened at virtual time `t` (ms
 * since the run began). A message is a `send` and, unless dropped, one `recv` per copy with the same `id`.
 */
export type TraceEntry =
  | { t: number; kind: "send"; id: number; from: string; to: string; what: string }
  | { t: number; kind: "recv"; id: number; from: string; to: string; what: string }
  | { t: number; kind: "drop"; id: number; from: string; to: string; what: string; why: "lost" | "cut" | "down" }
  | { t: number; kind: "timer"; node: string; what: string }
  | { t: number; kind: "fault" | "heal" | "start" | "crash" | "pause" | "resume" | "penalize"; node: string; what: string }
  | { t: number; kind: "commit"; node: string; seq: number; hash: string; txs: number }
  | { t: number; kind: "violation"; node?: string; invariant: string; detail: string };

/** What a payload is, for the trace: a PBFT message by its type and view/seq, otherwise its channel. */
export function describePayload(channel: Channel, payload: Uint8Array): string {
  if (channel !== "consensus") return `${channel} ${payload.length}B`;
  try {
    const signed = codecs.PbftSignedMessage.decode(payload);
    const message = codecs.PbftMessage.decode(signed.message ?? new Uint8Array());
    for (const [field, name] of [
      ["pre_prepare", "PRE-PREPARE"],
      ["prepare", "PREPARE"],
      ["commit", "COMMIT"],
      ["checkpoint", "CHECKPOINT"],
      ["view_change", "VIEW-CHANGE"],
      ["new_view", "NEW-VIEW"],
    ] as const) {
      const body = message[field] as { view?: unknown; seq?: unknown } | undefined;
      if (!body) continue;
      const at = [body.view, body.seq].filter((x) => x !== undefined).join("/");
      return `${name}${at ? ` ${at}` : ""} ${payload.length}B`;
    }
  } catch {
    // a Byzantine validator's garbage: shown by its size
  }
  return `consensus ${payload.length}B`;
}
