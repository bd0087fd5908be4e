#!/usr/bin/env node
import { ChainError } from "@chainsim/protocol";
import { usageError } from "./args.js";
import { help, USAGE } from "./commands/help.js";
import { CliError } from "./errors.js";

type Command = (args: string[]) => Promise<number | undefined>;

/**
 * Each command resolves to an exit code, or undefined to keep the process running (a validator). Loaded on
 * demand: the validator code is large, and `help` should not wait for it.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  up: async () => (await import("./commands/up.js")).up,
  down: async () => (await import("./commands/down.js")).down,
  keys: async () => (await import("./commands/keys.js")).keys,
  node: async () => (await import("./commands/node.js")).node,
  status: async () => (await import("./commands/status.js")).status,
  fault: async () => (await import("./commands/fault.js")).fault,
  scenario: async () => (await import("./commands/scenario.js")).scenario,
  sim: async () => (await import("./commands/sim.js")).sim,
  dashboard: async () => (await import("./commands/dashboard.js")).dashboard,
  logs: async () => (await import("./commands/logs.js")).logs,
  help: async () => help,
};

async function main([command, ...args]: string[]): Promise<number | undefined> {
  if (command === undefined || command === "--help" || command === "-h") return help();
  if (!Object.hasOwn(COMMANDS, command)) throw usageError(`unknown command ${JSON.stringify(command)}`, `\n${USAGE}`);
  if (args.includes("--help") || args.includes("-h")) return help();
  return (await COMMANDS[command]())(args);
}

/** Expected failures print `chainsim: <what failed>. <what to do>`; only bugs get a stack trace. */
function report(error: unknown): number {
  if (error instanceof CliError) {
    process.stderr.write(`chainsim: ${error.message}. ${error.hint}.\n${error.details ? error.details + "\n" : ""}`);
    return error.exitCode;
  }
  if (error instanceof ChainError) {
    process.stderr.write(`chainsim: ${error.message}. Check that value and try again.\n`);
    return 1;
  }
  process.stderr.write(`chainsim: unexpected error (a bug; please report it with the trace below).\n${(error as Error)?.stack ?? error}\n`);
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exit(code);
  },
  (error) => process.exit(report(error)),
);
