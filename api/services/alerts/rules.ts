import { randomUUID } from 'node:crypto';
import {
  deleteRule,
  getRuleRow,
  insertRule,
  listRuleRows,
  type RuleRow,
  replaceRule,
  setSettingOnce,
} from '../../../db/queries/alerts.ts';
import type { SqlRunner, Store } from '../../../db/runner.ts';
import { DEFAULT_RULES, type Rule, type RuleInput } from '../../../shared/alerts/rule.ts';

/** A stored rule with what the evaluator last made of it. */
export interface StoredRule extends Rule {
  nextEvalAt: number;
  lastEvalAt: number | null;
  lastError: string | null;
}

export function toRule(row: RuleRow): StoredRule {
  return {
    ...(JSON.parse(row.definition) as RuleInput),
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

/** A new rule is due at once, so that its first reading shows within one tick. */
export async function createRule(store: Store, input: RuleInput, now: number): Promise<StoredRule> {
  const id = randomUUID();
  await insertRule(store, { id, definition: JSON.stringify(input), nextEvalAt: now, createdAt: now, updatedAt: now });
  return (await getRule(store, id)) as StoredRule;
}

export async function updateRule(store: Store, id: string, input: RuleInput, now: number): Promise<StoredRule | null> {
  const replaced = await store.transaction((tx) =>
    replaceRule(tx, { id, definition: JSON.stringify(input), nextEvalAt: now, updatedAt: now }),
  );
  return replaced ? getRule(store, id) : null;
}

export async function removeRule(store: Store, id: string): Promise<boolean> {
  return store.transaction((tx) => deleteRule(tx, id));
}

/**
 * Ships the default rules once per store. The flag is set in the same transaction, so an operator who deletes a
 * default does not see it come back on the next start.
 */
export async function seedDefaultRules(store: Store, now: number): Promise<void> {
  await store.transaction(async (tx) => {
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
