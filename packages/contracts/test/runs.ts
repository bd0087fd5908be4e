// What runtime tests share: the request they send (a top-level main with ample time and a transaction's
// steps) and the failure they expect back.
import { expect } from "chai";
import { ContractFailure, DEFAULT_CONTRACT_LIMITS, type ContractHost, type ContractLanguage, type ExecutionRequest } from "../src/index.js";

export const TEST_ENV = {
  thisAddress: "did:bid:contract",
  block: { timestamp: 1, number: 2 },
  tx: { initiator: "did:bid:user", sender: "did:bid:user", gasPrice: "100", hash: "00", feeLimit: "1000" },
  msg: { initiator: "did:bid:user", sender: "did:bid:user", nonce: 1, operationIndex: 0 },
};

export function testRequest(code: string, language: ContractLanguage, host: ContractHost, overrides: Partial<ExecutionRequest> = {}): ExecutionRequest {
  return {
    code,
    entry: "main",
    input: "",
    env: TEST_ENV,
    language,
    readOnly: false,
    depth: 0,
    host,
    meter: { used: 0, limit: DEFAULT_CONTRACT_LIMITS.steps, exhausted: false },
    deadline: performance.now() + 10_000,
    log: () => {},
    ...overrides,
  };
}

/** The ContractFailure a run ends with; fails the test when the run succeeds or throws something else. */
export async function failure(promise: Promise<unknown>): Promise<ContractFailure> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(ContractFailure);
    return error as ContractFailure;
  }
  return expect.fail("expected the run to fail");
}
