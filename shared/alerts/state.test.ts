import { describe, expect, it } from 'vitest';
import { advance, INITIAL, type InstanceState, lowestThreshold, type RuleTerms, type Transition } from './state.ts';

const MIN = 60_000;
const T0 = Date.parse('2026-11-02T10:00:00Z');

const base: RuleTerms = {
  comparator: '>=',
  warning: 10,
  critical: 40,
  resolveThreshold: null,
  pendingSeconds: 0,
  keepFiringForSeconds: 0,
  noData: 'ok',
};

/** Feeds one reading per minute from T0; answers every state and the transitions made. */
function run(terms: RuleTerms, values: readonly (number | null)[], start: InstanceState = INITIAL) {
  let state = start;
  const states: string[] = [];
  const transitions: (Transition & { minute: number })[] = [];
  values.forEach((value, minute) => {
    const { next, transition } = advance(terms, state, value, T0 + minute * MIN);
    state = next;
    states.push(next.state);
    if (transition) transitions.push({ ...transition, minute });
  });
  return { state, states, transitions, notified: transitions.filter((t) => t.notify) };
}

describe('alert state machine', () => {
  it('fires at once without a pending period, and resolves as soon as the condition clears', () => {
    const { states, notified } = run(base, [5, 12, 12, 3]);
    expect(states).toEqual(['ok', 'firing', 'firing', 'resolved']);
    expect(notified.map((t) => [t.to, t.severity, t.threshold])).toEqual([
      ['firing', 'warning', 10],
      ['resolved', 'warning', 10],
    ]);
  });

  it('waits out the pending period before firing, and a blip inside it never pages', () => {
    const terms = { ...base, pendingSeconds: 120 };
    const blip = run(terms, [12, 3, 12, 12, 3]);
    expect(blip.states).toEqual(['pending', 'ok', 'pending', 'pending', 'ok']);
    expect(blip.notified).toEqual([]);
    const held = run(terms, [12, 12, 12]);
    expect(held.states).toEqual(['pending', 'pending', 'firing']);
    expect(held.notified.map((t) => t.minute)).toEqual([2]);
  });

  it('keeps firing until the condition has stayed clear for keep-firing-for', () => {
    const terms = { ...base, keepFiringForSeconds: 180 };
    const { states, notified } = run(terms, [12, 3, 3, 12, 3, 3, 3, 3]);
    expect(states).toEqual(['firing', 'firing', 'firing', 'firing', 'firing', 'firing', 'firing', 'resolved']);
    expect(notified.map((t) => t.to)).toEqual(['firing', 'resolved']);
  });

  it('resolves only below the resolve threshold (hysteresis)', () => {
    const terms = { ...base, resolveThreshold: 6 };
    const { states } = run(terms, [12, 8, 6, 5]);
    expect(states).toEqual(['firing', 'firing', 'firing', 'resolved']);
  });

  it('pages once for a flapping value that alternates every evaluation', () => {
    const terms = { ...base, pendingSeconds: 60, keepFiringForSeconds: 120 };
    const flapping = Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? 12 : 3));
    expect(run(terms, flapping).notified).toEqual([]);
    // Held long enough to fire once, then flapping: still one page, no resolution while it keeps coming back.
    const { notified } = run(terms, [12, 12, ...flapping]);
    expect(notified.map((t) => t.to)).toEqual(['firing']);
  });

  it('pages again when a firing warning escalates to critical, not when it calms back to warning', () => {
    const { notified, state } = run(base, [12, 45, 12]);
    expect(notified.map((t) => [t.to, t.severity])).toEqual([
      ['firing', 'warning'],
      ['firing', 'critical'],
    ]);
    expect(state.severity).toBe('critical');
  });

  it('continues the same way from a state that went through JSON, as after a restart', () => {
    const terms = { ...base, pendingSeconds: 120, keepFiringForSeconds: 120 };
    const values = [12, 12, 12, 12, 3, 3, 3, 12];
    const whole = run(terms, values);
    const first = run(terms, values.slice(0, 5));
    const revived = JSON.parse(JSON.stringify(first.state)) as InstanceState;
    let state = revived;
    const later: Transition[] = [];
    values.slice(5).forEach((value, i) => {
      const { next, transition } = advance(terms, state, value, T0 + (i + 5) * MIN);
      state = next;
      if (transition) later.push(transition);
    });
    expect([...first.transitions, ...later].map((t) => t.to)).toEqual(whole.transitions.map((t) => t.to));
    expect(state).toEqual(whole.state);
  });

  it('follows the rule on no data: ok clears, keep_state holds, alerting fires', () => {
    expect(run(base, [12, null]).states).toEqual(['firing', 'resolved']);
    expect(run({ ...base, noData: 'keep_state' }, [12, null, null]).states).toEqual(['firing', 'firing', 'firing']);
    expect(run({ ...base, noData: 'keep_state' }, [null]).states).toEqual(['ok']);
    const alerting = run({ ...base, noData: 'alerting' }, [null]);
    expect(alerting.states).toEqual(['firing']);
    expect(alerting.state.severity).toBe('critical');
  });

  it('compares downward with <= thresholds', () => {
    const terms: RuleTerms = { ...base, comparator: '<=', warning: 0.5, critical: 0.1 };
    expect(run(terms, [0.9, 0.4, 0.05, 0.7]).states).toEqual(['ok', 'firing', 'firing', 'resolved']);
  });
});

describe('lowestThreshold', () => {
  it('is the least threshold of a rule firing upward, below which a group never leaves ok', () => {
    const terms: RuleTerms = { ...base, comparator: '>', warning: 10, critical: 40, resolveThreshold: 6 };
    expect(lowestThreshold(terms)).toBe(6);
    expect(lowestThreshold({ ...base, warning: null })).toBe(40);
    // Every value under it reads as no reading: an instance-less group stays ok, makes no transition.
    for (const value of [0, 3, 5.9]) expect(run(terms, [value]).transitions).toEqual([]);
  });

  it('is null where low values fire: every group matters then', () => {
    expect(lowestThreshold({ ...base, comparator: '<=', warning: 0.5, critical: 0.1 })).toBeNull();
    expect(lowestThreshold({ ...base, comparator: '<', warning: 0.5, critical: null })).toBeNull();
  });
});
