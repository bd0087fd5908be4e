import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parse, TomlError } from "smol-toml";
import { DEFAULT_CONSENSUS, DEFAULT_CONTRACTS, DEFAULT_LIMITS, LOG_LEVELS, type ConsensusConfig, type ContractsConfig, type GenesisConfig, type LimitsConfig, type LogLevel } from "@chainsim/node";
import { decodePrivateKey } from "@chainsim/protocol";
import { accountFromSeed, devAccount, type Account } from "./accounts.js";
import { CliError } from "./errors.js";
import { highestPort } from "./network-config.js";
import { TomlTable } from "./toml-table.js";
import { BYZANTINE_MODES, FAULT_ACTIONS, healingAction, MESSAGE_ACTIONS, PERTURBATIONS, requiredParameter, type ByzantineMode, type FaultActionName, type FaultSpec, type Perturbation } from "./faults/fault-action.js";

export { PERTURBATIONS, type Perturbation };

export const DEFAULT_PORT_BASE = 16000;

export interface ManifestNode {
  name: string;
  account: Account;
  perturb: Perturbation[];
}

/** A validated network manifest (product.md §3); keys mirror the TOML keys. */
export interface Manifest {
  /** Absolute path of the manifest file. */
  file: string;
  name: string;
  port_base: number;
  genesis: Omit<GenesisConfig, "account"> & { account: Account };
  consensus: ConsensusConfig;
  contracts: ContractsConfig;
  /** Every validator's limits (docs/operations.md, "Limits"). */
  limits: LimitsConfig;
  /** Validators in file order, which is replica order. */
  nodes: ManifestNode[];
  dev: { private_key_endpoints: boolean };
  debug: { fault_injection: boolean };
  /** Every validator's log_level (docs/operations.md, "Logs"). */
  log_level: LogLevel;
  /** How `chainsim scenario` runs this network (docs/faults.md). */
  scenario: ScenarioSettings;
  /** The timed fault schedule (`[[fault]]`), in at_ms order. */
  faults: ScheduledFault[];
}

export interface ScenarioSettings {
  /** Payments per second the load generator submits throughout. */
  tps: number;
  /** Funded sender accounts (each submits its own nonces in order). */
  accounts: number;
  /** How long each `perturb` entry lasts before it heals (kill, pause, disconnect, twin). */
  perturb_for_ms: number;
  /** Load after the last perturbation healed, before the final check. */
  settle_ms: number;
  /** SIGKILLs of seeded random validators after the other steps, each restarted after a pause (docs/faults.md, "Crash series"). */
  crashes: number;
  /** The longest seeded pause between a crash and the restart. */
  crash_pause_ms: number;
  /** The share of crashes that land at a ledger store point (the node kills itself there) instead of at a random instant. */
  crash_store_share: number;
}

/** One `[[fault]]`: `action` on `node` (a name, or "primary": the leader when it fires) no earlier than at_ms after the load starts. */
export interface ScheduledFault extends FaultSpec {
  at_ms: number;
  node: string;
}

// Names become directory names and dev-key inputs. A leading letter also keeps [node.NAME] tables in file
// order: JavaScript objects put integer-like keys ("1", "2") first.
const NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
const NAME_RULE = "Use a letter followed by letters, digits, '.', '_' or '-' (at most 64 characters)";

export async function loadManifest(path: string): Promise<Manifest> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new CliError(`cannot read manifest ${path} (${errorCode(error)})`, "Pass the path of a network manifest such as networks/single.toml");
  }
  return parseManifest(text, path);
}

