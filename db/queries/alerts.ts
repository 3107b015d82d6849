import { sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';

/** Every SQL statement of the alerts: rules, instances, history and the notification outbox. */

export interface RuleRow {
  id: string;
  definition: string;
  nextEvalAt: number;
  lastEvalAt: number | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
}

const SELECT_RULE = sql`SELECT id, definition, next_eval_at AS "nextEvalAt", last_eval_at AS "lastEvalAt",
  last_error AS "lastError", created_at AS "createdAt", updated_at AS "updatedAt" FROM alert_rules`;

export function listRuleRows(db: SqlRunner): Promise<RuleRow[]> {
  return db.all<RuleRow>(sql`${SELECT_RULE} ORDER BY created_at, id`);
}

export async function getRuleRow(db: SqlRunner, id: string): Promise<RuleRow | null> {
  const rows = await db.all<RuleRow>(sql`${SELECT_RULE} WHERE id = ${id}`);
  return rows[0] ?? null;
}

/** Rules due at `now`, most overdue first. */
export function dueRuleRows(db: SqlRunner, now: number, limit: number): Promise<RuleRow[]> {
  return db.all<RuleRow>(sql`${SELECT_RULE} WHERE next_eval_at <= ${now} ORDER BY next_eval_at, id LIMIT ${limit}`);
}

export async function insertRule(db: SqlRunner, row: Omit<RuleRow, 'lastEvalAt' | 'lastError'>): Promise<void> {
  await db.run(sql`INSERT INTO alert_rules (id, definition, next_eval_at, created_at, updated_at)
    VALUES (${row.id}, ${row.definition}, ${row.nextEvalAt}, ${row.createdAt}, ${row.updatedAt})`);
}

/** Replaces a rule's definition; its instances start over, since their thresholds or groups may have changed. */
export async function replaceRule(
  db: SqlRunner,
  row: Pick<RuleRow, 'id' | 'definition' | 'nextEvalAt' | 'updatedAt'>,
): Promise<boolean> {
  const changed = await db.run(sql`UPDATE alert_rules SET definition = ${row.definition},
    next_eval_at = ${row.nextEvalAt}, updated_at = ${row.updatedAt}, last_error = NULL WHERE id = ${row.id}`);
  if (changed > 0) await db.run(sql`DELETE FROM alert_instances WHERE rule_id = ${row.id}`);
  return changed > 0;
}

export async function deleteRule(db: SqlRunner, id: string): Promise<boolean> {
  const changed = await db.run(sql`DELETE FROM alert_rules WHERE id = ${id}`);
  await db.run(sql`DELETE FROM alert_instances WHERE rule_id = ${id}`);
  return changed > 0;
}

/**
 * Takes an evaluation round: moves the rule's due time from the one seen to the next. Another evaluator (a second
 * server process on the same PostgreSQL) that saw the same due time then changes no row and leaves the round alone.
 */
export async function claimRound(
  db: SqlRunner,
  round: { id: string; seen: number; next: number; now: number },
): Promise<boolean> {
  const changed = await db.run(sql`UPDATE alert_rules SET next_eval_at = ${round.next}, last_eval_at = ${round.now},
    last_error = NULL WHERE id = ${round.id} AND next_eval_at = ${round.seen}`);
  return changed > 0;
}

export async function recordRuleError(db: SqlRunner, id: string, error: string): Promise<void> {
  await db.run(sql`UPDATE alert_rules SET last_error = ${error} WHERE id = ${id}`);
}

export interface InstanceRow {
  ruleId: string;
  groupKey: string;
  server: string | null;
  state: string;
  severity: string | null;
  value: number | null;
  since: number;
  clearSince: number | null;
  evaluatedAt: number;
}

const SELECT_INSTANCE = sql`SELECT rule_id AS "ruleId", group_key AS "groupKey", server, state, severity, value, since,
  clear_since AS "clearSince", evaluated_at AS "evaluatedAt" FROM alert_instances`;

export function instancesOfRule(db: SqlRunner, ruleId: string): Promise<InstanceRow[]> {
  return db.all<InstanceRow>(sql`${SELECT_INSTANCE} WHERE rule_id = ${ruleId}`);
}

/** Instances that are pending or firing (or resolved, when asked), optionally only those about one server. */
export function listInstanceRows(
  db: SqlRunner,
  filter: { server?: string; includeResolved: boolean },
): Promise<InstanceRow[]> {
  const states = filter.includeResolved ? sql`('pending', 'firing', 'resolved')` : sql`('pending', 'firing')`;
  const server = filter.server === undefined ? sql`` : sql` AND server = ${filter.server}`;
  return db.all<InstanceRow>(sql`${SELECT_INSTANCE} WHERE state IN ${states}${server}
    ORDER BY CASE state WHEN 'firing' THEN 0 WHEN 'pending' THEN 1 ELSE 2 END, since DESC`);
}

export async function saveInstance(db: SqlRunner, row: InstanceRow): Promise<void> {
  await db.run(sql`INSERT INTO alert_instances
      (rule_id, group_key, server, state, severity, value, since, clear_since, evaluated_at)
    VALUES (${row.ruleId}, ${row.groupKey}, ${row.server}, ${row.state}, ${row.severity}, ${row.value}, ${row.since},
      ${row.clearSince}, ${row.evaluatedAt})
    ON CONFLICT (rule_id, group_key) DO UPDATE SET server = excluded.server, state = excluded.state,
      severity = excluded.severity, value = excluded.value, since = excluded.since,
      clear_since = excluded.clear_since, evaluated_at = excluded.evaluated_at`);
}

export async function deleteInstance(db: SqlRunner, ruleId: string, groupKey: string): Promise<void> {
  await db.run(sql`DELETE FROM alert_instances WHERE rule_id = ${ruleId} AND group_key = ${groupKey}`);
}

export interface HistoryRow {
  id: number;
  ruleId: string;
  ruleName: string;
  groupKey: string;
  server: string | null;
  at: number;
  fromState: string;
  toState: string;
  severity: string | null;
  value: number | null;
  threshold: number | null;
}

export async function insertHistory(db: SqlRunner, row: Omit<HistoryRow, 'id'>): Promise<number> {
  const [inserted] = await db.all<{ id: number }>(sql`INSERT INTO alert_history
      (rule_id, rule_name, group_key, server, at, from_state, to_state, severity, value, threshold)
    VALUES (${row.ruleId}, ${row.ruleName}, ${row.groupKey}, ${row.server}, ${row.at}, ${row.fromState}, ${row.toState},
      ${row.severity}, ${row.value}, ${row.threshold})
    RETURNING id`);
  if (inserted === undefined) throw new Error('alert_history insert returned no id');
  return Number(inserted.id);
}

/** Newest first; `before` pages on by id. */
export function listHistoryRows(
  db: SqlRunner,
  filter: { ruleId?: string; server?: string; before?: number; limit: number },
): Promise<HistoryRow[]> {
  const where = [
    ...(filter.ruleId === undefined ? [] : [sql`rule_id = ${filter.ruleId}`]),
    ...(filter.server === undefined ? [] : [sql`server = ${filter.server}`]),
    ...(filter.before === undefined ? [] : [sql`id < ${filter.before}`]),
  ];
  const clause = where.length === 0 ? sql`` : sql` WHERE ${sql.join(where, sql` AND `)}`;
  return db.all<HistoryRow>(sql`SELECT id, rule_id AS "ruleId", rule_name AS "ruleName", group_key AS "groupKey",
      server, at, from_state AS "fromState", to_state AS "toState", severity, value, threshold
    FROM alert_history${clause} ORDER BY id DESC LIMIT ${filter.limit}`);
}

export interface DeliveryRow {
  id: number;
  historyId: number;
  ruleId: string;
  targetType: string;
  targetUrl: string;
  /** A PagerDuty target's routing key; null for the other types. */
  targetSecret: string | null;
  notice: string;
  status: string;
  attempts: number;
  transientFailures: number;
  nextAttemptAt: number | null;
  createdAt: number;
}

const SELECT_DELIVERY = sql`SELECT id, history_id AS "historyId", rule_id AS "ruleId", target_type AS "targetType",
  target_url AS "targetUrl", target_secret AS "targetSecret", notice, status, attempts, transient_failures AS "transientFailures",
  next_attempt_at AS "nextAttemptAt", created_at AS "createdAt" FROM alert_deliveries`;

export async function insertDelivery(
  db: SqlRunner,
  row: Pick<DeliveryRow, 'historyId' | 'ruleId' | 'targetType' | 'targetUrl' | 'targetSecret' | 'notice' | 'createdAt'>,
): Promise<void> {
  await db.run(sql`INSERT INTO alert_deliveries
      (history_id, rule_id, target_type, target_url, target_secret, notice, status, attempts, transient_failures,
       next_attempt_at, created_at)
    VALUES (${row.historyId}, ${row.ruleId}, ${row.targetType}, ${row.targetUrl}, ${row.targetSecret}, ${row.notice},
      'pending', 0, 0, ${row.createdAt}, ${row.createdAt})`);
}

/**
 * Pending deliveries due at `now`, each only once every older one of its rule to the same target is settled: a
 * receiver gets a rule's notices in the order they were made (a resolution never overtakes its firing). Two
 * PagerDuty services share the events URL; their routing keys tell them apart.
 */
export function dueDeliveryRows(db: SqlRunner, now: number, limit: number): Promise<DeliveryRow[]> {
  return db.all<DeliveryRow>(sql`${SELECT_DELIVERY} AS d WHERE status = 'pending' AND next_attempt_at <= ${now}
    AND NOT EXISTS (SELECT 1 FROM alert_deliveries AS older WHERE older.status = 'pending'
      AND older.rule_id = d.rule_id AND older.target_url = d.target_url
      AND COALESCE(older.target_secret, '') = COALESCE(d.target_secret, '') AND older.id < d.id)
    ORDER BY next_attempt_at, id LIMIT ${limit}`);
}

/**
 * Takes a due delivery for one attempt by pushing its due time past the attempt's timeout (a lease): a second
 * deliverer skips it, and if this process dies mid-attempt the delivery is due again once the lease runs out.
 */
export async function claimDelivery(
  db: SqlRunner,
  claim: { id: number; seen: number; leaseUntil: number },
): Promise<boolean> {
  const changed = await db.run(sql`UPDATE alert_deliveries SET next_attempt_at = ${claim.leaseUntil}
    WHERE id = ${claim.id} AND status = 'pending' AND next_attempt_at = ${claim.seen}`);
  return changed > 0;
}

export interface AttemptRow {
  deliveryId: number;
  at: number;
  httpStatus: number | null;
  outcome: string;
  error: string | null;
  retryAt: number | null;
}

/**
 * Logs an attempt and moves its delivery on, if the attempt still holds the lease it was claimed with: an attempt
 * that outlived its lease (another deliverer took the delivery since) is logged, but changes nothing.
 */
export async function recordAttempt(
  db: SqlRunner,
  attempt: AttemptRow,
  outcome: { lease: number; status: string; transient: boolean; nextAttemptAt: number | null },
): Promise<void> {
  await db.run(sql`INSERT INTO alert_delivery_attempts (delivery_id, at, http_status, outcome, error, retry_at)
    VALUES (${attempt.deliveryId}, ${attempt.at}, ${attempt.httpStatus}, ${attempt.outcome}, ${attempt.error},
      ${attempt.retryAt})`);
  await db.run(sql`UPDATE alert_deliveries SET status = ${outcome.status}, attempts = attempts + 1,
    transient_failures = transient_failures + ${outcome.transient ? 1 : 0}, next_attempt_at = ${outcome.nextAttemptAt}
    WHERE id = ${attempt.deliveryId} AND status = 'pending' AND next_attempt_at = ${outcome.lease}`);
}

/** How many notifications are in each delivery status, from the status index: pending, delivered, refused, failed. */
export async function deliveriesPerStatus(db: SqlRunner): Promise<{ status: string; deliveries: number }[]> {
  const rows = await db.all<{ status: string; deliveries: number }>(
    sql`SELECT status, count(*) AS deliveries FROM alert_deliveries GROUP BY status`,
  );
  return rows.map((row) => ({ status: row.status, deliveries: Number(row.deliveries) }));
}

/** The delivery log, newest first, each delivery with its attempts. */
export async function listDeliveryRows(
  db: SqlRunner,
  filter: { ruleId?: string; limit: number },
): Promise<{ deliveries: DeliveryRow[]; attempts: AttemptRow[] }> {
  const where = filter.ruleId === undefined ? sql`` : sql` WHERE rule_id = ${filter.ruleId}`;
  const deliveries = await db.all<DeliveryRow>(sql`${SELECT_DELIVERY}${where} ORDER BY id DESC LIMIT ${filter.limit}`);
  if (deliveries.length === 0) return { deliveries, attempts: [] };
  const ids = deliveries.map((delivery) => delivery.id);
  const attempts = await db.all<AttemptRow>(sql`SELECT delivery_id AS "deliveryId", at, http_status AS "httpStatus",
      outcome, error, retry_at AS "retryAt"
    FROM alert_delivery_attempts WHERE delivery_id IN (${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )}) ORDER BY id`);
  return { deliveries, attempts };
}
