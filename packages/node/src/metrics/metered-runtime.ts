import { Counter, type Registry } from "prom-client";
import { ContractFailure, type ContractLanguage, type ContractRuntime, type ExecutionOutcome, type ExecutionRequest } from "@chainsim/contracts";

/** Whose runs: ledgers' (proposing, checking, committing) or queries' (callContract, testTransaction). */
export type RunPurpose = "ledger" | "query";

/** A ContractRuntime counting its runs, the steps of each transaction's runs, and failures by error code. */
export class MeteredRuntime implements ContractRuntime {
  private readonly runs: Counter<"purpose">;
  private readonly steps: Counter<"purpose">;
  private readonly failures: Counter<"purpose" | "error_code">;

  constructor(
    private readonly inner: ContractRuntime,
    private readonly purpose: RunPurpose,
    registry: Registry,
  ) {
    // Both runtimes of a node share one registry: the first to come defines the families.
    this.runs = counter(registry, "chainsim_contract_runs_total", "Contract runs started (nested runs too)", ["purpose"]);
    this.steps = counter(registry, "chainsim_contract_steps_total", "Contract steps used, counted at each outermost run (nested runs included)", ["purpose"]);
    this.failures = counter(registry, "chainsim_contract_failures_total", "Contract runs that failed, by error code", ["purpose", "error_code"]);
  }

  validate(code: string, language: ContractLanguage): Promise<void> {
    return this.inner.validate(code, language);
  }

  async execute(request: ExecutionRequest): Promise<ExecutionOutcome> {
    const before = request.meter.used;
    this.runs.inc({ purpose: this.purpose });
    try {
      return await this.inner.execute(request);
    } catch (error) {
      this.failures.inc({ purpose: this.purpose, error_code: error instanceof ContractFailure ? String(error.code) : "internal" });
      throw error;
    } finally {
      // The meter is shared by a transaction's runs: its outermost run sees every step.
      if (request.depth === 0) this.steps.inc({ purpose: this.purpose }, request.meter.used - before);
    }
  }

  dispose(): void {
    this.inner.dispose();
  }
}

function counter<L extends string>(registry: Registry, name: string, help: string, labelNames: L[]): Counter<L> {
  return (registry.getSingleMetric(name) as Counter<L> | undefined) ?? new Counter({ name, help, labelNames, registers: [registry] });
}
