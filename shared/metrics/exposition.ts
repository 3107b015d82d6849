/**
 * Prometheus exposition: the text format 0.0.4 (https://prometheus.io/docs/instrumenting/exposition_formats/) and
 * OpenMetrics 1.0 (https://prometheus.io/docs/specs/om/open_metrics_spec/), from one description of the metrics.
 * Label values are names taken from logs: escaped as both formats say (backslash, double quote, line feed), so a
 * server named `a"} 1\nfake 2` stays one label value. Metric and label names are ours, and checked.
 */

/** Label names and values of a sample, in the order they are written. */
export type Labels = readonly (readonly [name: string, value: string])[];

export interface Sample {
  labels: Labels;
  value: number;
}

export interface HistogramSample {
  labels: Labels;
  /** Upper bounds and how many observations were at most each, ascending; +Inf is added. */
  buckets: readonly (readonly [le: number, count: number])[];
  sum: number;
  count: number;
}

/**
 * A metric family. A counter's name is given without `_total`: OpenMetrics names the family so, both formats name
 * its samples `<name>_total`.
 */
export type MetricFamily =
  | { type: 'counter' | 'gauge'; name: string; help: string; samples: readonly Sample[] }
  | { type: 'histogram'; name: string; help: string; samples: readonly HistogramSample[] };

export type ExpositionFormat = 'text' | 'openmetrics';

export const CONTENT_TYPES: Record<ExpositionFormat, string> = {
  text: 'text/plain; version=0.0.4; charset=utf-8',
  openmetrics: 'application/openmetrics-text; version=1.0.0; charset=utf-8',
};

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** The families as one exposition; OpenMetrics ends with `# EOF`. */
export function expose(families: readonly MetricFamily[], format: ExpositionFormat): string {
  const lines: string[] = [];
  for (const family of families) {
    checkNames(family);
    // The text format names a counter's family by its samples' name; OpenMetrics by the name without `_total`.
    const named = family.type === 'counter' && format === 'text' ? `${family.name}_total` : family.name;
    lines.push(`# HELP ${named} ${escapeHelp(family.help, format)}`, `# TYPE ${named} ${family.type}`);
    if (family.type === 'histogram') {
      for (const sample of family.samples) lines.push(...histogramLines(family.name, sample));
    } else {
      const sampled = family.type === 'counter' ? `${family.name}_total` : family.name;
      for (const sample of family.samples) lines.push(sampleLine(sampled, sample.labels, sample.value));
    }
  }
  if (format === 'openmetrics') lines.push('# EOF');
  return `${lines.join('\n')}\n`;
}

function histogramLines(name: string, sample: HistogramSample): string[] {
  const buckets: [string, number][] = [
    ...sample.buckets.map(([le, count]): [string, number] => [formatLe(le), count]),
    ['+Inf', sample.count],
  ];
  return [
    ...buckets.map(([le, count]) => sampleLine(`${name}_bucket`, [...sample.labels, ['le', le]], count)),
    sampleLine(`${name}_sum`, sample.labels, sample.sum),
    sampleLine(`${name}_count`, sample.labels, sample.count),
  ];
}

function sampleLine(name: string, labels: Labels, value: number): string {
  const set = labels.map(([label, text]) => `${label}="${escapeLabelValue(text)}"`).join(',');
  return `${name}${set === '' ? '' : `{${set}}`} ${formatValue(value)}`;
}

/** Both formats escape exactly these three in a label value; everything else, Unicode included, is written as is. */
export function escapeLabelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === '\\' ? '\\\\' : c === '"' ? '\\"' : '\\n'));
}

/** The text format escapes backslash and line feed in HELP; OpenMetrics the double quote too. */
function escapeHelp(help: string, format: ExpositionFormat): string {
  const escaped = help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
  return format === 'openmetrics' ? escaped.replace(/"/g, '\\"') : escaped;
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(value);
}

/**
 * A bucket bound as a float (`1.0`, not `1`): OpenMetrics's canonical form, and the text format reads it the same, so
 * both formats name a bucket alike.
 */
function formatLe(le: number): string {
  const text = formatValue(le);
  return Number.isInteger(le) ? `${text}.0` : text;
}

function checkNames(family: MetricFamily): void {
  if (!METRIC_NAME.test(family.name)) throw new Error(`invalid metric name ${JSON.stringify(family.name)}`);
  for (const sample of family.samples) {
    for (const [label] of sample.labels) {
      // `__` names are Prometheus's own, `le` is the histogram's bound.
      if (!LABEL_NAME.test(label) || label.startsWith('__') || (family.type === 'histogram' && label === 'le')) {
        throw new Error(`invalid label name ${JSON.stringify(label)} on ${family.name}`);
      }
    }
  }
}

/**
 * Which format a scraper asked for by its Accept header: OpenMetrics 1.0 when `application/openmetrics-text` (without
 * a version, or 1.0.0) is preferred by its q-value at least as much as anything else we can answer with; else the
 * text format, which is also the answer to no Accept at all. Prometheus asks for OpenMetrics first by default.
 */
export function formatFor(accept: string | undefined): ExpositionFormat {
  let best: { format: ExpositionFormat; q: number } = { format: 'text', q: 0 };
  for (const range of (accept ?? '').split(',')) {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const param = (name: string) => params.find((p) => p.startsWith(`${name}=`))?.slice(name.length + 1);
    const q = Number(param('q') ?? 1);
    if (!(q > best.q)) continue;
    const version = param('version');
    if (type === 'application/openmetrics-text' && (version === undefined || version === '1.0.0')) {
      best = { format: 'openmetrics', q };
    } else if (type === 'text/plain' || type === 'text/*' || type === '*/*') {
      best = { format: 'text', q };
    }
  }
  return best.format;
}
