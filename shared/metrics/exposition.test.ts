import { describe, expect, it } from 'vitest';
import { escapeLabelValue, expose, formatFor, type MetricFamily } from './exposition.ts';
import { Histogram } from './histogram.ts';

const COUNTER: MetricFamily = {
  type: 'counter',
  name: 'lens_things',
  help: 'Things "counted",\nby kind \\ name.',
  samples: [{ labels: [['server', 'a"b\\c\nd']], value: 3 }],
};

describe('the exposition formats', () => {
  it('escapes exactly backslash, double quote and line feed in a label value, and keeps Unicode as it is', () => {
    expect(escapeLabelValue('a"b\\c\nd\re🚀')).toBe('a\\"b\\\\c\\nd\re🚀');
    expect(escapeLabelValue('\\"')).toBe('\\\\\\"');
  });

  it("names a counter's family by its samples in the text format, without _total in OpenMetrics", () => {
    expect(expose([COUNTER], 'text')).toBe(
      [
        '# HELP lens_things_total Things "counted",\\nby kind \\\\ name.',
        '# TYPE lens_things_total counter',
        'lens_things_total{server="a\\"b\\\\c\\nd"} 3',
        '',
      ].join('\n'),
    );
    expect(expose([COUNTER], 'openmetrics')).toBe(
      [
        '# HELP lens_things Things \\"counted\\",\\nby kind \\\\ name.',
        '# TYPE lens_things counter',
        'lens_things_total{server="a\\"b\\\\c\\nd"} 3',
        '# EOF',
        '',
      ].join('\n'),
    );
  });

  it('writes a histogram cumulatively, its bounds as floats, +Inf as its count', () => {
    const histogram = new Histogram([0.5, 1]);
    for (const seconds of [0.2, 0.7, 3]) histogram.observe(seconds);
    const text = expose(
      [{ type: 'histogram', name: 'lens_x_seconds', help: 'x', samples: [histogram.sample()] }],
      'text',
    );
    expect(text).toContain('lens_x_seconds_bucket{le="0.5"} 1\nlens_x_seconds_bucket{le="1.0"} 2\n');
    expect(text).toContain('lens_x_seconds_bucket{le="+Inf"} 3\nlens_x_seconds_sum 3.9\nlens_x_seconds_count 3\n');
  });

  it('refuses a metric or label name either format cannot carry', () => {
    const gauge = (name: string, label: string): MetricFamily => ({
      type: 'gauge',
      name,
      help: '',
      samples: [{ labels: [[label, 'v']], value: 1 }],
    });
    expect(() => expose([gauge('lens-x', 'server')], 'text')).toThrow('metric name');
    expect(() => expose([gauge('lens_x', 'ser ver')], 'text')).toThrow('label name');
    expect(() => expose([gauge('lens_x', '__name__')], 'text')).toThrow('label name');
  });

  it('answers OpenMetrics only when Accept prefers it, the text format otherwise', () => {
    const prometheus =
      'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';
    expect(formatFor(prometheus)).toBe('openmetrics');
    expect(formatFor('application/openmetrics-text')).toBe('openmetrics');
    expect(formatFor(undefined)).toBe('text');
    expect(formatFor('')).toBe('text');
    expect(formatFor('*/*')).toBe('text');
    expect(formatFor('text/plain;q=0.9, application/openmetrics-text;q=0.5')).toBe('text');
    expect(formatFor('application/openmetrics-text;q=0')).toBe('text');
    expect(formatFor('application/openmetrics-text;version=2.0.0')).toBe('text');
    expect(formatFor('application/json, nonsense;;;q=x')).toBe('text');
  });
});
