import { expect } from "chai";
import { codecs } from "@chainsim/protocol";
import { LedgerSync, type LedgerSyncParts } from "../src/consensus/ledger-sync.js";
import { systemClock } from "../src/clock.js";
import { collectingLog } from "./helpers/log.js";

/** State sync believes announced tips only as hints (docs/consensus.md, "State transfer"). */
describe("LedgerSync: a peer's announced tip", () => {
  const clock = { now: 1_000_000 };
  let requests: string[];
  let logs: string[];
  let sync: LedgerSync;

  beforeEach(() => {
    requests = [];
    logs = [];
    const parts = {
      ledgers: { lastHeader: { seq: 5n, hash: new Uint8Array(32) } },
      network: {
        onRequest: () => {},
        broadcast: () => {},
        request: async (peer: string) => {
          requests.push(peer);
          throw new Error("no answer");
        },
      },
      verifier: {},
      log: collectingLog(logs),
      clock: { ...systemClock, now: () => clock.now },
      enqueue: (task: () => Promise<void>) => void task(),
      onSynced: () => {},
    } as unknown as LedgerSyncParts;
    sync = new LedgerSync(parts);
    sync.start();
  });
  afterEach(() => sync.stop());

  const announce = (peer: string, seq: bigint) => sync.onPeerStatus(peer, codecs.ChainStatus.encode({ ledger_seq: seq }));

  it("stops believing a peer that announces ledgers it does not deliver, longer each time", async () => {
    announce("liar", 1_000_000n);
    expect(sync.networkTip).to.equal(1_000_000n);
    sync.considerSync();
    // Started on a peer's word: the primary keeps proposing meanwhile.
    expect(sync.blocksProposals).to.equal(false);
    await syncEnded(sync);
    expect(requests).to.deep.equal(["liar"]);
    expect(logs.at(-1)).to.match(/not believing liar's announced tip for 10 s/);
    announce("liar", 1_000_000n);
    sync.considerSync();
    await syncEnded(sync);
    expect(requests).to.have.length(1);
    expect(sync.networkTip).to.equal(5n);
    clock.now += 10_001;
    announce("liar", 1_000_000n);
    sync.considerSync();
    await syncEnded(sync);
    expect(requests).to.have.length(2);
    expect(logs.at(-1)).to.match(/for 20 s/);
  });

  /** A started LedgerSync at `tip` whose every request `answer` answers. */
  function syncAnsweredBy(tip: { seq: bigint; hash: Uint8Array }, answer: () => Promise<Uint8Array>): LedgerSync {
    const started = new LedgerSync({
      ledgers: { lastHeader: tip },
      network: { onRequest: () => {}, broadcast: () => {}, request: answer },
      verifier: {},
      log: collectingLog(logs),
      clock: { ...systemClock, now: () => clock.now },
      enqueue: (task: () => Promise<void>) => void task(),
      onSynced: () => {},
    } as unknown as LedgerSyncParts);
    started.start();
    return started;
  }

  async function syncEnded(sync: LedgerSync): Promise<void> {
    for (let i = 0; i < 100 && sync.syncing; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(sync.syncing).to.equal(false);
  }

  it("does not hold it against a peer that its answer starts below a tip this validator reached meanwhile", async () => {
    const tip = { seq: 5n, hash: new Uint8Array(32) };
    // The answer arrives after this validator closed ledger 6 by its own commit.
    const answering = syncAnsweredBy(tip, async () => {
      tip.seq = 6n;
      return codecs.SyncResponse.encode({ decisions: [{ seq: 6n }] });
    });
    try {
      answering.onPeerStatus("honest", codecs.ChainStatus.encode({ ledger_seq: 7n }));
      answering.considerSync();
      expect(answering.syncing).to.equal(true);
      await syncEnded(answering);
      expect(tip.seq).to.equal(6n);
      expect(logs.filter((l) => /not believing|where 7 was next/.test(l))).to.deep.equal([]);
    } finally {
      answering.stop();
    }
  });

  it("distrusts a peer whose answer does not decode, and goes on (a rejection here once went unhandled)", async () => {
    const garbling = syncAnsweredBy({ seq: 5n, hash: new Uint8Array(32) }, async () => Uint8Array.of(0xff, 0xff, 0xff));
    try {
      garbling.onPeerStatus("garbler", codecs.ChainStatus.encode({ ledger_seq: 9n }));
      garbling.considerSync();
      await syncEnded(garbling);
      expect(logs.some((l) => /not believing garbler's announced tip .*the answer does not decode/.test(l))).to.equal(true);
    } finally {
      garbling.stop();
    }
  });

  it("forgets a tip that is not announced again", () => {
    announce("gone", 50n);
    expect(sync.networkTip).to.equal(50n);
    clock.now += 3_001;
    expect(sync.networkTip).to.equal(5n);
    sync.considerSync();
    expect(sync.syncing).to.equal(false);
  });

  it("makes a primary wait only for a sync the replica asked for", async () => {
    sync.sync(["v1"]);
    expect(sync.blocksProposals).to.equal(true);
    await syncEnded(sync);
    expect(sync.blocksProposals).to.equal(false);
  });
});
