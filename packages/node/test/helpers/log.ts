import { LOG_LEVELS, type NodeLog } from "../../src/logging/node-log.js";

/** A NodeLog that keeps every message in `lines`, whatever its level. */
export function collectingLog(lines: string[]): NodeLog {
  const keep = (message: string) => void lines.push(message);
  return Object.assign(keep, Object.fromEntries(LOG_LEVELS.map((level) => [level, keep])) as Record<(typeof LOG_LEVELS)[number], typeof keep>);
}
