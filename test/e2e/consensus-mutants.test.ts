import { expect } from "chai";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * Mutation testing of packages/consensus (npm run test:mutants; docs/consensus.md, "Mutation testing"):
 * every catalogued bug the simulations kill today must stay killed. The survivors below are the open work
 * the docs list (each needs an adversary the simulations do not have yet); a new survivor fails this test.
 */
const KNOWN_SURVIVORS = [
  "certificate-any-proposer",
  "commit-proof-mixed-views",
  "no-persist-before-send",
  "old-view-prepares",
  "equivocation-accepted",
  "prepare-unchecked",
  "restart-in-view-0",
  "restart-forgets-votes",
  "never-join",
];

describe("consensus mutants: the simulations alone kill the catalogued bugs", function () {
  this.timeout(900_000);

  it("kills every catalogued mutant but the known survivors", async () => {
    const script = fileURLToPath(new URL("../../../packages/consensus/scripts/mutants.mjs", import.meta.url));
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [script, "--json"], { stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.on("error", reject);
      // Exit 1 means survivors, which the assertions below judge; anything else is a broken run.
      child.on("close", (code) => (code === 0 || code === 1 ? resolve(out) : reject(new Error(`test:mutants exited with ${code}`))));
    });
    const report = JSON.parse(output) as { mutants: number; killed: number; survived: string[]; seconds: number };
    console.log(`      ${report.killed} of ${report.mutants} mutants killed in ${report.seconds} s; surviving: ${report.survived.join(", ") || "none"}`);
    expect(report.mutants).to.be.at.least(25);
    expect(report.survived.filter((id) => !KNOWN_SURVIVORS.includes(id)), "mutants the simulations no longer kill").to.deep.equal([]);
  });
});
