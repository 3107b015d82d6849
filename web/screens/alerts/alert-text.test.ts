import { describe, expect, it } from 'vitest';
import { type AlertFacts, cadenceText, clearingText, severityThreshold } from './alert-text.ts';

/** The shipped "avoidable share" rule: warning at 20 %, critical at 50 %, 5 min clear before it resolves. */
const share: AlertFacts = {
  state: 'firing',
  severity: 'critical',
  value: 0.957,
  metric: 'avoidable_share',
  comparator: '>=',
  warning: 0.2,
  critical: 0.5,
  resolveThreshold: null,
  keepFiringForSeconds: 300,
  clearSince: null,
};
const at = Date.UTC(2026, 11, 6, 3, 10, 0);

describe('alert text', () => {
  it('names the threshold an instance was held to by its severity, so "at 20%" next to 50 % makes sense', () => {
    expect(severityThreshold(share)).toBe('critical at ≥ 50.0%');
    expect(severityThreshold({ ...share, severity: 'warning', value: 0.22 })).toBe('warning at ≥ 20.0%');
    expect(severityThreshold({ ...share, severity: null })).toBe('');
  });

  it('says nothing of clearing while the value still meets its threshold, or for a pending instance', () => {
    expect(clearingText(share)).toBeNull();
    expect(clearingText({ ...share, state: 'pending', value: 0.1 })).toBeNull();
    expect(clearingText({ ...share, value: null })).toBeNull();
  });

  it('says when a firing instance back under its threshold resolves: after its keep-firing time', () => {
    const text = clearingText({ ...share, value: 0.12, clearSince: at });
    expect(text).toBe('No longer ≥ 50.0% since 03:10:00 UTC: resolves at 03:15:00 UTC if it stays so (5 min clear).');
  });

  it('says why it fires on: still past the resolve threshold, or down to the warning level only', () => {
    const hysteresis = clearingText({ ...share, value: 0.4, resolveThreshold: 0.3 });
    expect(hysteresis).toBe(
      'No longer ≥ 50.0%, but still ≥ 30.0%, the resolve threshold: fires until it is not, then resolves after 5 min clear.',
    );
    const warning = clearingText({ ...share, value: 0.3 });
    expect(warning).toBe(
      'No longer ≥ 50.0% but still ≥ 20.0% (warning): stays critical until it resolves, 5 min after it clears.',
    );
  });

  it('reads a "below" rule the same way', () => {
    const low: AlertFacts = { ...share, comparator: '<', warning: null, critical: 0.1, value: 0.4, clearSince: at };
    expect(clearingText(low)).toBe(
      'No longer < 10.0% since 03:10:00 UTC: resolves at 03:15:00 UTC if it stays so (5 min clear).',
    );
  });

  it("states the rule's own interval beside the preview's step, never the step alone", () => {
    expect(cadenceText(60, 900_000)).toBe('the rule runs every 1 min; this preview replays one run every 15 min');
    expect(cadenceText(60, 60_000)).toBe('the rule runs every 1 min; each run is shown');
    expect(cadenceText(30, 60_000)).toBe('the rule runs every 30 s; this preview replays one run every 1 min');
  });
});
