#!/usr/bin/env node
// The `chainsim` command. A committed shim, so npm can link it at install time before the TypeScript is built.
try {
  await import("../dist/src/bin.js");
} catch (error) {
  if (error?.code !== "ERR_MODULE_NOT_FOUND" || !String(error.message).includes("dist/src/bin.js")) throw error;
  process.stderr.write("chainsim: the command is not built yet. Run `npm run build` (or `npm start`) in the chainsim repository first.\n");
  process.exit(1);
}
