// The strict reader of a node's GET /metrics (docs/operations.md, "Metrics") that the dashboard and the e2e test use.
import { expect } from "chai";
import { parsePrometheusText } from "../src/dashboard/prometheus-text.js";

/** As prom-client writes it: HELP and TYPE first, histograms as _bucket/_sum/_count, escaped label values. */
const EXPOSITION = `# HELP chainsim_ledger_height Sequence number of the last closed ledger
# TYPE chainsim_ledger_height gauge
chainsim_ledger_height 42

# HELP chainsim_http_requests_total HTTP requests answered
# TYPE chainsim_http_requests_total counter
chainsim_http_requests_total{method="GET",route="/getLedger",status="200"} 3
chainsim_http_requests_total{method="GET",route="say \\"hi\\"\\\\",status="404"} 1

# HELP chainsim_commit_latency_seconds Admission to commit
# TYPE chainsim_commit_latency_seconds histogram
chainsim_commit_latency_seconds_bucket{le="0.5"} 1
chainsim_commit_latency_seconds_bucket{le="+Inf"} 2
chainsim_commit_latency_seconds_sum 1.25e0
chainsim_commit_latency_seconds_count 2
`;

describe("parsePrometheusText", () => {
  it("reads families, their types, samples, labels and values", () => {
    const families = parsePrometheusText(EXPOSITION);
    expect([...families.keys()]).to.deep.equal(["chainsim_ledger_height", "chainsim_http_requests_total", "chainsim_commit_latency_seconds"]);
    expect(families.get("chainsim_ledger_height")).to.deep.equal({ type: "gauge", help: "Sequence number of the last closed ledger", samples: [{ name: "chainsim_ledger_height", labels: {}, value: 42 }] });
    expect(families.get("chainsim_http_requests_total")!.samples[1]!.labels).to.deep.equal({ method: "GET", route: 'say "hi"\\', status: "404" });
    const histogram = families.get("chainsim_commit_latency_seconds")!;
    expect(histogram.samples.map((s) => [s.name, s.labels.le, s.value])).to.deep.equal([
      ["chainsim_commit_latency_seconds_bucket", "0.5", 1],
      ["chainsim_commit_latency_seconds_bucket", "+Inf", 2],
      ["chainsim_commit_latency_seconds_sum", undefined, 1.25],
      ["chainsim_commit_latency_seconds_count", undefined, 2],
    ]);
  });

  it("reads NaN and infinities in any case, as Prometheus does (prom-client writes an idle event loop's lag as Nan)", () => {
    const values = parsePrometheusText("# TYPE g gauge\ng{a=\"1\"} Nan\ng{a=\"2\"} NaN\ng{a=\"3\"} -inf\ng{a=\"4\"} +Inf").get("g")!.samples.map((s) => s.value);
    expect(values).to.deep.equal([NaN, NaN, -Infinity, Infinity]);
  });

  for (const [why, text] of [
    ["a sample of no declared family", "chainsim_x 1"],
    ["a histogram suffix on a gauge", "# TYPE g gauge\ng_sum 1"],
    ["a value that is not a number", "# TYPE g gauge\ng one"],
    ["an unquoted label value", "# TYPE g gauge\ng{a=b} 1"],
    ["a label given twice", '# TYPE g gauge\ng{a="1",a="2"} 1'],
    ["an unknown type", "# TYPE g meter"],
    ["a family declared twice", "# TYPE g gauge\n# TYPE g gauge"],
  ]) {
    it(`refuses ${why}`, () => {
      expect(() => parsePrometheusText(text!)).to.throw(/metrics line \d+/);
    });
  }
});
