import { resolve } from "node:path";
import { integerFlag, parseCommandArgs } from "../args.js";
import { CliError } from "../errors.js";
import { waitForAgreement } from "../agreement.js";
import { launchNetwork, type NetworkHandle } from "../launcher.js";
import { loadManifest } from "../manifest.js";
import { removeNetworkRecord } from "../network-record.js";
import { accountJson, formatAccount, formatTable, INSECURE_NOTE } from "../output.js";
import { DEFAULT_MANIFEST_PATH } from "../paths.js";
import { describeExit } from "../validator.js";

/** The signals that stop a foreground network (and a start-up in progress). */
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** Where a network keeps its data unless --data-dir says otherwise. */
export function defaultDataDir(network: string): string {
  return resolve(".chainsim", network);
}

/** `chainsim up`: starts a network, prints its endpoints and dev keys, then stays (or --detach leaves it). */
export async function up(args: string[]): Promise<number> {
  const { positionals, values } = parseCommandArgs(
    "up",
    args,
    {
      "data-dir": { type: "string" },
      "port-base": { type: "string" },
      detach: { type: "boolean" },
      json: { type: "boolean" },
      fresh: { type: "boolean" },
    },
    1,
  );
  const manifest = await loadManifest(positionals[0] ?? DEFAULT_MANIFEST_PATH);
  // A signal during start-up aborts the launch, which stops the validators already started (launchNetwork
  // does that on any failure). Installed before launching, replaced by runForeground's once it is up.
  const startup = new AbortController();
  const onStartupSignal = (signal: NodeJS.Signals) => {
    if (startup.signal.aborted) return void process.stderr.write("still stopping the validators already started\n");
    process.stderr.write(`${signal}: stopping the validators already started\n`);
    startup.abort(new CliError(`${signal} while network ${manifest.name} was starting; the validators already started were stopped`, "Run chainsim up again to start it"));
  };
  for (const signal of SIGNALS) process.on(signal, onStartupSignal);
  let handle: NetworkHandle;
  try {
    handle = await launchNetwork(manifest, {
      dataDir: values["data-dir"] ?? defaultDataDir(manifest.name),
      portBase: integerFlag("port-base", values["port-base"]),
      detach: values.detach,
      fresh: values.fresh,
      onProgress: (message) => process.stderr.write(`${message}\n`),
      signal: startup.signal,
    });
    await waitForAgreement(handle, { onProgress: (message) => process.stderr.write(`${message}\n`), signal: startup.signal }).catch(async (error) => {
      await handle.stop();
      throw error;
    });
  } finally {
    for (const signal of SIGNALS) process.off(signal, onStartupSignal);
  }
  process.stdout.write((values.json ? summaryJson(handle) : summaryText(handle, values.detach ?? false)) + "\n");
  return values.detach ? 0 : runForeground(handle);
}

function summaryJson(handle: NetworkHandle): string {
  const { close_interval_ms, view_timeout_ms, ckp_interval } = handle.manifest.consensus;
  return JSON.stringify({
    network: handle.manifest.name,
    consensus: { close_interval_ms, view_timeout_ms, ckp_interval },
    nodes: handle.endpoints(),
    genesis: accountJson(handle.manifest.genesis.account),
  });
}

function summaryText(handle: NetworkHandle, detached: boolean): string {
  const { manifest } = handle;
  const genesis = manifest.genesis.account;
  const rows = handle.endpoints().map((n) => [n.name, n.address, n.http, n.ws, n.p2p, String(n.pid)]);
  return [
    `network ${manifest.name} is up: ${manifest.nodes.length} validator(s), data and logs in ${handle.dataDir}`,
    "",
    formatTable([["name", "address", "http", "ws", "p2p", "pid"], ...rows]),
    "",
    `genesis account (holds the initial balance of ${manifest.genesis.balance}):`,
    formatAccount(genesis),
    ...(genesis.key_file ? [] : [`  ${INSECURE_NOTE}`]),
    "",
    "try:",
    `  curl '${handle.nodes[0].http}/getAccount?address=${genesis.address}'`,
    "",
    detached ? `stop it with: chainsim down --data-dir ${handle.dataDir}` : "press Ctrl-C to stop the network",
  ].join("\n");
}

/**
 * Stays until Ctrl-C, SIGTERM or SIGHUP, then stops every validator. Also ends when every validator has
 * exited on its own (e.g. `chainsim down` from another terminal): 0 if all exited cleanly, else 1.
 */
function runForeground(handle: NetworkHandle): Promise<number> {
  return new Promise((resolveExit) => {
    let stopping = false;
    const shutdown = (signal: string) => {
      if (stopping) return void process.stderr.write("still stopping: validators that ignore SIGTERM get SIGKILL soon\n");
      stopping = true;
      process.stderr.write(`${signal}: stopping ${handle.nodes.length} validator(s)\n`);
      void handle.stop().then(() => {
        process.stderr.write(`network ${handle.manifest.name} stopped; its data stays in ${handle.dataDir}\n`);
        resolveExit(0);
      });
    };
    for (const signal of SIGNALS) process.on(signal, () => shutdown(signal));

    let running = handle.nodes.length;
    let clean = true;
    for (const node of handle.nodes) {
      void node.process.exited.then(async (status) => {
        if (stopping) return;
        clean &&= status.code === 0;
        process.stderr.write(`validator ${node.name} exited (${describeExit(status)}); its log: ${node.process.paths.logFile}\n`);
        if (--running > 0) return;
        stopping = true;
        process.stderr.write(`all validators of ${handle.manifest.name} have exited\n`);
        await removeNetworkRecord(handle.dataDir);
        resolveExit(clean ? 0 : 1);
      });
    }
  });
}
