import type { ContractRuntime } from "@chainsim/contracts";
import type { SignedTransaction } from "@chainsim/protocol";
import { wasmDeployments } from "../checks.js";

/**
 * Checks and meters the wasm modules of admitted deployments before any ledger needs them (docs/wasm-abi.md
 * §1): a Go module takes each validator seconds to meter, and done while a ledger is proposed or verified,
 * that time kept the network from closing ledgers until views changed. Done on admission, every validator
 * meters in parallel as the transaction spreads, and the ledger's run finds the module cached. One module at
 * a time, and only the latest one waiting: transactions that replace each other cannot queue up work.
 */
export class WasmPrewarm {
  private running = false;
  private waiting?: string;

  constructor(private readonly runtime: ContractRuntime) {}

  admitted(tx: SignedTransaction): void {
    for (const payload of wasmDeployments(tx.transaction.operations ?? [])) this.meter(payload);
  }

  private meter(payload: string): void {
    if (this.running) {
      this.waiting = payload;
      return;
    }
    this.running = true;
    // A refusal is found again, and reported, when the transaction is executed.
    void this.runtime
      .validate(payload, "wasm")
      .catch(() => {})
      .finally(() => {
        this.running = false;
        const next = this.waiting;
        this.waiting = undefined;
        if (next !== undefined) this.meter(next);
      });
  }
}
