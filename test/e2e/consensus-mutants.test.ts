import { expect } from "chai";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * Mutation testing of packages/consensus (npm run test:mutants; docs/consensus.md, "Mutation testing"):
 * the simulations alone must kill every catalogued bug. Entries marked equivalent carry the argument why
 * no run can tell them from the correct code; marking another one is a change to review here, not a way
 * to make this test pass.
 */
const EQUIVALENT = ["old-view-prepares", "restart-forgets-votes", "restart-resets-new-view-max"];

describe("consensus mutants: the simulations alone kill every catalogued bug", function () {
  // Minutes on a quiet machine, more beside npm test's other lane (scripts/run-tests.mjs).
  this.timeout(1_500_000);

  it("kills every catalogued mutant", async () => {
    const script = fileURLToPath(new URL("../../../packages/consensus/scripts/mutants.mjs", import.meta.url));
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [script, "--json"], { stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.on("error", reject);
      // Exit 1 means survivors, which the assertions below name; anything else is a broken run.
      child.on("close", (code) => (code === 0 || code === 1 ? resolve(out) : reject(new Error(`test:mutants exited with ${code}`))));
    });
    const report = JSON.parse(output) as { mutants: number; killed: number; survived: string[]; equivalent: string[]; seconds: number };
    console.log(`      ${report.killed} of ${report.mutants} mutants killed in ${report.seconds} s; surviving: ${report.survived.join(", ") || "none"}`);
    expect(report.mutants).to.be.at.least(25);
    expect(report.survived, "mutants the simulations do not kill").to.deep.equal([]);
    expect(report.equivalent).to.deep.equal(EQUIVALENT);
  });
});
