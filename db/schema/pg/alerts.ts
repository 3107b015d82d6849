import { bigint, bigserial, doublePrecision, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/** Alert rules and what the evaluator made of them. Mirrors db/schema/sqlite/alerts.ts. */
export const alertRules = pgTable('alert_rules', {
  id: text('id').primaryKey(),
  /** shared/alerts/rule.ts RuleInput as JSON: the rule exactly as validated. */
  definition: text('definition').notNull(),
  /** Epoch ms the rule is next due; an evaluator claims a round by moving it (see db/queries/alerts.ts). */
  nextEvalAt: bigint('next_eval_at', { mode: 'number' }).notNull(),
  lastEvalAt: bigint('last_eval_at', { mode: 'number' }),
  /** Why the last evaluation failed, or null. */
  lastError: text('last_error'),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
});

/** One row per (rule, group) that is not plainly ok: shared/alerts/state.ts InstanceState. */
export const alertInstances = pgTable(
  'alert_instances',
  {
    ruleId: text('rule_id').notNull(),
    /** '' for an ungrouped rule; else the server, client or identity. */
    groupKey: text('group_key').notNull(),
    server: text('server'),
    state: text('state').notNull(),
    severity: text('severity'),
    value: doublePrecision('value'),
    since: bigint('since', { mode: 'number' }).notNull(),
    clearSince: bigint('clear_since', { mode: 'number' }),
    evaluatedAt: bigint('evaluated_at', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.groupKey] })],
);

/** Every transition, kept after its rule is deleted (hence the copied name). */
export const alertHistory = pgTable(
  'alert_history',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    ruleId: text('rule_id').notNull(),
    ruleName: text('rule_name').notNull(),
    groupKey: text('group_key').notNull(),
    server: text('server'),
    at: bigint('at', { mode: 'number' }).notNull(),
    fromState: text('from_state').notNull(),
    toState: text('to_state').notNull(),
    severity: text('severity'),
    value: doublePrecision('value'),
    threshold: doublePrecision('threshold'),
  },
  (t) => [index('alert_history_at_idx').on(t.at), index('alert_history_rule_idx').on(t.ruleId, t.at)],
);

/** The notification outbox: written with the transition, so a restart neither loses nor repeats one. */
export const alertDeliveries = pgTable(
  'alert_deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    historyId: bigint('history_id', { mode: 'number' }).notNull(),
    ruleId: text('rule_id').notNull(),
    targetType: text('target_type').notNull(),
    targetUrl: text('target_url').notNull(),
    /** shared/alerts/notice.ts Notice as JSON. */
    notice: text('notice').notNull(),
    status: text('status').notNull(),
    attempts: integer('attempts').notNull(),
    transientFailures: integer('transient_failures').notNull(),
    /** When the next attempt is due; null once the delivery is settled. */
    nextAttemptAt: bigint('next_attempt_at', { mode: 'number' }),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  },
  (t) => [
    index('alert_deliveries_due_idx').on(t.status, t.nextAttemptAt),
    index('alert_deliveries_at_idx').on(t.createdAt),
  ],
);

/** Every delivery attempt, as the receiver answered it. */
export const alertDeliveryAttempts = pgTable(
  'alert_delivery_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    deliveryId: bigint('delivery_id', { mode: 'number' }).notNull(),
    at: bigint('at', { mode: 'number' }).notNull(),
    httpStatus: integer('http_status'),
    outcome: text('outcome').notNull(),
    error: text('error'),
    retryAt: bigint('retry_at', { mode: 'number' }),
  },
  (t) => [index('alert_delivery_attempts_delivery_idx').on(t.deliveryId)],
);

/** One-off facts about the store, e.g. that the default alert rules were shipped (so deleting one sticks). */
export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});
