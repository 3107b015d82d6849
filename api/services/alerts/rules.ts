import { randomUUID } from 'node:crypto';
import {
  deleteRule,
  getRuleRow,
  insertRule,
  instancesOfRule,
  listRuleRows,
  type RuleRow,
  replaceRule,
} from '../../../db/queries/alerts.ts';
import { setSettingOnce } from '../../../db/queries/settings.ts';
import type { SqlRunner, TxRunner } from '../../../db/runner.ts';
import {
  DEFAULT_RULES,
  type RedactedTarget,
  type Rule,
  type RuleDefinition,
  type RuleInput,
  redactTarget,
  type StoredTarget,
} from '../../../shared/alerts/rule.ts';
import { type Severity, thresholdOf } from '../../../shared/alerts/state.ts';
import { type ServiceContext, withTransaction } from '../service-context.ts';
import { recordTransition } from './evaluate.ts';
import { settleTargets } from './targets.ts';

/** A stored rule with what the evaluator last made of it. */
export interface StoredRule extends Rule {
  nextEvalAt: number;
  lastEvalAt: number | null;
  lastError: string | null;
}

/** A stored rule as every API answer shows it: target URLs are secrets, written but never read back. */
export type PublicRule<R extends Rule = StoredRule> = Omit<R, 'targets'> & { targets: RedactedTarget[] };

export function redactRule<R extends Rule>(rule: R): PublicRule<R> {
  return { ...rule, targets: rule.targets.map(redactTarget) };
}

export function toRule(row: RuleRow): StoredRule {
  const definition = JSON.parse(row.definition) as RuleDefinition;
  return {
    ...definition,
    // Targets saved before they had ids are named by their place, until the rule is next saved.
    targets: definition.targets.map((target: Partial<StoredTarget> & Omit<StoredTarget, 'id'>, index) => ({
      ...target,
      id: target.id ?? `t${index}`,
    })),
    id: row.id,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    nextEvalAt: row.nextEvalAt,
    lastEvalAt: row.lastEvalAt,
    lastError: row.lastError,
  };
}

export async function listRules(db: SqlRunner): Promise<StoredRule[]> {
  return (await listRuleRows(db)).map(toRule);
}

export async function getRule(db: SqlRunner, id: string): Promise<StoredRule | null> {
  const row = await getRuleRow(db, id);
  return row === null ? null : toRule(row);
}

/** A rule as sent, and the operator's allow-list (--allow-target) its targets are judged by. */
export interface RuleChange {
  rule: RuleInput;
  allowedTargets?: readonly string[];
}

/**
 * A new rule is due at once, so that its first reading shows within one tick. Its targets are checked against the
 * address policy first (a refused one is a ServiceError 'invalid_request').
 */
export async function createRule({ ctx, input }: { ctx: ServiceContext; input: RuleChange }): Promise<StoredRule> {
  const { rule, allowedTargets = [] } = input;
  const definition: RuleDefinition = { ...rule, targets: await settleTargets(rule.targets, [], allowedTargets) };
  const id = randomUUID();
  const { now } = ctx;
  await insertRule(ctx.db, {
    id,
    definition: JSON.stringify(definition),
    nextEvalAt: now,
    createdAt: now,
    updatedAt: now,
  });
  return (await getRule(ctx.db, id)) as StoredRule;
}

/**
 * Replaces a rule; its instances start over, and what was firing is resolved (and said so) under the old rule. A
 * target sent by id keeps the URL saved under it: the editor never had it to send back. The targets are resolved
 * before the writes: a slow resolver must not hold the store's writer (unless the caller already holds it).
 */
export async function updateRule({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: RuleChange & { id: string };
}): Promise<StoredRule | null> {
  const { id, rule, allowedTargets = [] } = input;
  const saved = await getRule(ctx.db, id);
  if (saved === null) return null;
  const definition: RuleDefinition = {
    ...rule,
    targets: await settleTargets(rule.targets, saved.targets, allowedTargets),
  };
  const { now } = ctx;
  const replaced = await withTransaction(ctx, async (tx) => {
    await resolveFiring(tx, id, now);
    return replaceRule(tx, { id, definition: JSON.stringify(definition), nextEvalAt: now, updatedAt: now });
  });
  return replaced ? getRule(ctx.db, id) : null;
}

/** Deletes a rule; what was firing is resolved first, so no receiver is left with an incident nothing will close. */
export async function removeRule({ ctx, input }: { ctx: ServiceContext; input: { id: string } }): Promise<boolean> {
  return withTransaction(ctx, async (tx) => {
    await resolveFiring(tx, input.id, ctx.now);
    return deleteRule(tx, input.id);
  });
}

async function resolveFiring(tx: TxRunner, id: string, at: number): Promise<void> {
  const row = await getRuleRow(tx, id);
  if (row === null) return;
  const rule = toRule(row);
  for (const instance of await instancesOfRule(tx, id)) {
    if (instance.state !== 'firing') continue;
    const severity = instance.severity as Severity | null;
    await recordTransition(
      tx,
      rule,
      instance.groupKey,
      instance.server,
      {
        from: 'firing',
        to: 'resolved',
        severity,
        value: instance.value,
        threshold: thresholdOf(rule, severity),
        notify: true,
      },
      at,
    );
  }
}

/**
 * Ships the default rules once per store. The flag is set in the same transaction, so an operator who deletes a
 * default does not see it come back on the next start.
 */
export async function seedDefaultRules({ ctx }: { ctx: ServiceContext }): Promise<void> {
  const { now } = ctx;
  await withTransaction(ctx, async (tx) => {
    if (!(await setSettingOnce(tx, 'alerts.defaults', String(now)))) return;
    for (const input of DEFAULT_RULES) {
      await insertRule(tx, {
        id: randomUUID(),
        definition: JSON.stringify(input),
        nextEvalAt: now,
        createdAt: now,
        updatedAt: now,
      });
    }
  });
}
