import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { CliError } from "../src/errors.js";

export const CLI_BIN = fileURLToPath(new URL("../src/bin.js", import.meta.url));
export const FAKE_VALIDATOR = fileURLToPath(new URL("./fixtures/fake-validator.js", import.meta.url));

/** A fresh temporary directory; call the returned cleanup in after/afterEach. */
export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "chainsim-cli-test-"));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Asserts that `action` fails with a CliError whose message matches `pattern`; returns the error. */
export async function expectCliError(action: () => unknown, pattern: RegExp): Promise<CliError> {
  try {
    await action();
  } catch (error) {
    expect(error).to.be.instanceOf(CliError);
    expect((error as CliError).message).to.match(pattern);
    return error as CliError;
  }
  expect.fail(`expected a CliError matching ${pattern}`);
}
