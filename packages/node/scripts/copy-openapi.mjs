// Copies docs/openapi.yaml (the one source of the API contract) next to the route that serves it, so the
// node finds it in a clone and in the container images, which ship packages/node/dist/src but not docs/.
// Runs before `tsc -b` (see the root build script); the copy is generated, not committed.
import { copyFileSync, mkdirSync } from "node:fs";
const target = new URL("../dist/src/http/", import.meta.url);
mkdirSync(target, { recursive: true });
copyFileSync(new URL("../../../docs/openapi.yaml", import.meta.url), new URL("openapi.yaml", target));
