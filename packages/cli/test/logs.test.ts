import { appendFile, writeFile } from "node:fs/promises";
import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { join } from "node:path";
import { expect } from "chai";
import { LogFile } from "../src/logs/log-file.js";
import { followLogs, mergeLogs } from "../src/logs/log-merge.js";
import { formatLogRecord, type LogRecord } from "../src/logs/log-record.js";
import { tempDir } from "./helpers.js";

const line = (time: string, level: string, msg: string, fields: object = {}) => JSON.stringify({ level, time, node: "x", msg, ...fields }) + "\n";
const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, "0")}.000Z`;

async function collect(records: AsyncGenerator<LogRecord>, limit = Infinity): Promise<LogRecord[]> {
  const out: LogRecord[] = [];
  for await (const record of records) {
    out.push(record);
    if (out.length >= limit) break;
  }
  return out;
}

describe("chainsim logs: reading and merging node logs", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  const file = (node: string) => new LogFile(node, join(dir, `${node}.log`));

  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  it("merges several files with interleaved times into one time order, each record named by its node", async () => {
    await writeFile(join(dir, "v1.log"), line(at(1), "info", "a1") + line(at(4), "info", "a4") + line(at(5), "warn", "a5"));
    await writeFile(join(dir, "v2.log"), line(at(2), "info", "b2") + line(at(3), "debug", "b3") + line(at(6), "info", "b6"));
    await writeFile(join(dir, "v3.log"), line(at(0), "error", "c0", { seq: 7 }));
    const merged = await collect(mergeLogs([file("v1"), file("v2"), file("v3")]));
    expect(merged.map((r) => `${r.node}:${r.msg}`)).to.deep.equal(["v3:c0", "v1:a1", "v2:b2", "v2:b3", "v1:a4", "v1:a5", "v2:b6"]);
    expect(merged[0]).to.deep.equal({ time: at(0), level: "error", node: "v3", msg: "c0", seq: 7 });
  });

  it("keeps only the records at --level and above", async () => {
    await writeFile(join(dir, "v1.log"), ["trace", "debug", "info", "warn", "error", "fatal"].map((level, i) => line(at(i), level, level)).join(""));
    expect((await collect(mergeLogs([file("v1")], { level: "warn" }))).map((r) => r.msg)).to.deep.equal(["warn", "error", "fatal"]);
  });

  it("leaves out a torn last line being written, and reads it once it is complete", async () => {
    const whole = line(at(2), "info", "second");
    await writeFile(join(dir, "v1.log"), line(at(1), "info", "first") + whole.slice(0, 20));
    const v1 = file("v1");
    expect((await collect(mergeLogs([v1]))).map((r) => r.msg)).to.deep.equal(["first"]);
    await appendFile(join(dir, "v1.log"), whole.slice(20));
    expect((await collect(v1.records())).map((r) => r.msg)).to.deep.equal(["second"]);
  });

  it("places a line that is not JSON (a crash trace on stderr) at the time of the line before it, as an error", async () => {
    await writeFile(join(dir, "v1.log"), line(at(1), "info", "a") + "Error: boom\n    at x\n" + line(at(3), "info", "b"));
    await writeFile(join(dir, "v2.log"), line(at(2), "info", "c"));
    const merged = await collect(mergeLogs([file("v1"), file("v2")]));
    expect(merged.map((r) => `${r.level}:${r.msg}`)).to.deep.equal(["info:a", "error:Error: boom", "error:    at x", "info:c", "info:b"]);
    expect(formatLogRecord(merged[0])).to.equal(`${at(1)} v1 INFO  a`);
  });

  it("gives a record whose time is no valid date (1e20, a word) the time of the line before it, and goes on", async () => {
    const bad = (time: unknown, msg: string) => JSON.stringify({ level: "info", time, msg }) + "\n";
    await writeFile(join(dir, "v1.log"), line(at(1), "info", "a") + bad(1e20, "far") + bad("zzz", "word") + line(at(3), "info", "b"));
    await writeFile(join(dir, "v2.log"), line(at(2), "info", "c"));
    const merged = await collect(mergeLogs([file("v1"), file("v2")]));
    expect(merged.map((r) => `${r.time}:${r.msg}`)).to.deep.equal([`${at(1)}:a`, `${at(1)}:far`, `${at(1)}:word`, `${at(2)}:c`, `${at(3)}:b`]);
  });

  it("reads a large file a chunk at a time: the first records come without reading it all", async () => {
    const big = createWriteStream(join(dir, "v1.log"));
    for (let i = 0; i < 200_000; i++) if (!big.write(line(at(i % 60), "info", `record ${i} ${"x".repeat(60)}`))) await once(big, "drain");
    big.end();
    await once(big, "close");
    const v1 = file("v1");
    expect((await collect(mergeLogs([v1]), 3)).map((r) => r.msg.split(" ")[1])).to.deep.equal(["0", "1", "2"]);
    expect(v1.offset).to.be.below(128 * 1024);
  });

  it("--follow: merges the lines added to several files in time order until stopped", async () => {
    await writeFile(join(dir, "v1.log"), line(at(1), "info", "old"));
    const stop = new AbortController();
    const [v1, v2] = [file("v1"), file("v2")];
    const following = followLogs([v1, v2], { signal: stop.signal, pollMs: 20, holdMs: 1000 });
    const seen: string[] = [];
    const done = (async () => {
      for await (const record of following) seen.push(record.msg);
    })();
    const waitFor = async (condition: () => boolean) => {
      for (let i = 0; i < 250 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    await waitFor(() => seen.length === 1);
    // v2's line is older than v1's but is read a poll later: the hold-back still puts it first.
    const now = Date.now();
    const newer = line(new Date(now - 10).toISOString(), "info", "v1 new");
    await appendFile(join(dir, "v1.log"), newer);
    await waitFor(() => v1.offset === line(at(1), "info", "old").length + newer.length);
    await appendFile(join(dir, "v2.log"), line(new Date(now - 20).toISOString(), "info", "v2 new"));
    await waitFor(() => seen.length === 3);
    stop.abort();
    await done;
    expect(seen).to.deep.equal(["old", "v2 new", "v1 new"]);
  });
});
