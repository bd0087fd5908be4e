import { CONTRACT_SYNTAX_ERROR, ContractFailure, truncateUtf8 } from "./failure.js";
import { ContractSourceError, instrumentCached } from "./js/instrument.js";
import { lintContract } from "./js/lint.js";
import type { ContractLimits } from "./limits.js";

/** The metered text of a contract (js/instrument.ts); a refusal is a ContractFailure (152, or 155 for its size). */
export function instrumentContract(code: string, limits: ContractLimits, onMiss?: () => void): string {
  try {
    return instrumentCached(code, limits, onMiss);
  } catch (error) {
    if (error instanceof ContractSourceError) throw new ContractFailure(error.code, truncateUtf8(error.message));
    throw error;
  }
}

/** Checks code before deployment: it must instrument, and pass the lint if the network asks for it (152). */
export function validateContract(code: string, limits: ContractLimits): void {
  instrumentContract(code, limits);
  if (!limits.lint) return;
  const warnings = lintContract(code);
  if (warnings.length > 0) throw new ContractFailure(CONTRACT_SYNTAX_ERROR, JSON.stringify(warnings));
}
