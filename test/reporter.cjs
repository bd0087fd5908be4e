// Mocha's spec reporter plus the closing line CI reads: "N passed, N failed[, N skipped]".
const { reporters } = require("mocha");

class SpecWithSummary extends reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once("end", () => {
      const { passes, failures, pending } = runner.stats;
      console.log(`${passes} passed, ${failures} failed${pending ? `, ${pending} skipped` : ""}`);
    });
  }
}

module.exports = SpecWithSummary;