/** Validates manifest text; `file` names it in errors and anchors relative key_file paths. */
export function parseManifest(text: string, file: string): Manifest {
  const root = new TomlTable(file, "", parseToml(text, file));
  root.allowOnly(["name", "port_base", "log_level", "genesis", "consensus", "contracts", "limits", "node", "dev", "debug", "scenario", "fault"]);
  const name = root.string("name") ?? root.fail("name", "is missing", 'Add a line such as name = "my-net" at the top of the manifest');
  if (!NAME.test(name)) root.fail("name", `is ${JSON.stringify(name)}, which is not a valid network name`, NAME_RULE);

  const nodes = readNodes(root, name);
  const portBase = root.integer("port_base", 1024, 65535, DEFAULT_PORT_BASE);
  if (highestPort(portBase, nodes.length) > 65535) {
    root.fail("port_base", `${portBase} leaves no room for ${nodes.length} validators (10 ports each)`, `Use a port_base of at most ${65535 - highestPort(0, nodes.length)}`);
  }
  // Manifests describe dev networks: private-key endpoints and fault injection are on unless turned off.
  const dev = root.table("dev") ?? new TomlTable(file, "dev", {});
  dev.allowOnly(["private_key_endpoints"]);
  const privateKeyEndpoints = dev.boolean("private_key_endpoints", true);
  const debug = root.table("debug") ?? new TomlTable(file, "debug", {});
  debug.allowOnly(["fault_injection"]);
  const faultInjection = debug.boolean("fault_injection", true);
  const genesis = readGenesis(root, name);
  const consensus = readSettings(root, "consensus", DEFAULT_CONSENSUS);
  const faults = readFaults(root, nodes);
  const needsFaultPlane: string[] = [...faults.map((f) => f.action), ...nodes.flatMap((n) => n.perturb)].filter((a) => (MESSAGE_ACTIONS as readonly string[]).includes(a));
  const scenario = readScenario(root, consensus);
  // A crash at a store point is a rule the node carries out on itself.
  if (scenario.crashes > 0 && scenario.crash_store_share > 0) needsFaultPlane.push("crash_store_share");
  if (needsFaultPlane.length > 0 && !faultInjection) {
    debug.fail("fault_injection", `is false, but ${[...new Set(needsFaultPlane)].join(", ")} go through the fault plane`, "Remove fault_injection = false, or use only process faults (kill, pause, restart, wipe, twin)");
  }
  return {
    file: resolve(file),
    name,
    port_base: portBase,
    genesis,
    consensus,
    contracts: readSettings(root, "contracts", DEFAULT_CONTRACTS),
    limits: readSettings(root, "limits", DEFAULT_LIMITS),
    nodes,
    dev: { private_key_endpoints: privateKeyEndpoints },
    debug: { fault_injection: faultInjection },
    log_level: readLogLevel(root),
    scenario,
    faults,
  };
}

function readLogLevel(root: TomlTable): LogLevel {
  const level = root.string("log_level") ?? "info";
  if (!(LOG_LEVELS as readonly string[]).includes(level)) root.fail("log_level", `is ${JSON.stringify(level)}`, `Use one of ${LOG_LEVELS.join(", ")}`);
  return level as LogLevel;
}

function readScenario(root: TomlTable, consensus: ConsensusConfig): ScenarioSettings {
  const table = root.table("scenario") ?? new TomlTable(root.file, "scenario", {});
  table.allowOnly(["tps", "accounts", "perturb_for_ms", "settle_ms", "crashes", "crash_pause_ms", "crash_store_share"]);
  return {
    tps: table.integer("tps", 1, 1000, 20),
    accounts: table.integer("accounts", 1, 100, 8),
    perturb_for_ms: table.integer("perturb_for_ms", 1, 600_000, 3 * consensus.view_timeout_ms),
    settle_ms: table.integer("settle_ms", 0, 600_000, 2000),
    crashes: table.integer("crashes", 0, 1000, 0),
    crash_pause_ms: table.integer("crash_pause_ms", 0, 600_000, 1000),
    crash_store_share: table.number("crash_store_share", 0, 1) ?? 0.5,
  };
}

const FAULT_KEYS = ["at_ms", "node", "action", "for_ms", "peers", "probability", "delay_ms", "jitter_ms", "mode"];

function readFaults(root: TomlTable, nodes: ManifestNode[]): ScheduledFault[] {
  const names = nodes.map((n) => n.name);
  const knownNode = (table: TomlTable, key: string, name: string) => {
    if (!names.includes(name)) table.fail(key, `names ${JSON.stringify(name)}, which is not a validator of this manifest`, `Use one of ${names.join(", ")}`);
  };
  const faults = root.tableArray("fault").map((table): ScheduledFault => {
    table.allowOnly(FAULT_KEYS);
    const node = table.string("node") ?? table.fail("node", "is missing", `Name the validator, e.g. node = "${names[0]}", or node = "primary"`);
    if (node !== "primary") knownNode(table, "node", node);
    const action = table.string("action") ?? table.fail("action", "is missing", `Use one of ${FAULT_ACTIONS.join(", ")}`);
    if (!(FAULT_ACTIONS as readonly string[]).includes(action)) table.fail("action", `is ${JSON.stringify(action)}`, `Use one of ${FAULT_ACTIONS.join(", ")}`);
    const spec: ScheduledFault = { at_ms: table.integer("at_ms", 0, 3_600_000, 0), node, action: action as FaultActionName };
    if (table.values.at_ms === undefined) table.fail("at_ms", "is missing", "Say when it fires, in ms after the load starts: at_ms = 5000");
    const forMs = table.values.for_ms === undefined ? undefined : table.integer("for_ms", 1, 3_600_000, 1);
    if (forMs !== undefined && !healingAction(spec.action)) table.fail("for_ms", `does not apply: ${action} happens at once`, "Remove for_ms");
    if (forMs === undefined && healingAction(spec.action)) table.fail("for_ms", "is missing", `Say how long the ${action} lasts: for_ms = 3000`);
    if (forMs !== undefined) spec.for_ms = forMs;
    const peers = table.strings("peers");
    peers?.forEach((peer) => knownNode(table, "peers", peer));
    if (peers) spec.peers = peers;
    const probability = table.number("probability", 0, 1);
    if (probability !== undefined) spec.probability = probability;
    if (table.values.delay_ms !== undefined) spec.delay_ms = table.integer("delay_ms", 0, 600_000, 0);
    if (table.values.jitter_ms !== undefined) spec.jitter_ms = table.integer("jitter_ms", 0, 600_000, 0);
    const mode = table.string("mode");
    if (mode !== undefined && !(BYZANTINE_MODES as readonly string[]).includes(mode)) table.fail("mode", `is ${JSON.stringify(mode)}`, `Use one of ${BYZANTINE_MODES.join(", ")}`);
    if (mode !== undefined) spec.mode = mode as ByzantineMode;
    const required = requiredParameter(spec.action);
    if (required && spec[required] === undefined) table.fail(required, `is missing: ${action} needs it`, "See docs/faults.md for each action's keys");
    return spec;
  });
  return faults.sort((a, b) => a.at_ms - b.at_ms);
}

