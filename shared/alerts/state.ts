import { meets } from './compare.ts';
import type { RuleInput } from './rule.ts';

/**
 * One alert instance (a rule, or one group of a grouped rule) through time: ok → pending → firing → resolved.
 * Pure: the evaluator feeds it one reading per evaluation and persists what it answers, so a restart continues
 * exactly where it stopped. Flapping is damped by the rule's two clocks: the condition must hold for the pending
 * period before firing, and stay clear for keep-firing-for before resolving; a value bouncing faster than either
 * neither pages nor un-pages.
 */
export const ALERT_STATES = ['ok', 'pending', 'firing', 'resolved'] as const;
export type AlertState = (typeof ALERT_STATES)[number];
export type Severity = 'warning' | 'critical';

export interface InstanceState {
  state: AlertState;
  /** The severity while pending or firing; the last one when resolved. */
  severity: Severity | null;
  /** The last reading; null when there was none. */
  value: number | null;
  /** When the current state began. */
  since: number;
  /** While firing: when the condition was first seen clear again (keep-firing-for runs from here); else null. */
  clearSince: number | null;
}

export interface Transition {
  from: AlertState;
  to: AlertState;
  severity: Severity | null;
  value: number | null;
  /** The threshold the value was compared with: the severity's, or the resolve threshold on resolution. */
  threshold: number | null;
  /** Whether this transition is sent to the rule's targets: firing, escalating, resolving. */
  notify: boolean;
}

export type RuleTerms = Pick<
  RuleInput,
  'comparator' | 'warning' | 'critical' | 'resolveThreshold' | 'pendingSeconds' | 'keepFiringForSeconds' | 'noData'
>;

export const INITIAL: InstanceState = { state: 'ok', severity: null, value: null, since: 0, clearSince: null };

/** The severity a reading meets, critical first; null when it meets neither threshold. */
export function severityOf(rule: RuleTerms, value: number): Severity | null {
  if (rule.critical !== null && meets(rule.comparator, value, rule.critical)) return 'critical';
  if (rule.warning !== null && meets(rule.comparator, value, rule.warning)) return 'warning';
  return null;
}

export function thresholdOf(rule: RuleTerms, severity: Severity | null): number | null {
  if (severity === 'critical') return rule.critical;
  if (severity === 'warning') return rule.warning;
  return null;
}

/**
 * For a rule that fires on high values (`>=`, `>`): the least value that can matter to a group with no instance yet,
 * its lowest threshold (a resolve threshold included). A group below it reads as a group with no reading at all:
 * it stays "ok", so a reading may leave it out. Null where low values fire (`<=`, `<`): every group matters then.
 */
export function lowestThreshold(
  rule: Pick<RuleTerms, 'comparator' | 'warning' | 'critical' | 'resolveThreshold'>,
): number | null {
  if (rule.comparator === '<' || rule.comparator === '<=') return null;
  const thresholds = [rule.warning, rule.critical, rule.resolveThreshold].filter((value) => value !== null);
  return thresholds.length === 0 ? null : Math.min(...thresholds);
}

const RANK: Record<Severity, number> = { warning: 1, critical: 2 };

/** What a reading says: the severity it meets, and whether a firing instance still counts as firing. */
interface Reading {
  severity: Severity | null;
  stillFiring: boolean;
}

function read(rule: RuleTerms, value: number | null): Reading | 'keep' {
  if (value === null) {
    if (rule.noData === 'keep_state') return 'keep';
    if (rule.noData === 'alerting') {
      const severity = rule.critical !== null ? 'critical' : 'warning';
      return { severity, stillFiring: true };
    }
    return { severity: null, stillFiring: false };
  }
  const severity = severityOf(rule, value);
  // With a resolve threshold, a firing instance fires on while the value still meets it: hysteresis.
  const stillFiring =
    rule.resolveThreshold === null ? severity !== null : meets(rule.comparator, value, rule.resolveThreshold);
  return { severity, stillFiring };
}

/** Advances an instance by one evaluation at `now`; answers the next state and the transition it made, if any. */
export function advance(
  rule: RuleTerms,
  current: InstanceState,
  value: number | null,
  now: number,
): { next: InstanceState; transition: Transition | null } {
  const reading = read(rule, value);
  if (reading === 'keep') return { next: { ...current, value }, transition: null };
  const pendingMs = rule.pendingSeconds * 1000;
  const keepMs = rule.keepFiringForSeconds * 1000;
  const move = (to: AlertState, severity: Severity | null, threshold: number | null, notify: boolean) => ({
    next: { state: to, severity, value, since: now, clearSince: null },
    transition: { from: current.state, to, severity, value, threshold, notify },
  });

  switch (current.state) {
    case 'ok':
    case 'resolved': {
      if (reading.severity === null) return { next: { ...current, value }, transition: null };
      if (pendingMs === 0) return move('firing', reading.severity, thresholdOf(rule, reading.severity), true);
      return move('pending', reading.severity, thresholdOf(rule, reading.severity), false);
    }
    case 'pending': {
      if (reading.severity === null) return move('ok', null, null, false);
      if (now - current.since >= pendingMs) {
        return move('firing', reading.severity, thresholdOf(rule, reading.severity), true);
      }
      return { next: { ...current, severity: reading.severity, value }, transition: null };
    }
    case 'firing': {
      if (reading.stillFiring) {
        const severity = current.severity;
        if (reading.severity !== null && severity !== null && RANK[reading.severity] > RANK[severity]) {
          // An escalation pages again; a de-escalation waits for the resolution.
          const threshold = thresholdOf(rule, reading.severity);
          return {
            next: { ...current, severity: reading.severity, value, clearSince: null },
            transition: { from: 'firing', to: 'firing', severity: reading.severity, value, threshold, notify: true },
          };
        }
        return { next: { ...current, value, clearSince: null }, transition: null };
      }
      const clearSince = current.clearSince ?? now;
      if (now - clearSince >= keepMs) {
        return move('resolved', current.severity, rule.resolveThreshold ?? thresholdOf(rule, current.severity), true);
      }
      return { next: { ...current, value, clearSince }, transition: null };
    }
  }
}
