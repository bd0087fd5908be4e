import { ChainError, ErrorCode, contractAddress, type Json } from "@chainsim/protocol";
import type { ContractSupport } from "../executor.js";
import type { ChainParams } from "../params.js";
import type { StateView } from "../../state/state-view.js";
import { queryFailure, queryReturn } from "./chain-host.js";
import { ContractRun, type LedgerPosition } from "./engine.js";

export interface QueryRequest {
  /** The contract to query, or undefined to run `code` instead. */
  contractAddress?: string;
  code?: string;
  input: string;
  source: string;
}

/**
 * callContract with opt_type 2: runs `query(input)` read-only on a throwaway state, as if in the next
 * ledger (contract-runtime.md §1), and reports every query that ran, innermost first.
 */
export async function queryContract(
  support: ContractSupport,
  state: StateView,
  params: ChainParams,
  ledger: LedgerPosition,
  request: QueryRequest,
): Promise<{ error?: ChainError; result: { [key: string]: Json } }> {
  const run = new ContractRun(support.runtime, support.limits, state, params, ledger, {
    hash: new Uint8Array(),
    hashHex: "",
    source: request.source,
    nonce: 0n,
    feeLimit: 0n,
    gasPrice: 0n,
    baseGas: 0n,
  });
  let address = request.contractAddress;
  if (address === undefined) {
    // Code without an account: run it from a temporary account of the throwaway state.
    address = contractAddress(request.source || "callContract", 0n, 0);
    state.putAccount({ address, contract: { payload: request.code ?? "" } });
  }
  const msg = { initiator: request.source, sender: request.source, nonce: 0, operationIndex: 0 };
  const frame = run.frame(address, address, msg, 0, true);
  const started = performance.now();
  let error: ChainError | undefined;
  try {
    const value = await run.execute(frame, "query", request.input);
    const answer = queryReturn(value, address);
    run.queryReturns.push(answer);
    if ("error" in answer) error = new ChainError(ErrorCode.CONTRACT_EXECUTE_FAIL, answer.error.data.exception);
  } catch (e) {
    if (!(e instanceof ChainError)) throw e;
    error = e;
    run.queryReturns.push(queryFailure(e, address));
  }
  const result = {
    logs: Object.fromEntries(run.logs.map((entry, i) => [`${i}-${entry.contract}`, entry.text])),
    query_rets: run.queryReturns as unknown as Json,
    stat: {
      apply_time: Math.round((performance.now() - started) * 1000),
      memory_usage: run.memoryUsage,
      stack_usage: run.stackUsage,
      step: run.meter.used,
    },
    txs: null,
  };
  return { error, result };
}
