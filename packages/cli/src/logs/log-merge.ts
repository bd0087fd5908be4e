import { setTimeout as sleep } from "node:timers/promises";
import type { LogLevel } from "@chainsim/node";
import type { LogFile } from "./log-file.js";
import { levelRank, type LogRecord } from "./log-record.js";

export interface MergeOptions {
  /** Keep records at this level and above (default: all). */
  level?: LogLevel;
}

export interface FollowOptions extends MergeOptions {
  /** Stops following. */
  signal: AbortSignal;
  /** How often the files are read again (default 250 ms). */
  pollMs?: number;
  /**
   * How long a new record is held back so that one written at the same moment in another file, but read a
   * poll later, still comes out before it (default 1 s).
   */
  holdMs?: number;
}

/**
 * The records of every file in time order (each file is in time order already: one writer, appending), read
 * lazily: only one record per file is held at a time. Equal times keep the files' order.
 */
export async function* mergeLogs(files: LogFile[], options: MergeOptions = {}): AsyncGenerator<LogRecord> {
  const keep = levelFilter(options.level);
  const readers = files.map((file) => file.records());
  try {
    const heads = await Promise.all(readers.map((reader) => reader.next()));
    for (;;) {
      let first = -1;
      heads.forEach((head, i) => {
        if (!head.done && (first < 0 || head.value.time < (heads[first].value as LogRecord).time)) first = i;
      });
      if (first < 0) return;
      const record = heads[first].value as LogRecord;
      heads[first] = await readers[first].next();
      if (keep(record)) yield record;
    }
  } finally {
    await Promise.all(readers.map((reader) => reader.return(undefined)));
  }
}

/** mergeLogs, then the records added to the files as they grow, still in time order, until the signal. */
export async function* followLogs(files: LogFile[], options: FollowOptions): AsyncGenerator<LogRecord> {
  const { signal, pollMs = 250, holdMs = 1000 } = options;
  const cutoff = () => (signal.aborted ? "\uffff" : new Date(Date.now() - holdMs).toISOString());
  // What is there already; its newest records are held back too, as a file may not have its latest yet.
  let held: LogRecord[] = [];
  const start = cutoff();
  for await (const record of mergeLogs(files, options)) {
    if (record.time <= start) yield record;
    else held.push(record);
  }
  const keep = levelFilter(options.level);
  while (!signal.aborted) {
    await sleep(pollMs, undefined, { signal }).catch(() => undefined);
    for (const file of files) {
      for await (const record of file.records()) if (keep(record)) held.push(record);
    }
    held.sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0));
    const until = cutoff();
    const due = held.findIndex((record) => record.time > until);
    const ready = due < 0 ? held : held.slice(0, due);
    held = due < 0 ? [] : held.slice(due);
    yield* ready;
  }
}

function levelFilter(level: LogLevel | undefined): (record: LogRecord) => boolean {
  const least = level === undefined ? 0 : levelRank(level);
  return (record) => levelRank(record.level) >= least;
}
