import type { Account } from "./accounts.js";

/** Rows padded into columns; the first row is the header. */
export function formatTable(rows: string[][]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column])).join("  ").trimEnd()).join("\n");
}

export const INSECURE_NOTE =
  "INSECURE: dev keys derive from the network and account names, so anyone can compute them. Use them only on local networks.";

/** An account as indented lines; the private key of a key file stays in its file. */
export function formatAccount(account: Account): string {
  return [
    `  address      ${account.address}`,
    `  public key   ${account.public_key}`,
    `  private key  ${account.key_file ? `(in ${account.key_file})` : account.private_key}`,
  ].join("\n");
}

/** The three key fields alone, as JSON outputs carry them. */
export function accountJson(account: Account): Pick<Account, "address" | "public_key" | "private_key"> {
  return { address: account.address, public_key: account.public_key, private_key: account.private_key };
}
