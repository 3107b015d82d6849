import { randomUUID } from 'node:crypto';
import {
  claimRound,
  deleteInstance,
  type InstanceRow,
  insertDelivery,
  insertHistory,
  instancesOfRule,
  recordRuleError,
  saveInstance,
} from '../../../db/queries/alerts.ts';
import type { Store, TxRunner } from '../../../db/runner.ts';
import { buildNotice } from '../../../shared/alerts/notice.ts';
import type { Rule } from '../../../shared/alerts/rule.ts';
import { advance, INITIAL, type InstanceState, type Severity, type Transition } from '../../../shared/alerts/state.ts';
import { absentValue, type GroupValue } from '../../../shared/alerts/values.ts';
import { narrowingOf, type Reading } from './readings.ts';

export interface Round {
  rule: Rule;
  /** The due time the rule was read with: the round is only taken if no other evaluator moved it meanwhile. */
  seenDueAt: number;
}

/**
 * One evaluation of one rule at `now`: read the metric (outside the transaction, as the dashboard reads it), then in
 * one transaction take the round, advance every instance, and write the transitions with their notifications. A
 * crash before the commit leaves the round due again; after it, the notifications are in the outbox, so a restart
 * neither repeats nor loses one.
 */
export async function evaluateRule(
  store: Store,
  read: (rule: Reading) => Promise<GroupValue[]>,
  round: Round,
  now: number,
): Promise<boolean> {
  const { rule } = round;
  const claim = { id: rule.id, seen: round.seenDueAt, next: now + rule.intervalSeconds * 1000, now };
  try {
    const readings = await read({ ...rule, narrow: await narrowingOf(store, rule) });
    return await store.transaction(async (tx) => {
      if (!(await claimRound(tx, claim))) return false;
      const instances = new Map((await instancesOfRule(tx, rule.id)).map((row) => [row.groupKey, row]));
      for (const reading of readings) {
        await step(tx, rule, instances.get(reading.group), reading, now);
        instances.delete(reading.group);
      }
      // A group gone from the readings had no traffic left in the window: a count of 0, a rate with no reading.
      // Either way it is not "no data" for the rule: an identity nobody sends any more is no reason to alert.
      for (const row of instances.values()) {
        const reading = { group: row.groupKey, value: absentValue(rule.metric), server: row.server };
        await step(tx, { ...rule, noData: 'ok' }, row, reading, now);
      }
      return true;
    });
  } catch (error) {
    // The round is spent all the same: a failing rule is tried again at its next interval, not on every tick.
    if (await claimRound(store, claim)) {
      await recordRuleError(store, rule.id, error instanceof Error ? error.message : String(error));
    }
    throw error;
  }
}

/** How long a resolved instance stays listed (GET /alerts?resolved=1) before only the history holds it. */
const RESOLVED_KEEP_MS = 60 * 60_000;

async function step(
  tx: TxRunner,
  rule: Rule,
  row: InstanceRow | undefined,
  reading: GroupValue,
  now: number,
): Promise<void> {
  const current = row === undefined ? INITIAL : toState(row);
  const { next, transition } = advance(rule, current, reading.value, now);
  const server = reading.server ?? row?.server ?? rule.scope.server ?? null;
  if (transition !== null) await recordTransition(tx, rule, reading.group, server, transition, now);
  const expired = next.state === 'resolved' && now - next.since >= RESOLVED_KEEP_MS;
  if (next.state === 'ok' || expired) {
    if (row !== undefined) await deleteInstance(tx, rule.id, reading.group);
    return;
  }
  await saveInstance(tx, {
    ruleId: rule.id,
    groupKey: reading.group,
    server,
    state: next.state,
    severity: next.severity,
    value: next.value,
    since: next.since,
    clearSince: next.clearSince,
    evaluatedAt: now,
  });
}

/** Writes a transition to the history and, when it notifies, one outbox row per target of the rule. */
export async function recordTransition(
  tx: TxRunner,
  rule: Rule,
  group: string,
  server: string | null,
  transition: Transition,
  now: number,
): Promise<void> {
  const historyId = await insertHistory(tx, {
    ruleId: rule.id,
    ruleName: rule.name,
    groupKey: group,
    server,
    at: now,
    fromState: transition.from,
    toState: transition.to,
    severity: transition.severity,
    value: transition.value,
    threshold: transition.threshold,
  });
  if (!transition.notify) return;
  // Unique across stores and installations: a receiver that deduplicates by key never drops a real page.
  const notice = buildNotice({ key: randomUUID(), rule, group, server, ...transition, at: now });
  for (const target of rule.targets) {
    await insertDelivery(tx, {
      historyId,
      ruleId: rule.id,
      targetType: target.type,
      targetUrl: target.url,
      targetSecret: target.routingKey ?? null,
      notice: JSON.stringify(notice),
      createdAt: now,
    });
  }
}

function toState(row: InstanceRow): InstanceState {
  return {
    state: row.state as InstanceState['state'],
    severity: row.severity as Severity | null,
    value: row.value,
    since: row.since,
    clearSince: row.clearSince,
  };
}
