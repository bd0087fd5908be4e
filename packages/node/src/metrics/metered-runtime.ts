import { Counter, type Registry } from "prom-client";
import { ContractFailure, type ContractLanguage, type ContractRuntime, type ExecutionOutcome, type ExecutionRequest } from "@chainsim/contracts";

/** Whose runs: ledgers' (proposing, checking, committing) or queries' (callContract, testTransaction). */
export type RunPurpose = "ledger" | "query";

/** The counters every MeteredRuntime of a node adds to, under its purpose. */
export class ContractCounters {
  readonly runs: Counter<"purpose">;
  readonly steps: Counter<"purpose">;
  readonly failures: Counter<"purpose" | "error_code">;

  constructor(registry: Registry) {
    this.runs = new Counter({ name: "chainsim_contract_runs_total", help: "Contract runs started (nested runs too)", labelNames: ["purpose"], registers: [registry] });
    this.steps = new Counter({ name: "chainsim_contract_steps_total", help: "Contract steps used, counted at each outermost run (nested runs included)", labelNames: ["purpose"], registers: [registry] });
    this.failures = new Counter({ name: "chainsim_contract_failures_total", help: "Contract runs that failed, by error code", labelNames: ["purpose", "error_code"], registers: [registry] });
  }
}

/** A ContractRuntime counting its runs, the steps of each transaction's runs, and failures by error code. */
export class MeteredRuntime implements ContractRuntime {
  constructor(
    private readonly inner: ContractRuntime,
    private readonly purpose: RunPurpose,
    private readonly counters: ContractCounters,
  ) {}

  validate(code: string, language: ContractLanguage): Promise<void> {
    return this.inner.validate(code, language);
  }

  async execute(request: ExecutionRequest): Promise<ExecutionOutcome> {
    const { runs, steps, failures } = this.counters;
    const before = request.meter.used;
    runs.inc({ purpose: this.purpose });
    try {
      return await this.inner.execute(request);
    } catch (error) {
      failures.inc({ purpose: this.purpose, error_code: error instanceof ContractFailure ? String(error.code) : "internal" });
      throw error;
    } finally {
      // The meter is shared by a transaction's runs: its outermost run sees every step.
      if (request.depth === 0) steps.inc({ purpose: this.purpose }, request.meter.used - before);
    }
  }

  dispose(): void {
    this.inner.dispose();
  }
}
