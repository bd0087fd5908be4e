import { expect } from "chai";
import { seededRandom } from "@chainsim/protocol";
import { SimLoad } from "../src/load.js";
import type { SimValidator } from "../src/sim-validator.js";
import { testNetwork } from "./network.js";

describe("simulated client load", () => {
  it("a step against a validator that is down is no failure, before funding is seen committed too", async () => {
    const network = testNetwork(4);
    const config = network.configs[0]!;
    const load = new SimLoad(config.network, network.genesisPrivateKey, config.genesis.chain_id, config.genesis.gas_price, seededRandom(1));
    const down = { name: "v1", core: undefined } as unknown as SimValidator;
    await load.step(down, 0); // signs the funding transaction; the submission finds the validator down
    await load.step(down, 100); // asks whether the funding is committed: must not read a core that is not there
    expect(load.history.submissions.every((s) => s.error === "the validator is down")).to.equal(true);
    expect(load.accepted()).to.deep.equal([]);
  });
});
