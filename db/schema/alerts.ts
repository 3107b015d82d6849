import { bigint, defineTable, double, index, integer, primaryKey, serial, text } from './tables.ts';

/** Alert rules and what the evaluator made of them. */
export const alertRules = defineTable('alert_rules', {
  id: text('id').primaryKey(),
  /** shared/alerts/rule.ts RuleInput as JSON: the rule exactly as validated. */
  definition: text('definition').notNull(),
  /** Epoch ms the rule is next due; an evaluator claims a round by moving it (see db/queries/alerts.ts). */
  nextEvalAt: bigint('next_eval_at').notNull(),
  lastEvalAt: bigint('last_eval_at'),
  /** Why the last evaluation failed, or null. */
  lastError: text('last_error'),
  createdAt: bigint('created_at').notNull(),
  updatedAt: bigint('updated_at').notNull(),
});

/** One row per (rule, group) that is not plainly ok: shared/alerts/state.ts InstanceState. */
export const alertInstances = defineTable(
  'alert_instances',
  {
    ruleId: text('rule_id').notNull(),
    /** '' for an ungrouped rule; else the server, client or identity. */
    groupKey: text('group_key').notNull(),
    server: text('server'),
    state: text('state').notNull(),
    severity: text('severity'),
    value: double('value'),
    since: bigint('since').notNull(),
    clearSince: bigint('clear_since'),
    evaluatedAt: bigint('evaluated_at').notNull(),
  },
  (t) => [primaryKey(t.ruleId, t.groupKey)],
);

/** Every transition, kept after its rule is deleted (hence the copied name). */
export const alertHistory = defineTable(
  'alert_history',
  {
    id: serial('id'),
    ruleId: text('rule_id').notNull(),
    ruleName: text('rule_name').notNull(),
    groupKey: text('group_key').notNull(),
    server: text('server'),
    at: bigint('at').notNull(),
    fromState: text('from_state').notNull(),
    toState: text('to_state').notNull(),
    severity: text('severity'),
    value: double('value'),
    threshold: double('threshold'),
  },
  (t) => [index('alert_history_at_idx').on(t.at), index('alert_history_rule_idx').on(t.ruleId, t.at)],
);

/** The notification outbox: written with the transition, so a restart neither loses nor repeats one. */
export const alertDeliveries = defineTable(
  'alert_deliveries',
  {
    id: serial('id'),
    historyId: bigint('history_id').notNull(),
    ruleId: text('rule_id').notNull(),
    targetType: text('target_type').notNull(),
    targetUrl: text('target_url').notNull(),
    /** The target's second secret beside its URL, copied like it: a PagerDuty target's routing key; else null. */
    targetSecret: text('target_secret'),
    /** shared/alerts/notice.ts Notice as JSON. */
    notice: text('notice').notNull(),
    status: text('status').notNull(),
    attempts: integer('attempts').notNull(),
    transientFailures: integer('transient_failures').notNull(),
    /** When the next attempt is due; null once the delivery is settled. */
    nextAttemptAt: bigint('next_attempt_at'),
    createdAt: bigint('created_at').notNull(),
  },
  (t) => [
    index('alert_deliveries_due_idx').on(t.status, t.nextAttemptAt),
    index('alert_deliveries_at_idx').on(t.createdAt),
  ],
);

/** Every delivery attempt, as the receiver answered it. */
export const alertDeliveryAttempts = defineTable(
  'alert_delivery_attempts',
  {
    id: serial('id'),
    deliveryId: bigint('delivery_id').notNull(),
    at: bigint('at').notNull(),
    httpStatus: integer('http_status'),
    outcome: text('outcome').notNull(),
    error: text('error'),
    retryAt: bigint('retry_at'),
  },
  (t) => [index('alert_delivery_attempts_delivery_idx').on(t.deliveryId)],
);

/** One-off facts about the store, e.g. that the default alert rules were shipped (so deleting one sticks). */
export const settings = defineTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});
