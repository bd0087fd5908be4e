import { expect } from "chai";
import { CENSORSHIP_STRIKES, CensorshipWatch } from "../src/consensus/censorship-watch.js";

const room = { included: 3, full: false };

/** A primary that keeps proposing but leaves out a transaction (docs/consensus.md, "Censorship"). */
describe("CensorshipWatch", () => {
  const tx = { hashHex: "ab".repeat(32), arrival: 0 };

  it("suspects the primary after ledgers with room closed without an overdue transaction", () => {
    const watch = new CensorshipWatch(6000, 50);
    const verdicts = Array.from({ length: CENSORSHIP_STRIKES }, (_, i) => watch.ledgerClosed(0, room, tx, 7000 + i * 500));
    expect(verdicts.slice(0, -1)).to.deep.equal(Array(CENSORSHIP_STRIKES - 1).fill(undefined));
    expect(verdicts.at(-1)).to.match(/the primary of view 0 closed 3 ledgers with room without transaction abab/);
  });

  it("raises one suspicion per transaction at most (one that no primary includes stays out)", () => {
    const watch = new CensorshipWatch(6000, 50);
    for (let i = 0; i < CENSORSHIP_STRIKES; i++) watch.ledgerClosed(0, room, tx, 7000 + i);
    for (let i = 0; i < 3 * CENSORSHIP_STRIKES; i++) expect(watch.ledgerClosed(1, room, tx, 9000 + i)).to.equal(undefined);
  });

  it("never suspects a busy primary (full by count or by steps), a young transaction, a new view, or a transaction that went in", () => {
    const watch = new CensorshipWatch(6000, 50);
    for (let i = 0; i < 10; i++) expect(watch.ledgerClosed(0, { included: 50, full: false }, tx, 7000 + i)).to.equal(undefined);
    // A ledger that spent its contract steps had no room, however few transactions it holds.
    for (let i = 0; i < 10; i++) expect(watch.ledgerClosed(0, { included: 1, full: true }, tx, 7000 + i)).to.equal(undefined);
    for (let i = 0; i < 10; i++) expect(watch.ledgerClosed(0, room, tx, 5000 + i)).to.equal(undefined);
    // The strikes count per view and per transaction.
    expect(watch.ledgerClosed(0, room, tx, 7000)).to.equal(undefined);
    expect(watch.ledgerClosed(0, room, tx, 7001)).to.equal(undefined);
    expect(watch.ledgerClosed(1, room, tx, 7002)).to.equal(undefined);
    expect(watch.ledgerClosed(1, room, undefined, 7003)).to.equal(undefined);
    expect(watch.ledgerClosed(1, room, tx, 7004)).to.equal(undefined);
    expect(watch.ledgerClosed(1, room, { ...tx, hashHex: "cd".repeat(32) }, 7005)).to.equal(undefined);
  });
});
