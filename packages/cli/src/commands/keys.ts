import { parseCommandArgs } from "../args.js";
import { loadManifest } from "../manifest.js";
import { accountJson, formatAccount, INSECURE_NOTE } from "../output.js";
import { DEFAULT_MANIFEST_PATH } from "../paths.js";

/** `chainsim keys [MANIFEST] [--json]`: the genesis and validator accounts of a manifest. */
export async function keys(args: string[]): Promise<number> {
  const { positionals, values } = parseCommandArgs("keys", args, { json: { type: "boolean" } }, 1);
  const manifest = await loadManifest(positionals[0] ?? DEFAULT_MANIFEST_PATH);
  if (values.json) {
    const json = {
      network: manifest.name,
      genesis: accountJson(manifest.genesis.account),
      validators: manifest.nodes.map((node) => ({ name: node.name, ...accountJson(node.account) })),
    };
    process.stdout.write(JSON.stringify(json, null, 2) + "\n");
    return 0;
  }
  const sections = [
    `accounts of network ${manifest.name} (${manifest.file})`,
    `genesis (holds the whole initial balance of ${manifest.genesis.balance})\n${formatAccount(manifest.genesis.account)}`,
    ...manifest.nodes.map((node) => `validator ${node.name}\n${formatAccount(node.account)}`),
  ];
  const devKeys = [manifest.genesis.account, ...manifest.nodes.map((node) => node.account)].some((account) => !account.key_file);
  if (devKeys) sections.push(INSECURE_NOTE);
  process.stdout.write(sections.join("\n\n") + "\n");
  return 0;
}
