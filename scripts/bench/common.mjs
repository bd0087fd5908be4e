// Shared by the benchmark scripts: a network of the given manifest on free ports in a temporary directory,
// funded sender accounts, pre-signed transactions submitted in batches, and the wait until the pool drains.
import { launchTemporaryNetwork, loadManifest } from "@chainsim/cli";
import { ChainsimClient, Keypair, createAccount, sendTransaction, waitForTransaction } from "@chainsim/client";
import { addressFromPublicKey, codecs, devKeySeed, signBlob, toHex } from "@chainsim/protocol";
import { NodeEd25519Signer } from "@chainsim/protocol/node-crypto";

export async function withNetwork(manifestPath, run) {
  const manifest = await loadManifest(manifestPath);
  const network = await launchTemporaryNetwork(() => manifest);
  try {
    const clients = network.handle.nodes.map((node) => new ChainsimClient(node.http));
    const genesis = Keypair.fromPrivateKey(manifest.genesis.account.private_key);
    return await run({ client: clients[0], genesis, network: { handle: network.handle, clients } });
  } finally {
    await network.cleanup();
  }
}

/** `count` sender accounts (node:crypto signers, fast), created and funded by the genesis account. */
export async function senders(client, genesis, count) {
  const signers = Array.from({ length: count }, (_, i) => new NodeEd25519Signer(devKeySeed("bench", `sender-${i}`)));
  const addresses = signers.map((s) => addressFromPublicKey(s.publicKey));
  for (let i = 0; i < count; i += 100) {
    const operations = addresses.slice(i, i + 100).map((a) => createAccount(a, { initBalance: 10_000_000_000n }));
    const record = await waitForTransaction(client, (await sendTransaction(client, { signers: [genesis], operations, feeLimit: 100_000_000n })).hash);
    if (record.error_code !== 0) throw new Error(`funding failed: ${record.error_desc}`);
  }
  return signers.map((signer, i) => ({ signer, address: addresses[i] }));
}

/** Signs `perSender` transactions for each sender (nonces 1…), built by `operation(sender, i)`. */
export async function signAll(accounts, perSender, operation, firstNonce = 1) {
  const items = [];
  for (let nonce = firstNonce; nonce < firstNonce + perSender; nonce++) {
    for (const [i, account] of accounts.entries()) {
      const tx = { source_address: account.address, nonce: BigInt(nonce), fee_limit: 1_000_000n, gas_price: 100n, operations: [operation(account, i)] };
      const blob = codecs.Transaction.encode(tx);
      items.push({ transaction_blob: toHex(blob), signatures: [await signBlob(account.signer, blob)] });
    }
  }
  return items;
}

/**
 * Submits in batches of 500, spread over the network's nodes (round robin, one batch per node at a time),
 * and waits until every node's pool is empty; returns accepted count and timings.
 */
export async function submitAndDrain(network, items) {
  const { clients } = network;
  const started = performance.now();
  let accepted = 0;
  const batches = [];
  for (let i = 0; i < items.length; i += 500) batches.push(items.slice(i, i + 500));
  for (let i = 0; i < batches.length; i += clients.length) {
    const answers = await Promise.all(batches.slice(i, i + clients.length).map((batch, k) => clients[k].submitTransaction(batch)));
    accepted += answers.reduce((sum, answer) => sum + answer.success_count, 0);
  }
  const submitted = performance.now();
  const deadline = submitted + 600_000;
  const pooled = async () => (await Promise.all(clients.map((c) => c.getTxCacheSize()))).reduce((sum, size) => sum + size.queue_size, 0);
  while ((await pooled()) > 0) {
    if (performance.now() > deadline) throw new Error("the pools did not drain within 10 minutes");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const done = performance.now();
  return { accepted, submitMs: Math.round(submitted - started), totalMs: Math.round(done - started), perSecond: Math.round(accepted / ((done - started) / 1000)) };
}
