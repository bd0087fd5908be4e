import { open } from "node:fs/promises";
import { parseLogLine, rawRecord, type LogRecord } from "./log-record.js";

const CHUNK_BYTES = 64 * 1024;

/**
 * One validator's node.log, read a chunk at a time from where the last read stopped, so a large file is never
 * held whole and a followed file yields only what was added. Only complete lines count: a last line without
 * its newline is still being written and waits for the next read.
 */
export class LogFile {
  /** Bytes of the file consumed (complete lines). */
  offset = 0;
  private previousTime = "";

  constructor(
    readonly node: string,
    readonly path: string,
  ) {}

  /** The complete lines added since the last call, as records; none while the file does not exist. */
  async *records(): AsyncGenerator<LogRecord> {
    const handle = await open(this.path, "r").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    });
    if (!handle) return;
    try {
      // A file shorter than what was read was truncated (rotated by copy-and-truncate): start again.
      if ((await handle.stat()).size < this.offset) this.offset = 0;
      const buffer = Buffer.alloc(CHUNK_BYTES);
      let pending = Buffer.alloc(0); // the bytes from this.offset on that hold no complete line yet
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, this.offset + pending.length);
        if (bytesRead === 0) return;
        pending = Buffer.concat([pending, buffer.subarray(0, bytesRead)]);
        for (let end = pending.indexOf(10); end >= 0; end = pending.indexOf(10)) {
          const line = pending.toString("utf8", 0, end);
          pending = pending.subarray(end + 1);
          this.offset += end + 1;
          if (line.trim() === "") continue;
          const record = parseLogLine(line, this.node, this.previousTime) ?? rawRecord(line, this.node, this.previousTime);
          this.previousTime = record.time;
          yield record;
        }
      }
    } finally {
      await handle.close();
    }
  }
}
