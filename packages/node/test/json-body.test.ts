// Large request bodies are parsed off the event loop (docs/api.md, "Request bodies"): a 15 MiB body held
// it, and consensus with it, for 4.3 s (twenty-third review of 2026-11-26).
import { expect } from "chai";
import { ChainError, ErrorCode, parseJson } from "@chainsim/protocol";
import { JsonBodyParser, OFF_THREAD_CHARS } from "../src/http/json-body.js";

/** A body of about `chars` characters with int64 values past 2^53 in it. */
function body(chars: number): string {
  const item = { amount: 100000000000000001n, blob: "ab".repeat(100) };
  const count = Math.ceil(chars / 240);
  return `{"items":[${Array(count).fill(`{"amount":${item.amount},"blob":"${item.blob}"}`).join(",")}]}`;
}

/** Parses `text`, counting the event loop's timer turns until the answer: 0 when it was parsed on this thread. */
async function parseCountingTurns(parser: JsonBodyParser, text: string): Promise<{ value: unknown; turns: number }> {
  let turns = 0;
  const timer = setInterval(() => turns++, 0);
  try {
    const value = await parser.parse(text);
    return { value, turns };
  } finally {
    clearInterval(timer);
  }
}

describe("JsonBodyParser", () => {
  const parsers: JsonBodyParser[] = [];
  const parser = (heapMb?: number) => {
    const made = new JsonBodyParser(heapMb);
    parsers.push(made);
    return made;
  };
  after(async () => {
    await Promise.all(parsers.map((p) => p.close()));
  });

  it("parses a large body in its thread, exactly as parseJson (bigints kept), while the event loop turns", async () => {
    const text = body(2 * OFF_THREAD_CHARS);
    const { value, turns } = await parseCountingTurns(parser(), text);
    expect(value).to.deep.equal(parseJson(text));
    expect((value as { items: { amount: bigint }[] }).items[0].amount).to.equal(100000000000000001n);
    expect(turns).to.be.greaterThan(0);
  });

  it("parses a small body on the event loop's thread, with no wait", async () => {
    const text = body(OFF_THREAD_CHARS / 2);
    const { value, turns } = await parseCountingTurns(parser(), text);
    expect(value).to.deep.equal(parseJson(text));
    expect(turns).to.equal(0);
  });

  it("answers a large body that is not JSON with the parser's error", async () => {
    const error = await parser()
      .parse(body(2 * OFF_THREAD_CHARS).slice(0, -1))
      .catch((e: Error) => e);
    expect(error).to.be.instanceOf(SyntaxError);
    expect((error as Error).message).to.match(/position \d+/);
  });

  it("parses large bodies one at a time, four waiting, and refuses a sixth with 114", async () => {
    const bodies = parser();
    const text = body(OFF_THREAD_CHARS + 1000);
    const answers = await Promise.allSettled(Array.from({ length: 6 }, () => bodies.parse(text)));
    expect(answers.map((a) => a.status)).to.deep.equal(["fulfilled", "fulfilled", "fulfilled", "fulfilled", "fulfilled", "rejected"]);
    const refused = (answers[5] as PromiseRejectedResult).reason as ChainError;
    expect(refused.code).to.equal(ErrorCode.TX_POOL_FULL);
    expect(refused.message).to.equal("this validator has 4 large request bodies waiting: retry later");
  });

  it("answers 2 for a body whose parse outgrows the thread's heap, and replaces the thread", async () => {
    const bodies = parser(48);
    const huge = `[${Array(8 * OFF_THREAD_CHARS / 8).fill("[1,[2]]").join(",")}]`;
    const error = (await bodies.parse(huge).catch((e: Error) => e)) as ChainError;
    expect(error).to.be.instanceOf(ChainError);
    expect(error.code).to.equal(ErrorCode.INVALID_PARAMETER);
    expect(error.message).to.match(/^the request body could not be parsed: /);
    const text = body(OFF_THREAD_CHARS + 1000);
    expect(await bodies.parse(text)).to.deep.equal(parseJson(text));
  });
});
