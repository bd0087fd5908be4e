import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Server } from "node:http";
import { addressFromPublicKey, decodePrivateKey, parseJson } from "@chainsim/protocol";
import { NodeEd25519Signer } from "@chainsim/protocol/node-crypto";
import { ContractWorkerRuntime, DEFAULT_CONTRACT_LIMITS } from "@chainsim/contracts";
import { parseHostPort, parseNodeConfig, type NodeConfig } from "./config.js";
import type { NodeContext } from "./context.js";
import { WorkQueue } from "./work-queue.js";
import { EventServer, eventOptions } from "./events/event-server.js";
import { createApp } from "./http/app.js";
import { JsonBodyParser } from "./http/json-body.js";
import { mountFaultRoutes } from "./http/routes/faults.js";
import { mountMetricsRoutes } from "./http/routes/metrics.js";
import { NodeMetrics } from "./metrics/node-metrics.js";
import { mountAccountRoutes } from "./http/routes/accounts.js";
import { mountLedgerRoutes } from "./http/routes/ledgers.js";
import { mountOpenApiRoute } from "./http/routes/openapi.js";
import { mountStatusRoutes } from "./http/routes/status.js";
import { mountTransactionRoutes } from "./http/routes/transactions.js";
import { validatorCrypto } from "./consensus/validator-crypto.js";
import { crashAtStorePoints, unsafeQuorumFromEnv, UNSAFE_QUORUM_ENV, withFaultPlane } from "./faults/index.js";
import { Libp2pPeerNetwork } from "./p2p/index.js";
import { openValidatorCore } from "./validator-core.js";
import { Databases } from "./storage/databases.js";
import { WasmPrewarm } from "./execution/contracts/wasm-prewarm.js";
import { openNodeLog, type NodeLog } from "./logging/node-log.js";

/** Queries run at once, and queries that may wait (more are refused with 114): docs/contracts.md §13, "Queries". */
const REQUEST_TIMEOUT_MS = 60_000;
const HEADERS_TIMEOUT_MS = 20_000;
const QUERY_CONCURRENCY = 1;
const QUERY_MAX_WAITING = 64;
/** The query worker's nice value: ledger executions, whose clock guard decides view changes, come first. */
const QUERY_NICENESS = 10;
/** The directory of the data dir where contracts' metered texts are kept (a cache: safe to delete). */
const METERED_DIR = "contract_cache";

export interface RunningNode {
  readonly config: NodeConfig;
  readonly context: NodeContext;
  stop(): Promise<void>;
}

/** Starts one validator in this process: storage, ledger, pool, the ledger closer and the HTTP API. */
export async function startNode(config: NodeConfig): Promise<RunningNode> {
  const { log, close } = openNodeLog({ name: config.node_name, dataDir: config.data_dir, level: config.log_level });
  try {
    return await startLogged(config, log, close);
  } catch (error) {
    log.fatal(`cannot start: ${(error as Error)?.stack ?? error}`);
    close();
    throw error;
  }
}

