import { randomBytes } from "node:crypto";
import { sign, type Body } from "@chainsim/consensus";
import { encodeFrame, MAX_FRAME_BYTES, MAX_REQUEST_BYTES, REQUEST_PROTOCOL } from "@chainsim/node";
import { OperationType, SignedTransaction, codecs, decodePrivateKey, sha256, toHex } from "@chainsim/protocol";
import { NodeEd25519Signer } from "@chainsim/protocol/node-crypto";
import { expect } from "chai";
import { HostilePeer, type DialTarget } from "../harness/hostile-peer.js";
import { dumpLogsOnFailure, startTestNetwork, testManifest, waitFor, type TestNetwork } from "../harness/network.js";

const CKP_INTERVAL = 2;
const PENALTY_THRESHOLD = 20;
const BAN_MS = 4000;
const CONSENSUS = 0;
const TXS = 1;
const STATUS = 2;

interface PeerRow {
  address: string;
  messages_in: number;
  misbehaviour: number;
  banned_until: string;
}

/**
 * Hostile peers against three honest validators (docs/networks.md, "Hostile peers"): a stranger is refused,
 * and a process holding the fourth validator's key (the real one stopped) sends garbage, truncated,
 * oversized, replayed and far-future messages and transactions with forged signatures; each is counted, past the threshold it is banned for
 * BAN_MS and may come back after, and the three keep closing ledgers (f = 1) throughout.
 */
