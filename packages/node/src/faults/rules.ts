import { ChainError, ErrorCode } from "@chainsim/protocol";
import { STORE_POINTS, type StorePoint } from "../ledger/ledger-manager.js";

export const FAULT_KINDS = ["drop", "delay", "duplicate", "reorder", "partition", "byzantine", "crash"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const BYZANTINE_MODES = ["equivocate", "silent", "wrong-digest", "bad-signature", "replay", "mutate", "censor"] as const;
export type ByzantineMode = (typeof BYZANTINE_MODES)[number];

/** How long a reordered message is held back when the rule names no window_ms. */
export const DEFAULT_REORDER_WINDOW_MS = 200;

/** The kind-specific parameters, as posted and as listed. */
export type FaultParams =
  | { kind: "drop" | "duplicate"; probability: number }
  | { kind: "delay"; delay_ms: number; jitter_ms: number }
  | { kind: "reorder"; probability: number; window_ms: number }
  | { kind: "partition" }
  | { kind: "byzantine"; mode: ByzantineMode }
  | { kind: "crash"; point: StorePoint };

/** One active rule. `peers` null means every peer (for `equivocate`: the latter half of the peers). */
export type FaultRule = FaultParams & {
  id: number;
  peers: string[] | null;
  /** ms since the epoch */
  created_at: number;
  expires_at: number | null;
};

/** The keys a body may hold besides kind, peers and duration_ms. */
const PARAM_KEYS: Record<FaultKind, string[]> = {
  drop: ["probability"],
  duplicate: ["probability"],
  delay: ["delay_ms", "jitter_ms"],
  reorder: ["probability", "window_ms"],
  partition: [],
  byzantine: ["mode"],
  crash: ["point"],
};

function invalid(why: string): never {
  throw new ChainError(ErrorCode.INVALID_PARAMETER, `fault rule: ${why}`);
}

function probability(body: Record<string, unknown>): number {
  const p = body.probability;
  if (typeof p !== "number" || !(p >= 0 && p <= 1)) invalid("probability should be a number from 0 to 1");
  return p;
}

/** The longest wait a timer can hold: a longer one fires at once (Node's setTimeout), so a rule would lie. */
const MAX_MS = 2 ** 31 - 1;

function millis(body: Record<string, unknown>, key: string, fallback?: number): number {
  const value = body[key] ?? fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > MAX_MS) invalid(`${key} should be a whole number of ms from 0 to ${MAX_MS}`);
  return value;
}

/**
 * Checks a POST /debug/faults body strictly (unknown keys, kinds, modes and peers are refused: a typo must
 * not silently make a harmless rule) and returns the rule without its id and times.
 */
export function parseFaultRule(json: unknown, knownPeers: readonly string[]): { params: FaultParams; peers: string[] | null; durationMs: number | null } {
  if (!json || typeof json !== "object" || Array.isArray(json)) invalid("the body should be a JSON object");
  const body = json as Record<string, unknown>;
  const kind = body.kind as FaultKind;
  if (!FAULT_KINDS.includes(kind)) invalid(`kind should be one of ${FAULT_KINDS.join(", ")}`);
  const unknown = Object.keys(body).filter((key) => !["kind", "peers", "duration_ms", ...PARAM_KEYS[kind]].includes(key));
  if (unknown.length > 0) invalid(`unknown key(s) for ${kind}: ${unknown.join(", ")}`);

  let peers: string[] | null = null;
  if (body.peers !== undefined) {
    if (!Array.isArray(body.peers) || body.peers.length === 0 || !body.peers.every((p) => typeof p === "string")) {
      invalid("peers should be a non-empty array of validator addresses");
    }
    const strange = (body.peers as string[]).filter((p) => !knownPeers.includes(p));
    if (strange.length > 0) invalid(`not a peer of this validator: ${strange.join(", ")}`);
    peers = [...new Set(body.peers as string[])];
  }
  if (kind === "partition" && peers === null) invalid("partition needs peers (the validators to cut off)");
  if (kind === "crash" && peers !== null) invalid("crash takes no peers (the node kills itself)");
  const durationMs = body.duration_ms === undefined ? null : millis(body, "duration_ms");
  if (durationMs === 0) invalid("duration_ms should be positive (leave it out for a rule that stays)");

  const params = ((): FaultParams => {
    switch (kind) {
      case "drop":
      case "duplicate":
        return { kind, probability: probability(body) };
      case "delay":
        return { kind, delay_ms: millis(body, "delay_ms"), jitter_ms: millis(body, "jitter_ms", 0) };
      case "reorder":
        return { kind, probability: probability(body), window_ms: millis(body, "window_ms", DEFAULT_REORDER_WINDOW_MS) };
      case "partition":
        return { kind };
      case "byzantine": {
        const mode = body.mode as ByzantineMode;
        if (!BYZANTINE_MODES.includes(mode)) invalid(`mode should be one of ${BYZANTINE_MODES.join(", ")}`);
        return { kind, mode };
      }
      case "crash": {
        const point = body.point as StorePoint;
        if (!STORE_POINTS.includes(point)) invalid(`point should be one of ${STORE_POINTS.join(", ")}`);
        return { kind, point };
      }
    }
  })();
  return { params, peers, durationMs };
}
