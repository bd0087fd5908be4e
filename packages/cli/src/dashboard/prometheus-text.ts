/**
 * A strict reader of Prometheus' text exposition format 0.0.4, as a node's GET /metrics answers it
 * (docs/operations.md, "Metrics"): every sample must belong to a family declared by `# TYPE` before it, names
 * and labels must be well formed, values numbers. Anything else throws, naming the line.
 */

export type MetricType = "counter" | "gauge" | "histogram" | "summary" | "untyped";

export interface Sample {
  /** The sample's own name: a histogram's `_bucket`, `_sum` and `_count` lines name their family with a suffix. */
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  type: MetricType;
  help: string;
  samples: Sample[];
}

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: -?\\d+)?$`);
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)/y;
const TYPES = new Set<MetricType>(["counter", "gauge", "histogram", "summary", "untyped"]);
const SUFFIXES: Record<MetricType, string[]> = { counter: [""], gauge: [""], untyped: [""], histogram: ["_bucket", "_sum", "_count"], summary: ["", "_sum", "_count"] };

export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  const helps = new Map<string, string>();
  text.split("\n").forEach((line, index) => {
    const fail = (why: string) => {
      throw new Error(`metrics line ${index + 1}: ${why}: ${JSON.stringify(line)}`);
    };
    if (line === "") return;
    const comment = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (comment) {
      const [, keyword, name, rest] = comment;
      if (!new RegExp(`^${NAME}$`).test(name)) fail("bad metric name");
      if (keyword === "HELP") helps.set(name, rest);
      else if (!TYPES.has(rest as MetricType) || families.has(name)) fail("bad or repeated TYPE");
      else families.set(name, { type: rest as MetricType, help: "", samples: [] });
      return;
    }
    if (line.startsWith("#")) return;
    const sample = SAMPLE.exec(line) ?? fail("not a sample");
    const [, name, labelText, valueText] = sample!;
    const family = familyOf(families, name) ?? fail("a sample of no declared family");
    const value = parseValue(valueText) ?? fail("not a number");
    family!.samples.push({ name, labels: parseLabels(labelText ?? "") ?? fail("bad labels"), value: value! });
  });
  for (const [name, family] of families) family.help = helps.get(name) ?? "";
  return families;
}

function familyOf(families: Map<string, MetricFamily>, sampleName: string): MetricFamily | undefined {
  for (const [name, family] of families) if (SUFFIXES[family.type].some((suffix) => name + suffix === sampleName)) return family;
  return undefined;
}

/** A sample value as Prometheus reads it (Go's ParseFloat): NaN and Inf in any case; prom-client writes "Nan". */
function parseValue(text: string): number | undefined {
  if (/^nan$/i.test(text)) return NaN;
  const infinity = /^([-+]?)inf$/i.exec(text);
  if (infinity) return infinity[1] === "-" ? -Infinity : Infinity;
  return /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) ? Number(text) : undefined;
}

function parseLabels(text: string): Record<string, string> | undefined {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const match = LABEL.exec(text);
    if (!match || match[1] in labels) return undefined;
    labels[match[1]] = match[2].replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
  }
  return LABEL.lastIndex === text.length || text === "" ? labels : undefined;
}
