import { join, resolve } from "node:path";
import { runNodeFromFile } from "@chainsim/node";
import { ChainError } from "@chainsim/protocol";
import { integerFlag, parseCommandArgs, usageError } from "../args.js";
import { CONTAINER_DATA_DIR, containerNodeConfig } from "../container-config.js";
import { CliError } from "../errors.js";
import { loadManifest } from "../manifest.js";
import { checkPortBase, networkConfigs, validatorPaths, writeNodeConfig } from "../network-config.js";
import { defaultDataDir } from "./up.js";

/**
 * `chainsim node --config FILE`: one validator in this process, until SIGTERM or Ctrl-C.
 * `chainsim node --manifest M --name N [--container] [--port-base P] [--data-dir D]`: first writes the config
 * of validator N of manifest M (the one `chainsim up` would write; with --container the one for
 * docker-compose.yml: listening on 0.0.0.0, peers by service name, data in /data), then runs it.
 */
export async function node(args: string[]): Promise<number | undefined> {
  const { values } = parseCommandArgs(
    "node",
    args,
    {
      config: { type: "string" },
      manifest: { type: "string" },
      name: { type: "string" },
      container: { type: "boolean" },
      "port-base": { type: "string" },
      "data-dir": { type: "string" },
    },
    0,
  );
  const fromManifest = values.manifest !== undefined || values.name !== undefined || values.container;
  if (values.config !== undefined && fromManifest) throw usageError("node: use either --config FILE or --manifest M --name N, not both");
  if (values.config === undefined && !fromManifest) throw usageError("node: --config FILE is required (or --manifest M --name N)");
  let file: string;
  if (values.config !== undefined) {
    file = resolve(values.config);
  } else {
    if (values.manifest === undefined || values.name === undefined) throw usageError("node: --manifest M and --name N go together");
    file = await writeManifestConfig(values.manifest, values.name, {
      container: values.container ?? false,
      portBase: integerFlag("port-base", values["port-base"]),
      dataDir: values["data-dir"],
    });
  }
  try {
    await runNodeFromFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "EACCES") throw new CliError(`cannot read ${file} (${code})`, "Pass the config file that `chainsim up` wrote, e.g. .chainsim/<network>/<node>/config.json");
    if (error instanceof SyntaxError) throw new CliError(`${file} is not valid JSON (${error.message})`, "Fix the config file, or let `chainsim up` generate it from a manifest");
    if (error instanceof ChainError) {
      // Config errors and refusals of the data directory (another network's genesis) both land here.
      throw new CliError(
        `cannot run the validator of ${file}: ${error.message.replace(/\.$/, "")}`,
        "Fix the config or the data directory it names; `chainsim up` writes configs, and `chainsim up --fresh` starts the chain over",
      );
    }
    // The validator refused to start (a damaged data directory, a port in use): its log has the whole story.
    if (error instanceof Error) {
      throw new CliError(
        `the validator of ${file} could not start: ${error.message.replace(/\.$/, "")}`,
        "Free a port in use; restore a damaged data directory from a backup, or let `chainsim fault NODE wipe` sync it again from the other validators (docs/operations.md)",
      );
    }
    throw error;
  }
  return undefined; // the validator keeps this process alive
}

/** Writes the config of validator `name` of the manifest at `path`; returns the config file's path. */
async function writeManifestConfig(
  path: string,
  name: string,
  options: { container: boolean; portBase?: number; dataDir?: string },
): Promise<string> {
  const manifest = await loadManifest(path);
  const portBase = options.portBase ?? manifest.port_base;
  let file: string;
  if (options.container) {
    const dataDir = resolve(options.dataDir ?? CONTAINER_DATA_DIR);
    const config = containerNodeConfig(manifest, name, { portBase, dataDir });
    file = join(dataDir, "config.json");
    await writeNodeConfig(config, file);
  } else {
    checkPortBase(portBase, manifest.nodes.length, options.portBase === undefined ? `${manifest.file}: port_base` : "--port-base");
    const dataDir = options.dataDir ?? defaultDataDir(manifest.name);
    const config = networkConfigs(manifest, { dataDir, portBase }).find((c) => c.node_name === name);
    if (!config) throw new CliError(`network ${manifest.name} has no validator ${JSON.stringify(name)}`, `Use one of ${manifest.nodes.map((n) => n.name).join(", ")}`);
    file = validatorPaths(dataDir, name).configFile;
    await writeNodeConfig(config, file);
  }
  process.stderr.write(`chainsim: validator ${name} of ${manifest.name}: config written to ${file}\n`);
  return file;
}
