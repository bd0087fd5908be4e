// callContract and testTransaction wait their turn (docs/contracts.md §13, "Queries"): fifty full-budget
// queries at once starved each other past the clock guard (twenty-third review of 2026-11-26). Large request
// bodies wait theirs the same way (docs/api.md, "Request bodies").
import { expect } from "chai";
import { ChainError, ErrorCode } from "@chainsim/protocol";
import { WorkQueue } from "../src/work-queue.js";

describe("the work queue", () => {
  /** A query that runs until `finish` is called; `started` tells whether it began. */
  function held() {
    let finish!: (value: string) => void;
    const query = { started: false, finish: (value: string) => finish(value) };
    const run = () => {
      query.started = true;
      return new Promise<string>((resolve) => (finish = resolve));
    };
    return { query, run };
  }

  it("runs `concurrency` queries at once and the rest in arrival order, refusing with 114 past `maxWaiting`", async () => {
    const queue = new WorkQueue(2, 2, "contract queries");
    const [a, b, c, d] = [held(), held(), held(), held()];
    const answers = [a, b, c, d].map((h) => queue.run(h.run));
    const refused = await queue.run(async () => "never").catch((e: ChainError) => e);
    expect(refused).to.be.instanceOf(ChainError);
    expect((refused as ChainError).code).to.equal(ErrorCode.TX_POOL_FULL);
    expect((refused as ChainError).message).to.equal("this validator has 2 contract queries waiting: retry later");
    expect([a, b, c, d].map((h) => h.query.started)).to.deep.equal([true, true, false, false]);
    b.query.finish("b");
    await answers[1];
    expect([c.query.started, d.query.started]).to.deep.equal([true, false]);
    a.query.finish("a");
    await answers[0];
    c.query.finish("c");
    d.query.finish("d");
    expect(await Promise.all(answers)).to.deep.equal(["a", "b", "c", "d"]);
  });

  it("frees the slot of a query that fails", async () => {
    const queue = new WorkQueue(1, 1, "contract queries");
    const failing = queue.run(async () => Promise.reject(new Error("boom")));
    const after = queue.run(async () => "ran");
    expect(await failing.catch((e: Error) => e.message)).to.equal("boom");
    expect(await after).to.equal("ran");
    expect(await queue.run(async () => "free")).to.equal("free");
  });

  it("drops waiting work whose client went away: it never runs, and the next in line gets the slot", async () => {
    const queue = new WorkQueue(1, 4, "contract queries");
    const [a, b, c] = [held(), held(), held()];
    const gone = new AbortController();
    const first = queue.run(a.run);
    const abandoned = queue.run(b.run, gone.signal);
    const third = queue.run(c.run, new AbortController().signal);
    gone.abort();
    expect(await abandoned.catch((e: Error) => e.message)).to.equal("abandoned while waiting among the contract queries");
    a.query.finish("a");
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    expect([b.query.started, c.query.started]).to.deep.equal([false, true]);
    c.query.finish("c");
    expect(await third).to.equal("c");
    // Work already running is not stopped by its signal, and a signal that fires after it ran changes nothing.
    const late = new AbortController();
    const d = held();
    const running = queue.run(d.run, late.signal);
    late.abort();
    d.query.finish("d");
    expect(await running).to.equal("d");
  });
});
