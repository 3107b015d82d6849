import type { SqlRunner } from '../../../db/runner.ts';
import type { RuleInput } from '../../../shared/alerts/rule.ts';
import { advance, INITIAL, type InstanceState, severityOf, type Transition } from '../../../shared/alerts/state.ts';
import { absentValue } from '../../../shared/alerts/values.ts';
import { readMetric, storeReads } from './readings.ts';

/** A preview chart has at most this many points; the step grows with the range instead. */
const MAX_POINTS = 96;
/** Series drawn: the groups that would have alerted first, then the highest. */
const MAX_SERIES = 8;
const MAX_TRANSITIONS = 200;
const MINUTE_MS = 60_000;

export interface PreviewSeries {
  group: string;
  server: string | null;
  values: (number | null)[];
}

export interface PreviewTransition extends Omit<Transition, 'notify'> {
  at: number;
  group: string;
  notify: boolean;
}

export interface Preview {
  step: number;
  points: number[];
  series: PreviewSeries[];
  transitions: PreviewTransition[];
  /** How many notifications the rule would have sent over the range. */
  notifications: number;
  groups: number;
}

/**
 * What a rule would have done over [from, to): its metric at evenly spaced evaluations (each over the rule's
 * window ending there, read by the same function as live evaluation) fed through the same state machine.
 */
export function previewRule(db: SqlRunner, rule: RuleInput, from: number, to: number): Promise<Preview> {
  // One preview at a time per process: each is up to 96 metric reads, and an editor asks for one per change.
  const run = previews.then(() => computePreview(db, rule, from, to));
  previews = run.catch(() => undefined);
  return run;
}

let previews: Promise<unknown> = Promise.resolve();

async function computePreview(db: SqlRunner, rule: RuleInput, from: number, to: number): Promise<Preview> {
  const step = Math.max(rule.intervalSeconds * 1000, ceilTo((to - from) / MAX_POINTS, MINUTE_MS));
  const points: number[] = [];
  for (let t = ceilTo(from + step, step); t <= to; t += step) points.push(t);
  const reads = storeReads(db);
  const byGroup = new Map<string, PreviewSeries & { state: InstanceState; alerted: boolean }>();
  const transitions: PreviewTransition[] = [];
  let notifications = 0;
  for (const [index, at] of points.entries()) {
    const seen = new Set<string>();
    for (const reading of await readMetric(db, reads, rule, at)) {
      seen.add(reading.group);
      let entry = byGroup.get(reading.group);
      if (entry === undefined) {
        entry = { ...reading, values: new Array(points.length).fill(null), state: INITIAL, alerted: false };
        byGroup.set(reading.group, entry);
      }
      entry.values[index] = reading.value;
      entry.server ??= reading.server;
    }
    for (const [group, entry] of byGroup) {
      const value = seen.has(group) ? (entry.values[index] ?? null) : absentValue(rule.metric);
      const terms = seen.has(group) ? rule : { ...rule, noData: 'ok' as const };
      const { next, transition } = advance(terms, entry.state, value, at);
      entry.state = next;
      if (transition === null) continue;
      entry.alerted ||= transition.notify;
      if (transition.notify) notifications += 1;
      if (transitions.length < MAX_TRANSITIONS) transitions.push({ ...transition, at, group });
    }
  }
  // A group that never had a reading (a silent server, for a rate) draws nothing: it is left off the chart.
  const series = [...byGroup.values()]
    .filter((entry) => entry.values.some((value) => value !== null))
    .sort((a, b) => Number(b.alerted) - Number(a.alerted) || peak(rule, b.values) - peak(rule, a.values))
    .slice(0, MAX_SERIES)
    .map(({ group, server, values }) => ({ group, server, values }));
  return { step, points, series, transitions, notifications, groups: byGroup.size };
}

/** How far toward alerting a series got: its most severe value in the rule's direction. */
function peak(rule: RuleInput, values: readonly (number | null)[]): number {
  const upward = rule.comparator.startsWith('>');
  let best = Number.NEGATIVE_INFINITY;
  for (const value of values) {
    if (value === null) continue;
    const score = (upward ? value : -value) + (severityOf(rule, value) === null ? 0 : 1e12);
    best = Math.max(best, score);
  }
  return best;
}

function ceilTo(value: number, size: number): number {
  return Math.ceil(value / size) * size;
}