function parseToml(text: string, file: string): Record<string, unknown> {
  try {
    return parse(text, { integersAsBigInt: "asNeeded" });
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const why = error.message.split("\n")[0].replace(/^Invalid TOML document: /, "");
    throw new CliError(`${file}:${error.line}:${error.column}: invalid TOML: ${why}`, "Fix the syntax at that line");
  }
}

function readGenesis(root: TomlTable, network: string): Manifest["genesis"] {
  const genesis = root.table("genesis") ?? root.fail("genesis", "is missing", "Add a [genesis] table with at least balance = <initial balance>");
  genesis.allowOnly(["balance", "gas_price", "base_reserve", "chain_id", "close_time", "key_file"]);
  return {
    account: readAccount(genesis, network, "genesis"),
    balance: genesis.int64("balance", 1n),
    gas_price: genesis.int64("gas_price", 0n, 100n),
    base_reserve: genesis.int64("base_reserve", 0n, 0n),
    chain_id: genesis.int64("chain_id", 0n, 0n),
    close_time: genesis.int64("close_time", 0n, 0n),
  };
}

/** A settings table whose keys and their types (positive integer or boolean) are those of `defaults`. */
function readSettings<T extends { [K in keyof T]: number | boolean }>(root: TomlTable, name: string, defaults: T): T {
  const table = root.table(name);
  if (!table) return { ...defaults };
  const keys = Object.keys(defaults) as (keyof T & string)[];
  table.allowOnly(keys);
  const settings = { ...defaults };
  for (const key of keys) {
    const fallback = defaults[key];
    settings[key] = (typeof fallback === "boolean" ? table.boolean(key, fallback) : table.integer(key, 1, Number.MAX_SAFE_INTEGER, fallback as number)) as T[typeof key];
  }
  return settings;
}

function readNodes(root: TomlTable, network: string): ManifestNode[] {
  const addValidator = "Add one table per validator: [node.v1], [node.v2], …";
  const tables = root.table("node")?.subTables() ?? [];
  if (tables.length === 0) root.fail("node", "has no validators", addValidator);
  const nodes = tables.map((table) => {
    const name = table.path.slice("node.".length);
    if (!NAME.test(name)) root.fail(table.path, "does not have a valid node name", NAME_RULE);
    table.allowOnly(["key_file", "perturb"]);
    return { name, account: readAccount(table, network, name), perturb: table.choices("perturb", PERTURBATIONS) };
  });
  nodes.forEach((node, i) => {
    const twin = nodes.slice(0, i).find((other) => other.account.address === node.account.address);
    if (twin) root.fail(`node.${node.name}`, `has the same key as node.${twin.name}`, "Give every validator its own key_file");
  });
  return nodes;
}

/** The account of a table: its key_file (resolved relative to the manifest) or the dev key of `devName`. */
function readAccount(table: TomlTable, network: string, devName: string): Account {
  const keyFile = table.string("key_file");
  if (keyFile === undefined) return devAccount(network, devName);
  const path = resolve(dirname(table.file), keyFile);
  const noKeyFile = "or remove key_file to use the dev key";
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    table.fail("key_file", `names ${path}, which cannot be read (${errorCode(error)})`, `Create it holding one priSPK… private key, ${noKeyFile}`);
  }
  let seed: Uint8Array;
  try {
    seed = decodePrivateKey(text.trim());
  } catch {
    table.fail("key_file", `names ${path}, which does not hold an Ed25519 private key (priSPK…)`, `Put one private key in it (\`chainsim keys\` shows the format), ${noKeyFile}`);
  }
  return { ...accountFromSeed(seed), key_file: path };
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}
