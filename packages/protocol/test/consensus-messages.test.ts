import { expect } from "chai";
import { codecs, toHex, type PbftMessage } from "../src/index.js";

describe("consensus messages (proto/consensus.proto)", () => {
  it("round-trips a VIEW-CHANGE with nested signed messages through the oneof envelope", () => {
    const vote: PbftMessage = { prepare: { view: 2n, seq: 7n, replica: 1, value_digest: Uint8Array.of(1, 2) } };
    const signedVote = { message: codecs.PbftMessage.encode(vote), signature: Uint8Array.of(9) };
    const viewChange: PbftMessage = {
      view_change: {
        view: 3n,
        stable_seq: 5n,
        stable_digest: Uint8Array.of(7),
        prepared: [{ pre_prepare: signedVote, prepares: [signedVote, signedVote] }],
        replica: 2,
      },
    };
    const wire = codecs.PbftSignedMessage.encode({ message: codecs.PbftMessage.encode(viewChange), signature: Uint8Array.of(1) });
    const decoded = codecs.PbftMessage.decode(codecs.PbftSignedMessage.decode(wire).message!);
    expect(decoded).to.deep.equal(viewChange);
    expect(Object.keys(decoded)).to.deep.equal(["view_change"]);
    expect(codecs.PbftMessage.decode(decoded.view_change!.prepared![0].prepares![1].message!)).to.deep.equal(vote);
  });

  it("keeps a present but empty vote distinct from no body (view 0, seq 0)", () => {
    const empty: PbftMessage = { commit: {} };
    expect(toHex(codecs.PbftMessage.encode(empty))).to.equal("1a00");
    expect(codecs.PbftMessage.decode(codecs.PbftMessage.encode(empty))).to.deep.equal({ commit: {} });
  });
});