describe("e2e: hostile peers cannot hurt a validator", function () {
  // starting validators took a minute on a loaded 2-core machine
  this.timeout(900_000);
  let net: TestNetwork;
  let hostile: HostilePeer;
  let target: DialTarget;
  let posingAs: string;
  let signAs: (body: Body) => Uint8Array;

  before(async () => {
    // Lower settings than the defaults, so that bans begin and end within the test.
    const limits = ["[limits]", `p2p_penalty_threshold = ${PENALTY_THRESHOLD}`, `p2p_ban_ms = ${BAN_MS}`];
    const consensus = { close_interval_ms: 200, empty_close_interval_ms: 300, view_timeout_ms: 1000, ckp_interval: CKP_INTERVAL };
    net = await startTestNetwork(testManifest("e2e-hostile", 4, consensus, limits), { readyTimeoutMs: 180_000 });
    const [v1, , , v4] = net.handle.nodes;
    await net.handle.stopNode("v4");
    posingAs = v4.address;
    target = { p2p: v1.p2p, publicKey: net.handle.manifest.nodes[0].account.public_key };
    hostile = await HostilePeer.start(v4.config.validator.private_key);
    const signer = new NodeEd25519Signer(decodePrivateKey(v4.config.validator.private_key));
    const crypto = { sign: (bytes: Uint8Array) => signer.signNow(bytes), verify: () => true, digest: (value: Uint8Array) => toHex(sha256(value)) };
    signAs = (body) => encodeFrame(CONSENSUS, codecs.PbftSignedMessage.encode(sign(crypto, body).wire));
  });
  after(async () => {
    await hostile?.stop();
    await net?.cleanup();
  });
  dumpLogsOnFailure(() => net);

  const ledgerSeq = async (i: number): Promise<number> => Number((await net.clients[i].getLedger()).result!.header.seq as unknown as string | number);
  const peerRows = async (i: number): Promise<PeerRow[]> => {
    const status = (await net.clients[i].getModulesStatus()) as unknown as { peer_manager: { consensus_network: { peers: PeerRow[] } } };
    return status.peer_manager.consensus_network.peers;
  };
  /** v1's row for the validator the hostile peer poses as. */
  const hostileRow = async (): Promise<PeerRow> => (await peerRows(0)).find((row) => row.address === posingAs)!;

  let seqsBefore: number[];
  beforeEach(async () => {
    // each case starts with the previous ban over
    await waitFor("v1 to lift the ban", async () => ((await hostileRow()).banned_until === "" ? true : undefined), 30_000);
    seqsBefore = await Promise.all([0, 1, 2].map(ledgerSeq));
  });
  afterEach(async function () {
    if (this.currentTest?.state === "failed") return;
    // the honest three closed ledgers meanwhile, and none of them holds anything against another
    await waitFor("the honest validators to close two more ledgers", async () => ((await Promise.all([0, 1, 2].map(ledgerSeq))).every((seq, i) => seq >= seqsBefore[i] + 2) ? true : undefined), 60_000);
    for (const i of [0, 1, 2]) {
      for (const row of (await peerRows(i)).filter((r) => r.address !== posingAs)) expect(row, `v${i + 1}'s view of ${row.address}`).to.include({ misbehaviour: 0, banned_until: "" });
    }
  });

  /** Waits for v1 to count `offences` more and ban the hostile peer; its connection is then closed. */
  async function expectBanned(before: number, offences: number): Promise<void> {
    const row = await waitFor("v1 to ban the hostile peer", async () => {
      const r = await hostileRow();
      return r.banned_until !== "" && r.misbehaviour >= before + offences ? r : undefined;
    });
    expect(row.misbehaviour).to.be.at.least(before + offences);
    await waitFor("v1 to hang up on it", async () => (hostile.connections(target) === 0 ? true : undefined));
    await expectRefused();
  }

  async function expectRefused(): Promise<void> {
    let opened = false;
    try {
      (await hostile.open(target)).abort(new Error("should have been refused"));
      opened = true;
    } catch {
      // refused: the connection gater denies a banned peer, or a stranger
    }
    expect(opened, "a connection was accepted").to.equal(false);
  }

  it("refuses a libp2p peer that is not a validator: it cannot even open a stream", async () => {
    const stranger = await HostilePeer.start();
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        let opened = false;
        try {
          const stream = await stranger.open(target);
          opened = true;
          stream.send(encodeFrame(STATUS, codecs.ChainStatus.encode({ ledger_seq: 10n ** 9n })));
        } catch {
          // refused, as it should be
        }
        expect(opened, "a stranger opened a message stream").to.equal(false);
      }
      expect(stranger.connections(target)).to.equal(0);
      expect((await peerRows(0)).length).to.equal(3);
      // the stranger's announced tip was never processed: v1 believes no such ledger
      const modules = (await net.clients[0].getModulesStatus()) as unknown as { ledger_manager: { chain_max_ledger_seq: number } };
      expect(Number(modules.ledger_manager.chain_max_ledger_seq)).to.be.below(10 ** 9);
    } finally {
      await stranger.stop();
    }
  });

  it("ignores garbage from a validator, bans it past the threshold, and lets it back after the ban", async () => {
    const before = (await hostileRow()).misbehaviour;
    const stream = await hostile.open(target);
    // well framed, but nothing that decodes: consensus, txs and status channels
    for (let i = 0; i < 15; i++) stream.send(encodeFrame(i % 3, randomBytes(100)));
    await expectBanned(before, 4);
    await waitFor("the ban to end", async () => ((await hostileRow()).banned_until === "" ? true : undefined), 30_000);
    // back: a well-formed status message is delivered again
    const delivered = (await hostileRow()).messages_in;
    const again = await hostile.open(target);
    again.send(encodeFrame(STATUS, codecs.ChainStatus.encode({ ledger_seq: 1n })));
    await waitFor("its message to be delivered", async () => ((await hostileRow()).messages_in > delivered ? true : undefined));
    await again.close();
  });

  it("counts a truncated frame (the stream ends inside it) and bans a peer that keeps doing it", async () => {
    const before = (await hostileRow()).misbehaviour;
    const truncated = new Uint8Array(4 + 10);
    new DataView(truncated.buffer).setUint32(0, 1000);
    await hostile.sendOnce(target, truncated);
    await waitFor("v1 to count the truncated frame", async () => ((await hostileRow()).misbehaviour === before + 1 ? true : undefined));
    for (let i = 0; i < 6; i++) await hostile.sendOnce(target, truncated).catch(() => undefined); // refused once banned
    await expectBanned(before, 4);
  });

  it("drops a stream announcing a frame over MAX_FRAME_BYTES and bans a peer that keeps doing it", async () => {
    const before = (await hostileRow()).misbehaviour;
    const oversized = new Uint8Array(4 + 1000);
    new DataView(oversized.buffer).setUint32(0, MAX_FRAME_BYTES + 1);
    for (let i = 0; i < 3; i++) await hostile.sendOnce(target, oversized).catch(() => undefined);
    await expectBanned(before, 2);
  });

  it("drops a request stream announcing more than MAX_REQUEST_BYTES and bans a peer that keeps doing it", async () => {
    // Sync requests are a few bytes: a large one held 32 MiB per stream for ever (review of 2026-11-27).
    const before = (await hostileRow()).misbehaviour;
    const oversized = new Uint8Array(4 + 1000);
    new DataView(oversized.buffer).setUint32(0, MAX_REQUEST_BYTES + 1);
    for (let i = 0; i < 3; i++) await hostile.sendOnce(target, oversized, REQUEST_PROTOCOL).catch(() => undefined);
    await expectBanned(before, 2);
  });

  it("refuses transactions with forged signatures passed on by a validator, and bans a peer that keeps doing it", async () => {
    // An honest validator verifies a transaction before passing it on: a forged signature is the sender's doing.
    const before = (await hostileRow()).misbehaviour;
    const genesis = net.handle.manifest.genesis.account;
    const stream = await hostile.open(target);
    const forged: string[] = [];
    for (let nonce = 1n; nonce <= 8n; nonce++) {
      const blob = codecs.Transaction.encode({
        source_address: genesis.address,
        nonce,
        fee_limit: 1_000_000n,
        gas_price: 100n,
        operations: [{ type: OperationType.PAY_COIN, pay_coin: { dest_address: posingAs, amount: 10n ** 9n } }],
      });
      const tx = new SignedTransaction(blob, [{ public_key: genesis.public_key, sign_data: randomBytes(64) }]);
      forged.push(tx.hashHex);
      stream.send(encodeFrame(TXS, codecs.TxBatch.encode({ txs: [tx.env()] })));
    }
    await expectBanned(before, 4);
    // none of them reached a pool, or a ledger: two at least have closed since the case began
    await waitFor("two more ledgers on v1", async () => ((await ledgerSeq(0)) >= seqsBefore[0] + 2 ? true : undefined), 60_000);
    for (const i of [0, 1, 2]) {
      for (const hash of forged) {
        expect((await net.clients[i].getTransactionHistory({ hash })).error_code, `v${i + 1}: ${hash}`).to.not.equal(0);
        expect((await net.clients[i].getTransactionCache(hash)).error_code, `v${i + 1}: ${hash}`).to.not.equal(0);
      }
    }
  });

  it("ignores consensus messages replayed from a window below the stable checkpoint, and bans a peer that floods them", async () => {
    // PREPARE at seq 1 is replayed once the stable checkpoint is at 1 + 2 × CKP_INTERVAL or later
    await waitFor("a stable checkpoint past the window", async () => ((await ledgerSeq(0)) > 2 + 4 * CKP_INTERVAL ? true : undefined), 60_000);
    const before = (await hostileRow()).misbehaviour;
    const replayed = signAs({ kind: "prepare", view: 0, seq: 1, replica: 3, digest: "00".repeat(32) });
    const stream = await hostile.open(target);
    for (let i = 0; i < PENALTY_THRESHOLD + 5; i++) stream.send(replayed);
    await expectBanned(before, PENALTY_THRESHOLD);
  });

  it("ignores consensus messages beyond the far-future bound, in ledgers and in views, and bans a flooding peer", async () => {
    const before = (await hostileRow()).misbehaviour;
    const tip = await ledgerSeq(0);
    const stream = await hostile.open(target);
    for (let i = 0; i < PENALTY_THRESHOLD + 5; i++) {
      const body: Body = i % 2 === 0
        ? { kind: "prepare", view: 0, seq: tip + 10_000 + i, replica: 3, digest: "00".repeat(32) }
        : { kind: "view-change", view: 1_000_000 + i, stableSeq: 1, stableDigest: "", checkpointProof: [], prepared: [], replica: 3 };
      stream.send(signAs(body));
    }
    await expectBanned(before, PENALTY_THRESHOLD);
    // nothing of it reached the replica: no instance that far ahead
    const info = (await net.clients[0].getConsensusInfo()) as unknown as Record<string, unknown>;
    expect(JSON.stringify(info)).to.not.include(String(tip + 10_000));
  });
});
