import { integerFlag, parseCommandArgs } from "../args.js";
import { withComposeDefault } from "../containers/compose-args.js";
import { startDashboard } from "../dashboard/server.js";
import { listenFailure } from "../page-server.js";
import { chosenNodes, NODES_OPTIONS } from "./status.js";

/** Clear of the validators' ports of the default networks (16001.. and 17001..). */
const DEFAULT_PORT = 16900;

/** `chainsim dashboard [MANIFEST] [--data-dir D | --nodes URL,... | --compose [FILE] [--project NAME]] [--port P] [--host H]`: a live web page of the network. */
export async function dashboard(args: string[]): Promise<number | undefined> {
  const { positionals, values } = parseCommandArgs("dashboard", withComposeDefault(args), { ...NODES_OPTIONS, port: { type: "string" }, host: { type: "string" } }, 1);
  const nodes = await chosenNodes("dashboard", positionals[0], values);
  const port = integerFlag("port", values.port) ?? DEFAULT_PORT;
  const host = values.host ?? "127.0.0.1";
  const server = await startDashboard({ nodes, port, host }).catch(listenFailure(port, host));
  process.stdout.write(`dashboard of ${nodes.length} node(s): ${server.url}  (Ctrl-C to stop)\n`);
  if (server.monitor.state().nodes.every((n) => n.error)) {
    process.stderr.write(`chainsim: none of the nodes answers yet; the page shows them DOWN. Is the network running? Start it with \`chainsim up\`.\n`);
  }
  process.once("SIGINT", () => void server.close().then(() => process.exit(0)));
  return undefined;
}
