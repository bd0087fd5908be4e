import { join } from "node:path";
import { pino, type DestinationStream, type Level } from "pino";

/** The log levels, lowest first (docs/operations.md, "Logs"). */
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal"] as const satisfies readonly Level[];
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A validator's log, in its data directory (docs/operations.md, "Logs"). */
export const NODE_LOG_FILE = "node.log";

/** One line at one level, with optional fields beside the message. */
export type LogLine = (message: string, fields?: Record<string, unknown>) => void;

/**
 * The node's one logger. Called as a function it logs at info, so the many modules that take a plain
 * `(line: string) => void` keep working; the methods pick another level.
 */
export type NodeLog = LogLine & Record<LogLevel, LogLine>;

export interface NodeLogHandle {
  log: NodeLog;
  /** Closes the log file (the node stops; tests open many nodes in one process). */
  close(): void;
}

/**
 * JSON lines `{"level","time","node","msg",…fields}` appended to `<dataDir>/node.log`, and the same lines on
 * stdout, which is what container logs show (`chainsim up` discards a validator's stdout, since the file has it).
 * Written synchronously: the lines just before a crash are the ones that matter.
 */
export function openNodeLog(options: { name: string; dataDir: string; level: LogLevel; stdout?: DestinationStream }): NodeLogHandle {
  const file = pino.destination({ dest: join(options.dataDir, NODE_LOG_FILE), append: true, mkdir: true, sync: true });
  const streams = pino.multistream([
    { level: options.level, stream: file },
    { level: options.level, stream: options.stdout ?? process.stdout },
  ]);
  const logger = pino(
    {
      level: options.level,
      base: { node: options.name },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    streams,
  );
  const at =
    (level: LogLevel): LogLine =>
    (message, fields) =>
      fields ? logger[level](fields, message) : logger[level](message);
  const log = Object.assign(at("info"), Object.fromEntries(LOG_LEVELS.map((level) => [level, at(level)])) as Record<LogLevel, LogLine>);
  return { log, close: () => file.destroy() };
}
