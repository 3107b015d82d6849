import { listDeliveryRows, listHistoryRows, listInstanceRows } from '../../../db/queries/alerts.ts';
import type { SqlRunner } from '../../../db/runner.ts';
import type { Notice } from '../../../shared/alerts/notice.ts';
import { type TargetType, targetHost } from '../../../shared/alerts/rule.ts';
import { listRules, redactRule, type StoredRule } from './rules.ts';

/** Every rule with how many of its instances are firing and pending right now; target URLs shown as hosts. */
export async function rulesWithState(db: SqlRunner) {
  const [rules, instances] = await Promise.all([listRules(db), listInstanceRows(db, { includeResolved: false })]);
  return rules.map((rule) => ({
    ...redactRule(rule),
    firing: instances.filter((i) => i.ruleId === rule.id && i.state === 'firing').length,
    pending: instances.filter((i) => i.ruleId === rule.id && i.state === 'pending').length,
  }));
}

/** Alert instances (firing first), each with the rule facts a reader needs to make sense of its value. */
export async function alertInstances(db: SqlRunner, filter: { server?: string; includeResolved: boolean }) {
  const [rows, rules] = await Promise.all([listInstanceRows(db, filter), listRules(db)]);
  const byId = new Map<string, StoredRule>(rules.map((rule) => [rule.id, rule]));
  return rows.flatMap((row) => {
    const rule = byId.get(row.ruleId);
    if (rule === undefined) return [];
    const { ruleId, groupKey, ...state } = row;
    return [
      {
        ruleId,
        ruleName: rule.name,
        metric: rule.metric,
        comparator: rule.comparator,
        threshold: state.severity === 'critical' ? rule.critical : rule.warning,
        // Both thresholds and how it resolves: a firing value back under its threshold says when it clears.
        warning: rule.warning,
        critical: rule.critical,
        resolveThreshold: rule.resolveThreshold,
        keepFiringForSeconds: rule.keepFiringForSeconds,
        groupBy: rule.groupBy,
        group: groupKey,
        ...state,
      },
    ];
  });
}

export async function alertHistory(
  db: SqlRunner,
  filter: { ruleId?: string; server?: string; before?: number; limit: number },
) {
  const rows = await listHistoryRows(db, filter);
  return { history: rows, nextBefore: rows.length === filter.limit ? (rows.at(-1)?.id ?? null) : null };
}

/**
 * The delivery log: each notification, where it went (the receiver's host: the URL and a routing key are the
 * target's secrets), and every attempt with the receiver's answer.
 */
export async function deliveryLog(db: SqlRunner, filter: { ruleId?: string; limit: number }) {
  const { deliveries, attempts } = await listDeliveryRows(db, filter);
  return deliveries.map(({ notice, targetUrl, targetSecret: _secret, ...delivery }) => ({
    ...delivery,
    target: { type: delivery.targetType as TargetType, host: targetHost(targetUrl), secretSet: true as const },
    notice: JSON.parse(notice) as Notice,
    attempts: attempts.filter((attempt) => attempt.deliveryId === delivery.id),
  }));
}
