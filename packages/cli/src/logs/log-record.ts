import { LOG_LEVELS, type LogLevel } from "@chainsim/node";

/** One line of a validator's node.log (docs/operations.md, "Logs"). */
export interface LogRecord {
  time: string;
  level: LogLevel;
  node: string;
  msg: string;
  [field: string]: unknown;
}

/** A level's rank: a filter at L keeps the records ranked at least L. */
export function levelRank(level: LogLevel): number {
  return LOG_LEVELS.indexOf(level);
}

/**
 * Reads one line of `node`'s log as a record; undefined when it is not a JSON record (see rawRecord). A record
 * without a time gets `previousTime`. Pino's numeric levels and epoch times are read too.
 */
export function parseLogLine(line: string, node: string, previousTime: string): LogRecord | undefined {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    json = undefined;
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) return undefined;
  const { time, level, msg, node: _node, ...fields } = json as Record<string, unknown>;
  return { time: recordTime(time) ?? previousTime, level: recordLevel(level), node, msg: typeof msg === "string" ? msg : String(msg ?? ""), ...fields };
}

/**
 * A line that is not a JSON record (what the validator wrote to stderr, such as a crash's stack trace), as an
 * error at `previousTime`, the time of the line before it, so that it stays in place when logs are merged.
 */
export function rawRecord(line: string, node: string, previousTime: string): LogRecord {
  return { time: previousTime, level: "error", node, msg: line };
}

/**
 * A record's time as an ISO string, which sorts in time order; a time that is no valid date (a damaged
 * or hand-written line: `1e20`, `"zzz"`) is none, and the record keeps the time of the line before it.
 */
function recordTime(time: unknown): string | undefined {
  if (typeof time !== "number" && typeof time !== "string") return undefined;
  const date = new Date(time);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function recordLevel(level: unknown): LogLevel {
  if (typeof level === "number") return LOG_LEVELS[Math.min(Math.max(Math.floor(level / 10) - 1, 0), LOG_LEVELS.length - 1)];
  return (LOG_LEVELS as readonly unknown[]).includes(level) ? (level as LogLevel) : "info";
}

/** The line `chainsim up` writes into a validator's log before starting it. */
export function startRecord(node: string): LogRecord {
  return { level: "info", time: new Date().toISOString(), node, msg: `chainsim: starting ${node}` };
}

const COLOURS: Record<LogLevel, string> = { trace: "90", debug: "36", info: "32", warn: "33", error: "31", fatal: "35" };

/** `TIME NODE LEVEL msg key=value …`, the level coloured when `colour` (a terminal). */
export function formatLogRecord(record: LogRecord, colour = false): string {
  const { time, level, node, msg, ...fields } = record;
  const label = level.toUpperCase().padEnd(5);
  const extra = Object.entries(fields).map(([key, value]) => ` ${key}=${typeof value === "string" ? value : JSON.stringify(value)}`);
  return `${time} ${node} ${colour ? `\x1b[${COLOURS[level]}m${label}\x1b[0m` : label} ${msg}${extra.join("")}`;
}
