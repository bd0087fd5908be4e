import { CliError } from "./errors.js";
import type { NetworkHandle } from "./launcher.js";
import { readNetworkStatus, type NetworkStatus } from "./network-status.js";

export interface AgreementOptions {
  /** Default: 30 s plus the manifest's empty_close_interval_ms. */
  timeoutMs?: number;
  onProgress?: (message: string) => void;
  signal?: AbortSignal;
}

/**
 * Resolves once every validator of the network has closed ledger 2 or later and all have the same hash
 * at the highest ledger they share: the validators reach each other and agree (product.md §4, `up`).
 */
export async function waitForAgreement(handle: NetworkHandle, options: AgreementOptions = {}): Promise<NetworkStatus> {
  const timeoutMs = options.timeoutMs ?? 30_000 + handle.manifest.consensus.empty_close_interval_ms;
  const started = Date.now();
  let nextReport = started + 2_000;
  for (;;) {
    options.signal?.throwIfAborted();
    const status = await readNetworkStatus(handle.nodes.map(({ name, http }) => ({ name, http })));
    if (status.mismatch) {
      throw new CliError(`the validators of ${handle.manifest.name} disagree on ledger ${status.common_seq}`, `See chainsim status --data-dir ${handle.dataDir} and the node logs in ${handle.dataDir}`);
    }
    if (status.nodes.every((n) => !n.error) && (status.common_seq ?? 0) >= 2) {
      options.onProgress?.(`all ${status.nodes.length} validators agree on ledger ${status.common_seq}`);
      return status;
    }
    const now = Date.now();
    const describe = () => status.nodes.map((n) => `${n.name}: ${n.error ?? `ledger ${n.last_exe_seq}`}`).join(", ");
    if (now - started >= timeoutMs) {
      throw new CliError(
        `the validators of ${handle.manifest.name} did not agree on ledger 2 within ${Math.round(timeoutMs / 1000)} s (${describe()})`,
        `Look at the node logs in ${handle.dataDir}; the validators must reach each other on their p2p ports`,
      );
    }
    if (now >= nextReport) {
      options.onProgress?.(`waiting for the validators to agree on ledger 2 (${describe()})`);
      nextReport = now + 2_000;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
