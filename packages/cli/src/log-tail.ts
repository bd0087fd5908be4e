import { open } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { formatLogRecord, parseLogLine } from "./logs/log-record.js";

/**
 * The last `lines` lines of a validator's node.log as text (its JSON records pretty-printed), indented for an
 * error message; a note when it cannot be read.
 */
export async function logTail(file: string, lines = 20): Promise<string> {
  let text: string;
  try {
    const handle = await open(file, "r");
    try {
      const { size } = await handle.stat();
      const length = Math.min(size, 16_384); // a tail is enough; logs can grow large
      const { buffer } = await handle.read(Buffer.alloc(length), 0, length, size - length);
      text = buffer.toString("utf8");
    } finally {
      await handle.close();
    }
  } catch (error) {
    return `  (cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? error})`;
  }
  const tail = text.trimEnd().split("\n").slice(-lines);
  if (tail.length === 1 && tail[0] === "") return "  (the log is empty)";
  const node = basename(dirname(file));
  return tail
    .map((line) => {
      const record = parseLogLine(line, node, "");
      return `  | ${record ? formatLogRecord(record) : line}`;
    })
    .join("\n");
}
