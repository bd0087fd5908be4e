import { basename, dirname, resolve } from "node:path";
import { usageError } from "../args.js";
import type { Manifest } from "../manifest.js";
import { openComposeNetwork, type ComposeNetwork } from "./compose-network.js";

export const DEFAULT_COMPOSE_FILE = "docker-compose.yml";

/** The parseArgs options of `--compose [FILE] [--project NAME]`, shared by `scenario`, `fault`, `status` and `dashboard`. */
export const COMPOSE_OPTIONS = { compose: { type: "string" }, project: { type: "string" } } as const;

/**
 * parseArgs has no optional values, so a bare `--compose` becomes `--compose=docker-compose.yml`; the next
 * argument is its FILE only when it names a YAML file (else it is the manifest or a node).
 */
export function withComposeDefault(args: string[]): string[] {
  return args.flatMap((arg, i) => (arg === "--compose" && !/\.ya?ml$/.test(args[i + 1] ?? "") ? [`--compose=${DEFAULT_COMPOSE_FILE}`] : [arg]));
}

/** The compose file and project, or undefined without --compose. The project defaults as compose's does: the file's directory name. */
export function composeChoice(command: string, values: { compose?: string; project?: string }): { file: string; project: string } | undefined {
  if (values.compose === undefined) {
    if (values.project !== undefined) throw usageError(`${command}: --project goes with --compose`);
    return undefined;
  }
  const file = resolve(values.compose);
  const project = values.project ?? basename(dirname(file)).toLowerCase().replace(/[^a-z0-9_-]/g, "");
  if (!/^[a-z0-9][a-z0-9_-]*$/.test(project)) throw usageError(`${command}: --project ${JSON.stringify(project)} is no compose project name (lowercase letters, digits, - and _)`);
  return { file, project };
}

/** Where the compose services publish: --port-base, else CHAINSIM_PORT_PREFIX × 100 (as the compose file reads it), else the manifest's port_base. */
export function composePortBase(flag: number | undefined, manifestPortBase: number): number {
  const prefix = process.env.CHAINSIM_PORT_PREFIX;
  if (flag !== undefined) return flag;
  if (prefix === undefined) return manifestPortBase;
  if (!/^\d+$/.test(prefix)) throw usageError(`CHAINSIM_PORT_PREFIX should be a whole number (the port base / 100), got ${JSON.stringify(prefix)}`);
  return Number(prefix) * 100;
}

/**
 * The running compose network `--compose [FILE] [--project NAME]` names (`fault`, `status`, `dashboard`), or
 * undefined without --compose. `exclusive` are the other ways of naming a network, which --compose excludes.
 */
export async function openComposeFromArgs(
  command: string,
  values: { compose?: string; project?: string },
  exclusive: Record<string, unknown>,
  manifest: Manifest,
  onProgress: (message: string) => void,
): Promise<ComposeNetwork | undefined> {
  const compose = exclusiveComposeChoice(command, values, exclusive);
  if (!compose) return undefined;
  return openComposeNetwork(manifest, { ...compose, portBase: composePortBase(undefined, manifest.port_base), bringUp: false, onProgress });
}

/** composeChoice, refusing --compose beside `exclusive`, the other ways of naming a network. */
export function exclusiveComposeChoice(command: string, values: { compose?: string; project?: string }, exclusive: Record<string, unknown>): { file: string; project: string } | undefined {
  const clash = Object.keys(exclusive).find((name) => exclusive[name] !== undefined);
  if (clash && values.compose !== undefined) throw usageError(`${command}: --${clash} and --compose exclude each other`);
  return composeChoice(command, values);
}
