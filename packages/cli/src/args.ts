import { parseArgs, type ParseArgsConfig } from "node:util";
import { CliError } from "./errors.js";

type Options = NonNullable<ParseArgsConfig["options"]>;
type Parsed<T extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>>;

/**
 * parseArgs for one command, with its errors (unknown option, missing value, too many arguments) turned
 * into usage errors (exit code 2).
 */
export function parseCommandArgs<T extends Options>(command: string, args: string[], options: T, maxPositionals: number): Parsed<T> {
  let parsed: Parsed<T>;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw usageError(`${command}: ${(error as Error).message.split(/\.(?: |$)/)[0]}`);
  }
  if (parsed.positionals.length > maxPositionals) {
    throw usageError(`${command}: unexpected argument ${JSON.stringify(parsed.positionals[maxPositionals])}`);
  }
  return parsed;
}

export function usageError(problem: string, details?: string): CliError {
  return new CliError(problem, "Run `chainsim help` to see the commands and their options", { exitCode: 2, details });
}

/** An optional integer flag such as --port-base. */
export function integerFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw usageError(`--${name} should be a whole number, got ${JSON.stringify(value)}`);
  return Number(value);
}
