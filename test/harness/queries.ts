import type { ApiResponse, ChainsimClient } from "@chainsim/client";
import { TIME_EXPIRED } from "@chainsim/contracts";
import { expect } from "chai";

/** How often a query the wall clock ended is asked again. */
const CLOCK_RETRIES = 4;

/**
 * A callContract answer given by the contract's deterministic limits, not by the node's wall clock. A query the
 * clock ended (docs/contracts.md, "When a guard trips") depends on the machine's load, not on the contract, so
 * it is asked again, at most CLOCK_RETRIES times; a trip that outlives them fails the test. `who` names the
 * validator in the messages.
 */
export async function callContractPastClock(client: ChainsimClient, request: object, who: string): Promise<ApiResponse<unknown>> {
  for (let retry = 0; ; retry++) {
    const answer = await client.callContract(request as never);
    if (!JSON.stringify(answer.result).includes(TIME_EXPIRED)) return answer;
    expect(retry, `${who}: the wall clock still ended the query after ${CLOCK_RETRIES} retries`).to.be.below(CLOCK_RETRIES);
    console.log(`      ${who}'s wall clock ended the query (a loaded machine): asking again (${retry + 1} of ${CLOCK_RETRIES})`);
  }
}
