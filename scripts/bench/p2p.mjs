// Two validators' p2p layers in two OS processes over 127.0.0.1 (libp2p: TCP, noise, yamux):
// one-way throughput and round-trip latency of 1 KiB messages, and request/response round trips.
//   npm run build && node --no-node-snapshot scripts/bench/p2p.mjs [messages] [round trips]
import { fork } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { Libp2pPeerNetwork } from "@chainsim/node";
import { addressFromPublicKey, devKeySeed, encodePrivateKey, encodePublicKey } from "@chainsim/protocol";
import { NodeEd25519Signer } from "@chainsim/protocol/node-crypto";

const SIZE = 1024;
const now = () => performance.timeOrigin + performance.now();

if (process.argv[2] === "--peer") await runPeer(JSON.parse(process.argv[3]));
else await runBenchmark(Number(process.argv[2] ?? 200_000), Number(process.argv[3] ?? 5_000));

async function runBenchmark(messages, roundTrips) {
  const keys = ["sender", "receiver"].map((name) => {
    const seed = devKeySeed("p2p-bench", name);
    const publicKey = new NodeEd25519Signer(seed).publicKey;
    return { privateKey: encodePrivateKey(seed), publicKey: encodePublicKey(publicKey), address: addressFromPublicKey(publicKey) };
  });
  const ports = await Promise.all(keys.map(freePort));
  const options = (i) => ({
    privateKey: keys[i].privateKey,
    listenAddress: `127.0.0.1:${ports[i]}`,
    peers: [{ address: keys[1 - i].address, public_key: keys[1 - i].publicKey, host: "127.0.0.1", port: ports[1 - i] }],
  });
  const children = [0, 1].map((i) => fork(new URL(import.meta.url).pathname, ["--peer", JSON.stringify({ ...options(i), role: i === 0 ? "sender" : "receiver", messages, roundTrips })]));
  try {
    await Promise.all(children.map((child) => once(child, "message")));
    children[0].send("go");
    const [result] = await once(children[0], "message");
    console.log(JSON.stringify({ benchmark: "p2p", message_bytes: SIZE, ...result }));
  } finally {
    for (const child of children) child.kill("SIGKILL");
  }
}

async function runPeer({ role, messages, roundTrips, ...options }) {
  const network = await Libp2pPeerNetwork.create(options);
  const peer = options.peers[0].address;
  const payload = new Uint8Array(SIZE);
  if (role === "receiver") {
    // echo consensus messages (latency), acknowledge the last txs message (throughput), answer requests
    let received = 0;
    network.onMessage((from, message, channel) => {
      if (channel === "consensus") network.send(from, message, "consensus");
      else if (++received === messages) network.send(from, new Uint8Array(1), "consensus");
    });
    network.onRequest(async (_, request) => request);
  }
  // the sender waits for echoes and the final acknowledgement: resolves once `count` messages have arrived
  let arrived = 0;
  let check = () => {};
  if (role === "sender") network.onMessage(() => (arrived++, check()));
  const arrivals = (count) =>
    new Promise((resolve) => {
      check = () => {
        if (arrived >= count) resolve();
      };
      check();
    });
  await network.start();
  while (!network.peers()[0].connected) await new Promise((resolve) => setTimeout(resolve, 10));
  process.send("ready");
  if (role === "receiver") return;
  await once(process, "message");

  const rtts = [];
  for (let i = 0; i < roundTrips; i++) {
    const sent = now();
    network.send(peer, payload, "consensus");
    await arrivals(i + 1);
    rtts.push(now() - sent);
  }
  const requestRtts = [];
  for (let i = 0; i < Math.min(roundTrips, 2000); i++) {
    const sent = now();
    await network.request(peer, payload, 5000);
    requestRtts.push(now() - sent);
  }
  const started = now();
  for (let i = 0; i < messages; i++) {
    // stay below the queue bound, which drops the oldest messages when full
    while (network.peers()[0].queued > 5000) await new Promise((resolve) => setImmediate(resolve));
    network.send(peer, payload, "txs");
  }
  await arrivals(roundTrips + 1);
  const seconds = (now() - started) / 1000;
  process.send({
    messages,
    messages_per_s: Math.round(messages / seconds),
    mib_per_s: Number(((messages * SIZE) / seconds / 2 ** 20).toFixed(1)),
    round_trip_ms: percentiles(rtts),
    request_round_trip_ms: percentiles(requestRtts),
  });
}

function percentiles(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p) => Number(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))].toFixed(3));
  return { p50: at(0.5), p99: at(0.99), max: at(1) };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
