import { expect } from "chai";
import { OFFENCE_POINTS, PeerPenalties } from "../../src/index.js";

describe("PeerPenalties", () => {
  const clock = { now: 1_000_000 };
  const penalties = () => new PeerPenalties({ threshold: 20, banMs: 5_000 }, () => clock.now);

  it("bans a peer whose offences reach the threshold, for the ban duration, then lets it back with a clean score", () => {
    const p = penalties();
    for (let i = 0; i < 3; i++) expect(p.penalize("a", "garbage")).to.equal(false);
    expect(p.penalize("a", "garbage")).to.equal(true);
    expect(p.banned("a")).to.equal(true);
    expect(p.conduct("a")).to.deep.equal({ misbehaviour: 4, penaltyScore: 0, bannedUntil: clock.now + 5_000 });
    clock.now += 5_000;
    expect(p.banned("a")).to.equal(false);
    expect(p.conduct("a")).to.include({ misbehaviour: 4, penaltyScore: 0, bannedUntil: null });
  });

  it("counts offences during a ban without extending it", () => {
    const p = penalties();
    p.penalize("a", "oversized");
    p.penalize("a", "oversized");
    const until = p.conduct("a").bannedUntil;
    clock.now += 1_000;
    expect(p.penalize("a", "oversized")).to.equal(false);
    expect(p.conduct("a")).to.include({ misbehaviour: 3, bannedUntil: until });
  });

  it("drains one point a second, so rare slips of an honest peer never add up to a ban", () => {
    const p = penalties();
    for (let i = 0; i < 100; i++) {
      expect(p.penalize("a", "replayed")).to.equal(false);
      clock.now += 1_000 * OFFENCE_POINTS.replayed;
    }
    expect(p.conduct("a")).to.include({ misbehaviour: 100, bannedUntil: null });
    expect(p.conduct("a").penaltyScore).to.equal(0);
  });

  it("keeps each peer's score apart and bounded by the threshold", () => {
    const p = penalties();
    p.penalize("a", "truncated");
    expect(p.conduct("a").penaltyScore).to.equal(OFFENCE_POINTS.truncated);
    expect(p.conduct("b")).to.deep.equal({ misbehaviour: 0, penaltyScore: 0, bannedUntil: null });
    expect(p.banned("b")).to.equal(false);
  });
});
