import { expect } from "chai";
import { MemoryHub, MemoryPeerNetwork } from "../../src/index.js";
import { describePeerNetworkConformance } from "./conformance.js";
import { testValidator } from "./keys.js";

describePeerNetworkConformance("MemoryPeerNetwork", async (size) => {
  const hub = new MemoryHub();
  const addresses = (await Promise.all(Array.from({ length: size }, (_, i) => testValidator(`v${i}`)))).map((v) => v.address);
  const outsider = (await testValidator("outsider")).address;
  return {
    addresses,
    create: async (index, options) => new MemoryPeerNetwork(hub, addresses[index], addresses.filter((_, j) => j !== index), options?.queueLimits),
    createOutsider: async () => new MemoryPeerNetwork(hub, outsider, addresses),
  };
});

describe("MemoryHub", () => {
  it("idle() waits for messages that handlers send in reply", async () => {
    const hub = new MemoryHub();
    const [a, b] = await Promise.all(["a", "b"].map((name) => testValidator(name)));
    const netA = new MemoryPeerNetwork(hub, a.address, [b.address]);
    const netB = new MemoryPeerNetwork(hub, b.address, [a.address]);
    const replies: string[] = [];
    netB.onMessage((from, payload) => netB.send(from, payload, "consensus"));
    netA.onMessage((_, payload) => replies.push(new TextDecoder().decode(payload)));
    await Promise.all([netA.start(), netB.start()]);
    netA.send(b.address, new TextEncoder().encode("ping"), "consensus");
    await hub.idle();
    expect(replies).to.deep.equal(["ping"]);
  });
});
