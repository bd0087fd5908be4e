import { resolve } from "node:path";
import { runNodeFromFile } from "@chainsim/node";
import { ChainError } from "@chainsim/protocol";
import { parseCommandArgs, usageError } from "../args.js";
import { CliError } from "../errors.js";

/** `chainsim node --config FILE`: one validator in this process, until SIGTERM or Ctrl-C. */
export async function node(args: string[]): Promise<number | undefined> {
  const { values } = parseCommandArgs("node", args, { config: { type: "string" } }, 0);
  if (values.config === undefined) throw usageError("node: --config FILE is required");
  const file = resolve(values.config);
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
    throw error;
  }
  return undefined; // the validator keeps this process alive
}
