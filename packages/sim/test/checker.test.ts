import { expect } from "chai";
import { checkAgreement, checkLiveness, checkNoLoss, checkValidity, commitLatency, livenessBoundMs, viewChanges } from "../src/invariants/checker.js";
import type { History, LedgerData, NodeChain, StatusSample } from "../src/invariants/history.js";

const SIG = { public_key: "pk", sign_data: "good" };
const verify = (_blob: string, sig: { sign_data: string }) => sig.sign_data === "good";

function ledger(seq: number, txs: string[] = [], hash = `h${seq}`): LedgerData {
  return { seq, hash, close_ms: 1000 + seq * 100, txs: txs.map((t) => ({ hash: t, signatures: [SIG] })) };
}

/** Three nodes with the same ledgers 1..4; tx a at seq 2, b at seq 3. */
function chains(): NodeChain[] {
  return ["v1", "v2", "v3"].map((name) => ({ name, ledgers: [ledger(1), ledger(2, ["a"]), ledger(3, ["b"]), ledger(4)] }));
}

function history(accepted: string[] = ["a", "b"]): History {
  const txs = Object.fromEntries(["a", "b", "c"].map((hash) => [hash, { hash, blob: "00", signatures: [SIG], origin: "load" as const }]));
  return { txs, submissions: accepted.map((hash, i) => ({ hash, node: "v1", sent_ms: 1000 + i, error_code: 0 })) };
}

describe("scenario checker (pure, over recorded histories)", () => {
  it("agreement holds when every shared seq has one hash, and fails on an invented fork", () => {
    expect(checkAgreement(chains()).ok).to.equal(true);
    const forked = chains();
    forked[2].ledgers[2] = ledger(3, ["b"], "other");
    const verdict = checkAgreement(forked);
    expect(verdict.ok).to.equal(false);
    expect(verdict.detail).to.match(/seq 3 differs: v1,v2 h3 vs v3 other/);
  });

  it("agreement compares only the seqs two nodes both have (a node behind is no fork)", () => {
    const behind = chains();
    behind[1].ledgers = behind[1].ledgers.slice(0, 2);
    expect(checkAgreement(behind).ok).to.equal(true);
  });

  it("agreement fails when a node's ledgers could not be read (nothing it holds may go unchecked)", () => {
    const verdict = checkAgreement(chains(), ["v1", "v2", "v3", "v4"]);
    expect(verdict.ok).to.equal(false);
    expect(verdict.detail).to.match(/the ledgers of v4 could not be read/);
  });

  it("validity fails on a transaction nobody submitted and on a bad signature", () => {
    expect(checkValidity(history(), chains(), verify).ok).to.equal(true);
    const foreign = chains();
    foreign[0].ledgers[3] = ledger(4, ["zz"]);
    expect(checkValidity(history(), foreign, verify).detail).to.match(/never submitted/);
    const badSig = chains();
    badSig[1].ledgers[1].txs[0].signatures = [{ public_key: "pk", sign_data: "bad" }];
    expect(checkValidity(history(), badSig, verify).ok).to.equal(false);
  });

  it("no_loss fails when an accepted transaction is in no ledger", () => {
    expect(checkNoLoss(history(), chains()).ok).to.equal(true);
    const verdict = checkNoLoss(history(["a", "b", "c"]), chains());
    expect(verdict.ok).to.equal(false);
    expect(verdict.detail).to.match(/c was accepted but is in no ledger/);
  });

  it("no_loss accepts a transaction refused later with a recorded reason", () => {
    const h = history(["a", "b", "c"]);
    h.submissions.push({ hash: "c", node: "v2", sent_ms: 5000, error_code: 99, error_desc: "nonce behind" });
    expect(checkNoLoss(h, chains()).ok).to.equal(true);
  });

  it("no_loss fails on a duplicate, in one chain or at two seqs", () => {
    const twice = chains();
    twice[0].ledgers[3] = ledger(4, ["a"]);
    expect(checkNoLoss(history(), twice).detail).to.match(/a is 2 times in v1's ledgers/);
    const moved = chains();
    moved[2].ledgers[1] = ledger(2);
    moved[2].ledgers[3] = ledger(4, ["a"]);
    expect(checkNoLoss(history(), moved).detail).to.match(/a is at seqs 2 and 4/);
  });

  it("liveness measures recovery after a heal and fails on a stall", () => {
    const samples: StatusSample[] = [];
    for (let t = 0; t <= 10_000; t += 500) {
      samples.push({ at_ms: t, node: "v1", seq: 10 + Math.floor(t / 1000), view: 0 });
      // v2 is down until 3000, then catches up at 4000
      samples.push({ at_ms: t, node: "v2", seq: t < 3000 ? undefined : t < 4000 ? 5 : 10 + Math.floor(t / 1000), view: t < 3000 ? undefined : 1 });
    }
    const record = { node: "v2", kind: "kill", at_ms: 1000, healed_ms: 3000, honest: ["v1", "v2"] };
    const { invariant, recoveries } = checkLiveness(samples, [record], 5000);
    expect(invariant.ok).to.equal(true);
    expect(recoveries[0].recovery_ms).to.equal(1000); // at 4000 both are past seq 13 (v1's seq at the heal)

    const stalled = samples.map((s) => (s.at_ms >= 3000 ? { ...s, seq: 13 } : s));
    const stall = checkLiveness(stalled, [record], 5000);
    expect(stall.invariant.ok).to.equal(false);
    expect(stall.recoveries[0].recovery_ms).to.equal(undefined);

    const failed = checkLiveness(samples, [record], 5000, ["v2: did not answer /hello"]);
    expect(failed.invariant).to.deep.equal({ ok: false, detail: "restart failed: v2: did not answer /hello" });
  });

  it("reports view changes, commit latency and the liveness bound", () => {
    expect(viewChanges([{ at_ms: 0, node: "v1", view: 0 }, { at_ms: 1, node: "v1", view: 2 }, { at_ms: 1, node: "v2", view: 1 }])).to.equal(2);
    expect(commitLatency(history(), chains())).to.deep.equal({ p50: 299, p99: 299, committed: 2 }); // a: 1200-1000, b: 1300-1001
    expect(livenessBoundMs(4, { view_timeout_ms: 1000, empty_close_interval_ms: 2000 })).to.equal(8000);
  });
});
