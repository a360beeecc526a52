/**
 * Prometheus' text exposition format (version 0.0.4), for the gauges `durable-agent serve` computes at
 * scrape time: families of samples with `# HELP` and `# TYPE`, label values escaped.
 */

/** The content type of the text format. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** One sample: its labels and value. */
export interface Sample {
  labels: Readonly<Record<string, string>>;
  value: number;
}

/** A metric family: its name, help, type and samples (none: only its HELP and TYPE lines). */
export interface MetricFamily {
  name: string;
  help: string;
  type: 'gauge' | 'counter';
  samples: readonly Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** A label value escaped: backslash, double quote and line feed. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/**
 * `families` in the text format, each sample's labels in the order given.
 *
 * @throws {Error} a metric or label name Prometheus would refuse (a programming error).
 * @example
 * ```ts
 * formatPrometheus([{ name: 'jobs', help: 'Jobs.', type: 'gauge', samples: [{ labels: { queue: 'a' }, value: 2 }] }]);
 * // # HELP jobs Jobs.\n# TYPE jobs gauge\njobs{queue="a"} 2\n
 * ```
 */
export function formatPrometheus(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  for (const family of families) {
    if (!NAME.test(family.name)) throw new Error(`"${family.name}" is not a Prometheus metric name`);
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
    for (const sample of family.samples) {
      const labels = Object.entries(sample.labels).map(([k, v]) => {
        if (!LABEL.test(k) || k.startsWith('__')) throw new Error(`"${k}" is not a Prometheus label name`);
        return `${k}="${escapeLabelValue(v)}"`;
      });
      lines.push(`${family.name}${labels.length ? `{${labels.join(',')}}` : ''} ${formatValue(sample.value)}`);
    }
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}
