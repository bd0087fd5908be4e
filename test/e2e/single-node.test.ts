import { expect } from "chai";
import {
  ApiError,
  Keypair,
  createAccount,
  expectOk,
  getNonce,
  payCoin,
  sendTransaction,
  setMetadata,
  setPrivilege,
  signTransactionBlob,
  waitForTransaction,
  type ChainsimClient,
} from "@chainsim/client";
import { ErrorCode, codecs, toHex } from "@chainsim/protocol";
import { startTestNetwork, testManifest, waitFor, type TestNetwork } from "../harness/network.js";

/** The end-to-end walk through one real validator process, then SIGKILL and restart. */
describe("e2e: one validator process", function () {
  this.timeout(60_000);
  let net: TestNetwork;
  let client: ChainsimClient;
  let genesis: Keypair;
  const alice = Keypair.generate();
  const bob = Keypair.generate();
  const carol = Keypair.generate();
  const hashes: string[] = [];

  before(async () => {
    net = await startTestNetwork(testManifest("e2e-single", 1));
    client = net.clients[0];
    genesis = Keypair.fromPrivateKey(net.handle.manifest.genesis.account.private_key);
  });
  after(async () => net?.cleanup());

  async function submitted(options: Parameters<typeof sendTransaction>[1]) {
    const { hash } = await sendTransaction(client, options);
    hashes.push(hash);
    const record = await waitForTransaction(client, hash, { timeoutMs: 15_000 });
    return record;
  }

  /** error_code of a signed submission of `operations` from `source` signed by `signers`. */
  async function refusal(signers: Keypair[], operations: ReturnType<typeof payCoin>[], extra: Partial<Parameters<typeof sendTransaction>[1]> = {}) {
    try {
      await sendTransaction(client, { signers, operations, ...extra });
    } catch (error) {
      if (error instanceof ApiError) return error.code;
      throw error;
    }
    return ErrorCode.SUCCESS;
  }

  it("answers hello with the real versions and ports", async () => {
    const hello = await client.hello();
    expect(hello.hash_type).to.equal(0);
    expect(hello.websocket_address).to.equal(Number(net.handle.nodes[0].ws.split(":").pop()));
    expect(hello.ledger_version).to.equal("1000");
  });

  it("creates an account and transfers to it", async () => {
    const created = await submitted({ signers: [genesis], operations: [createAccount(alice.address, { initBalance: 50_000_000n })] });
    expect(created.error_code).to.equal(0);
    const paid = await submitted({ signers: [genesis], operations: [payCoin(alice.address, 25_000_000n)] });
    expect(paid.error_code).to.equal(0);
    const account = expectOk(await client.getAccount(alice.address)).result;
    expect(BigInt(account.balance!)).to.equal(75_000_000n);
    expect(account.nonce).to.equal(undefined); // never sent a transaction: the field is omitted
  });

  it("sets metadata and reads it back", async () => {
    const record = await submitted({ signers: [alice], operations: [setMetadata("greeting", "hello, chain")] });
    expect(record.error_code).to.equal(0);
    const meta = expectOk(await client.getAccountMetaData(alice.address, "greeting")).result as Record<string, { value: string; version: number }>;
    expect(meta.greeting.value).to.equal("hello, chain");
    expect(Number(meta.greeting.version)).to.equal(1);
    const account = expectOk(await client.getAccount(alice.address)).result;
    expect(account.metadatas).to.deep.equal([{ key: "greeting", value: "hello, chain", version: 1 }]);
  });

  it("makes alice a 2-of-3 joint account: enough weight passes, too little is refused with 93", async () => {
    const record = await submitted({
      signers: [alice],
      operations: [
        setPrivilege({
          masterWeight: 1,
          signers: [
            { address: bob.address, weight: 1 },
            { address: carol.address, weight: 1 },
          ],
          txThreshold: 2,
        }),
      ],
    });
    expect(record.error_code).to.equal(0);
    const joint = await submitted({ signers: [bob, carol], source: alice.address, operations: [payCoin(genesis.address, 1_000n)] });
    expect(joint.error_code).to.equal(0);
    expect(await refusal([alice], [payCoin(genesis.address, 1_000n)])).to.equal(ErrorCode.SIGNATURE_WEIGHT_NOT_ENOUGH);
    expect(await refusal([bob], [payCoin(genesis.address, 1_000n)], { source: alice.address })).to.equal(ErrorCode.SIGNATURE_WEIGHT_NOT_ENOUGH);
  });

  it("refuses a wrong nonce (99), a fee below the cost (111), a bad blob (2) and reads an unknown account as 4", async () => {
    const nonce = await getNonce(client, genesis.address);
    expect(await refusal([genesis], [payCoin(alice.address, 1n)], { nonce })).to.equal(ErrorCode.BAD_NONCE);
    expect(await refusal([genesis], [payCoin(alice.address, 1n)], { feeLimit: 100n })).to.equal(ErrorCode.FEE_NOT_ENOUGH);
    const bad = await client.submitTransaction([{ transaction_blob: "0aff", signatures: [] }]);
    expect(bad.results![0].error_code).to.equal(ErrorCode.INVALID_PARAMETER);
    expect(bad.success_count).to.equal(0);
    const notHex = await client.submitTransaction([{ transaction_blob: "not hex", signatures: [] }]);
    expect(notHex.results![0].error_code).to.equal(ErrorCode.INVALID_PARAMETER);
    expect((await client.getAccount(Keypair.generate().address)).error_code).to.equal(ErrorCode.NOT_EXIST);
  });

  it("reports a submitted-then-signed blob per item, with the hash even when refused", async () => {
    const nonce = (await getNonce(client, genesis.address)) + 1n;
    const tx = { source_address: genesis.address, nonce, fee_limit: 1_000_000n, gas_price: 100n, operations: [payCoin(bob.address, 7n)] };
    const blob = codecs.Transaction.encode(tx);
    const unsigned = await client.submitTransaction([
      { transaction_blob: toHex(blob), signatures: await signTransactionBlob(blob, [bob]) },
      { transaction_blob: toHex(blob), signatures: await signTransactionBlob(blob, [genesis]) },
    ]);
    expect(unsigned.results!.map((r) => r.error_code)).to.deep.equal([ErrorCode.SIGNATURE_WEIGHT_NOT_ENOUGH, 0]);
    expect(unsigned.results![0].hash).to.equal(unsigned.results![1].hash);
    expect(unsigned.success_count).to.equal(1);
    hashes.push(unsigned.results![1].hash);
    await waitForTransaction(client, unsigned.results![1].hash);
  });

  it("signs on the node in a dev network: getSignature, then transaction_json with private_keys", async () => {
    const nonce = (await getNonce(client, genesis.address)) + 1n;
    const transaction_json = { source_address: genesis.address, nonce, fee_limit: 1_000_000, gas_price: 100, operations: [{ type: 7, pay_coin: { dest_address: carol.address, amount: 11 } }] };
    const blob = expectOk(await client.getTransactionBlob(transaction_json)).result;
    const signature = expectOk(await client.getSignature(genesis.privateKey, blob.transaction_blob)).result;
    expect(signature.public_key).to.equal(genesis.publicKey);
    const byBlob = await client.submitTransaction([{ transaction_blob: blob.transaction_blob, signatures: [{ sign_data: signature.sign_data, public_key: signature.public_key }] }]);
    expect(byBlob.results![0]).to.deep.include({ error_code: 0, hash: blob.hash });
    const byKeys = await client.submitTransaction([{ transaction_json: { ...transaction_json, nonce: nonce + 1n }, private_keys: [genesis.privateKey] }]);
    expect(byKeys.success_count).to.equal(1);
    for (const hash of [blob.hash, byKeys.results![0].hash]) expect((await waitForTransaction(client, hash)).error_code).to.equal(0);
    expect(BigInt(expectOk(await client.getAccount(carol.address)).result.balance!)).to.equal(22n);
  });

  it("finds records by hash and by ledger, and ledgers by seq", async () => {
    const record = expectOk(await client.getTransactionHistory({ hash: hashes[0] })).result;
    expect(record.total_count).to.equal(1);
    const seq = record.transactions[0].ledger_seq;
    const inLedger = expectOk(await client.getTransactionHistory({ ledger_seq: seq })).result;
    expect(inLedger.transactions.map((t) => t.hash)).to.include(hashes[0]);
    const ledger = expectOk(await client.getLedger({ seq, with_validator: true, with_leader: true, with_fee: true })).result;
    expect(ledger.header.seq).to.equal(seq);
    expect(ledger.validators).to.deep.equal([net.handle.nodes[0].address]);
    expect(ledger.leader).to.equal(net.handle.nodes[0].address);
    expect(ledger.fees).to.deep.equal({ base_reserve: 0, gas_price: 100 });
    expect((await client.getLedger({ seq: 1_000_000 })).error_code).to.equal(ErrorCode.NOT_EXIST);
  });

  it("keeps every balance, nonce and record across SIGKILL and restart", async () => {
    const accounts = [genesis, alice, bob, net.handle.nodes[0]].map((k) => k.address);
    const before = await Promise.all(accounts.map(async (a) => expectOk(await client.getAccount(a)).result));
    const lastSeq = expectOk(await client.getLedger()).result.header.seq;
    await net.handle.restart("v1", { signal: "SIGKILL" });
    const after = await Promise.all(accounts.map(async (a) => expectOk(await client.getAccount(a)).result));
    expect(after).to.deep.equal(before);
    for (const hash of hashes) expect(expectOk(await client.getTransactionHistory({ hash })).result.total_count).to.equal(1);
    const header = expectOk(await client.getLedger({ seq: lastSeq })).result.header;
    expect(header.seq).to.equal(lastSeq);
    // …and it goes on closing ledgers and accepting transactions.
    await waitFor("a ledger after the restart", async () => {
      const seq = expectOk(await client.getLedger()).result.header.seq;
      return BigInt(seq) > BigInt(lastSeq) ? seq : undefined;
    });
    const record = await submitted({ signers: [genesis], operations: [payCoin(bob.address, 5n)] });
    expect(record.error_code).to.equal(0);
  });
});
