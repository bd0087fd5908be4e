import { expect } from "chai";
import type { SimulationResult } from "../src/simulation.js";
import { parseTraceFile, TRACE_FILE_FORMAT, traceFileText } from "../src/trace-file.js";
import type { TraceEntry } from "../src/trace.js";

const TRACE: TraceEntry[] = [
  { t: 0, kind: "start", node: "v1", what: "incarnation 1, at ledger 1" },
  { t: 3, kind: "send", id: 0, from: "v1", to: "v2", what: "PREPARE 0/2 108B" },
  { t: 5, kind: "recv", id: 0, from: "v1", to: "v2", what: "PREPARE 0/2 108B" },
  { t: 9, kind: "violation", node: "v2", invariant: "agreement", detail: "ledger 2: v1 stored aa, v2 stored bb" },
];

function result(trace?: TraceEntry[]): SimulationResult {
  const failures = [{ invariant: "agreement", detail: "ledger 2: v1 stored aa, v2 stored bb", at_ms: 9 }];
  return { seed: 7, ok: false, failures, trace_hash: "ab12", simulated_ms: 100, events: 4, ledgers: 2, accepted: 0, schedule: [], faults: [], trace };
}

describe("trace file (JSON lines: a header, then the trace)", () => {
  it("reads back what it wrote: the header and every entry", () => {
    const text = traceFileText(result(TRACE), ["v1", "v2"]);
    expect(text.split("\n")).to.have.length(TRACE.length + 2); // the header, the entries, the final newline
    const { header, entries } = parseTraceFile(text);
    expect(header).to.deep.equal({ format: TRACE_FILE_FORMAT, seed: 7, nodes: ["v1", "v2"], trace_hash: "ab12", failures: result().failures, simulated_ms: 100 });
    expect(entries).to.deep.equal(TRACE);
  });

  it("refuses a run that kept no trace", () => {
    expect(() => traceFileText(result(), ["v1"])).to.throw(/keepTrace/);
  });

  it("names what is wrong with a file that is not one", () => {
    expect(() => parseTraceFile("")).to.throw(/empty/);
    expect(() => parseTraceFile('{"format":"other/1"}\n')).to.throw(/line 1 has format "other\/1"/);
    expect(() => parseTraceFile(`{"format":"${TRACE_FILE_FORMAT}","nodes":["v1"]}\n`)).to.throw(/lacks seed or nodes/);
    const header = traceFileText(result([]), ["v1"]);
    expect(() => parseTraceFile(header + "{oops\n")).to.throw(/line 2 is not JSON/);
    expect(() => parseTraceFile(header + "[1]\n")).to.throw(/line 2 is not a JSON object/);
    expect(() => parseTraceFile(header + '{"kind":"send"}\n')).to.throw(/line 2 has no t or kind/);
  });
});