async function startLogged(config: NodeConfig, log: NodeLog, closeLog: () => void): Promise<RunningNode> {
  const signer = new NodeEd25519Signer(decodePrivateKey(config.validator.private_key));
  const validatorAddress = addressFromPublicKey(signer.publicKey);
  if (!config.validators.includes(validatorAddress)) {
    throw new Error(`this node's key (${validatorAddress}) is not in the validator list of ${config.network}`);
  }
  const unsafeQuorum = unsafeQuorumFromEnv();
  if (unsafeQuorum !== null) {
    log.warn(`UNSAFE: ${UNSAFE_QUORUM_ENV}=${unsafeQuorum}: this validator commits on ${unsafeQuorum} vote(s) instead of 2f+1 and can break agreement (tests only)`);
  }
  const dbs = await Databases.open(config.data_dir);
  const metrics = new NodeMetrics(config.limits.pool_transactions);
  try {
    const limits = { ...DEFAULT_CONTRACT_LIMITS, steps: config.contracts.steps, builtinSteps: config.contracts.builtin_steps, lint: config.contracts.lint };
    // Contracts run in worker processes that may die without taking the validator along; callContract gets a
    // worker of its own: a query must never wait in, or damage, the one that executes ledgers. Its worker runs
    // at a lower CPU priority and takes QUERY_CONCURRENCY queries at a time (docs/contracts.md §13, "Queries").
    // Metered texts are kept on disk by the ledger worker, which instruments only deployed code; the query
    // worker reads them, never adds the code of a query (docs/contracts.md §13, "Preparing a contract's code").
    const meteredDir = join(config.data_dir, METERED_DIR);
    const contracts = { runtime: metrics.contractRuntime(new ContractWorkerRuntime(limits, { log: log.warn, metered: { dir: meteredDir, writable: true } }), "ledger"), limits, trace: log };
    const queries = {
      runtime: metrics.contractRuntime(new ContractWorkerRuntime(limits, { log: log.warn, niceness: QUERY_NICENESS, metered: { dir: meteredDir, writable: false } }), "query"),
      limits,
      queue: new WorkQueue(QUERY_CONCURRENCY, QUERY_MAX_WAITING, "contract queries"),
    };
    const crypto = validatorCrypto(config, signer, validatorAddress);
    const p2p = await Libp2pPeerNetwork.fromConfig(config, log);
    const faults = config.debug.fault_injection
      ? withFaultPlane(p2p, {
          peers: config.p2p.peers.map((peer) => peer.address),
          validators: config.validators,
          crypto,
          seed: config.debug.fault_seed,
          unsafeQuorum,
        })
      : undefined;
    if (faults) metrics.watchFaults(faults.plane);
    const network = metrics.peerNetwork(faults?.network ?? p2p, config.p2p.peers.map((peer) => peer.address));
    const { signatures, ledgers, txs, consensus } = await openValidatorCore({
      config,
      validatorAddress,
      dbs,
      network,
      contracts,
      crypto,
      log,
      unsafeQuorum: unsafeQuorum ?? undefined,
      censoring: faults && (() => faults.plane.byzantine("censor")),
      phases: metrics.phases,
    });
    if (faults) crashAtStorePoints(ledgers, faults.plane, log);
    metrics.watchLedgers(ledgers, txs);
    const prewarm = new WasmPrewarm(contracts.runtime);
    txs.onAdmitted((tx) => prewarm.admitted(tx));
    const events = new EventServer({ ledgers, txs, validatorAddress, chainId: config.genesis.chain_id, log }, eventOptions(config.limits));
    metrics.watchConsensus(consensus);
    const context: NodeContext = {
      config,
      dbs,
      ledgers,
      contracts,
      queries,
      txs,
      signatures,
      network,
      consensus,
      events,
      validatorAddress,
      startedAt: Date.now(),
      webStats: { start_request_count: 0, end_request_count: 0, expire_request_count: 0 },
      log,
    };
    const bodies = new JsonBodyParser();
    const app = createApp(
      (a) => {
        mountStatusRoutes(a, context);
        mountAccountRoutes(a, context);
        mountTransactionRoutes(a, context);
        mountLedgerRoutes(a, context);
        mountFaultRoutes(a, faults?.plane);
        mountOpenApiRoute(a);
        mountMetricsRoutes(a, metrics);
      },
      context.webStats,
      bodies,
      config.limits,
      log.error,
      (req, res) => metrics.trackRequest(req, res),
    );
    await network.start();
    consensus.start();
    const server = await events
      .start(config.wsserver.listen_address)
      .then(() => listen(app, config.webserver.listen_addresses))
      .catch(async (error) => {
        await events.stop();
        await consensus.stop();
        await network.stop();
        throw error;
      });
    if (faults) log(`fault injection on: /debug/faults, seed ${faults.plane.report().seed}`);
    log(`validator ${validatorAddress} serving http://${config.webserver.listen_addresses} at ledger ${ledgers.lastHeader.seq}`);
    return {
      config,
      context,
      async stop() {
        await events.stop();
        await consensus.stop();
        await network.stop();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await closed;
        await bodies.close();
        contracts.runtime.dispose();
        queries.runtime.dispose();
        await dbs.close();
        log("stopped");
        closeLog();
      },
    };
  } catch (error) {
    await dbs.close();
    throw error;
  }
}

function listen(app: ReturnType<typeof createApp>, hostPort: string): Promise<Server> {
  const { host, port } = parseHostPort(hostPort);
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    // A request must arrive whole within these (Node's defaults: 300 s and 60 s), so that a client
    // trickling a body cannot hold its share of limits.http_bodies_in_flight_bytes for long (docs/api.md, "Request bodies").
    server.requestTimeout = REQUEST_TIMEOUT_MS;
    server.headersTimeout = HEADERS_TIMEOUT_MS;
    server.once("listening", () => resolve(server));
    server.once("error", (error) => reject(new Error(`cannot listen on ${hostPort}: ${error.message}`)));
  });
}

/** `chainsim node --config FILE`: runs until SIGTERM/SIGINT, then closes the databases cleanly. */
export async function runNodeFromFile(path: string): Promise<void> {
  const config = parseNodeConfig(parseJson(await readFile(path, "utf8")));
  const node = await startNode(config);
  // Ctrl-C in a terminal reaches the validator twice (SIGINT from the terminal, SIGTERM from `chainsim up`).
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void node.stop().then(() => process.exit(0));
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
