import { fileURLToPath } from "node:url";

// Resolved from this module's location (dist/src/), so the command works from any working directory.

/** The compiled `chainsim` entry point; validators run as `node <BIN_PATH> node --config FILE`. */
export const BIN_PATH = fileURLToPath(new URL("./bin.js", import.meta.url));

/** The manifest `chainsim up` (and `npm start`) uses when none is given: the repository's networks/local-4.toml. */
export const DEFAULT_MANIFEST_PATH = fileURLToPath(new URL("../../../../networks/local-4.toml", import.meta.url));
