import { type SQL, sql } from 'drizzle-orm';
import {
  auditDenialsFrom,
  type DenialDecisions,
  parseDecisions,
  serialiseDecisions,
} from '../../shared/analysis/denials.ts';
import { bucketStart, HOUR_MS } from '../../shared/analysis/time-buckets.ts';
import type { AnalysisEvent } from '../../shared/analysis/types.ts';
import { DenialHourChanges } from '../counters/denial-hours.ts';
import type { SqlRunner } from '../runner.ts';
import { identityRows, identityRowsPerServer, identityText, storedDigest } from '../stored-identity.ts';
import { type AnalysisRow, analysisColumns, analysisEventOfRow } from './analysis.ts';
import { allOfUnion, upsertRows } from './lists.ts';

/**
 * The decision store's audit (db/schema/denials.ts) as the fold keeps it (ADR 15): a change to any counted event of
 * an identity with a refusal (stored, shadowed, reclassified, refiled) audits that identity anew from its counted
 * events (the index on (identity, server, ts)), and its results replace the stored ones. A function of the stored
 * events alone, so it is exact whatever order they arrived in, and whatever was shadowed or reclassified meanwhile.
 *
 * Not from all of them each time: an identity's checkpoint is an hour's start before which its stored rows are
 * final, with the decisions standing then. A change whose events are all at or after it resumes the audit there
 * (reads the events from it, replaces the rows from it), and moves it up to the hour before the change's newest
 * event; so a storm identity re-presented all day is re-read an hour or two at a fold, not all its sends. A change to
 * an earlier event (a late arrival, a shadowing or reclassification of an old one) audits from the start: the
 * identity's base, where retention left it (`rebaseDenialAudit`), else its first event.
 *
 * The cost follows the refused identities touched, not the events folded: other identities cost one probe of the
 * small `denial_identity` per fold.
 */
class DenialTouches {
  /** Public identity → what touched it. */
  private readonly touched = new Map<string, Touch>();

  touch(record: { identity: string | null; bucket?: string; ts: number }): void {
    if (record.identity === null) return;
    const refused = record.bucket === 'refusal';
    const seen = this.touched.get(record.identity);
    if (seen === undefined) this.touched.set(record.identity, { refused, earliest: record.ts, latest: record.ts });
    else {
      seen.refused ||= refused;
      seen.earliest = Math.min(seen.earliest, record.ts);
      seen.latest = Math.max(seen.latest, record.ts);
    }
  }

  /** Audits the touched identities that have (or had) a refusal, and forgets them. */
  async write(db: SqlRunner): Promise<void> {
    if (this.touched.size === 0) return;
    const touched = [...this.touched];
    this.touched.clear();
    const stored = await storedAudits(
      db,
      touched.map(([identity]) => identity),
    );
    const plans = touched
      .filter(([identity, touch]) => touch.refused || stored.has(identity))
      .map(([identity, touch]) => planOf(identity, stored.get(identity), touch));
    await auditIdentities(db, plans);
  }
}

/**
 * Audits the identities of the touched records (db/counters/changes.ts CountChanges.touched) that have (or had) a
 * refusal: after the counts, since it reads the events as the transaction left them; it writes only its own tables.
 */
export async function auditTouched(
  db: SqlRunner,
  touched: readonly { identity: string | null; bucket?: string; ts: number }[],
): Promise<void> {
  const touches = new DenialTouches();
  for (const record of touched) touches.touch(record);
  await touches.write(db);
}

/** Whether any touching record was a refusal (then the identity is audited whatever is stored), and their times. */
interface Touch {
  refused: boolean;
  earliest: number;
  latest: number;
}

/**
 * Events the audit has read since the process started, and identities it resumed at their checkpoint or audited
 * from their start: what the tests and the bench hold the audit to (its cost follows the events it reads).
 */
export const denialAuditReads = { events: 0, resumed: 0, full: 0 };

/** Identities waiting since the migration that built the audit, audited a batch at a time by idle folds. */
export async function auditPendingDenials(db: SqlRunner, limit = PENDING_BATCH): Promise<number> {
  const pending = await db.all<{ identity: string }>(sql`SELECT ${identityText(db)} AS identity
    FROM denial_identity WHERE pending = 1 LIMIT ${limit}`);
  const stored = await storedAudits(
    db,
    pending.map((row) => row.identity),
  );
  await auditIdentities(
    db,
    pending.map((row) => planOf(row.identity, stored.get(row.identity), null)),
  );
  return pending.length;
}

const PENDING_BATCH = 500;

/**
 * Before retention deletes the events before `horizon` (an hour's start): moves up to it the base of up to `limit`
 * audited identities based earlier, with the decisions standing there, so that a later full audit starts from
 * there instead of forgetting what the deleted events decided. Their rows before it are final already (each audit
 * left them so). Reads each identity's events from its checkpoint or base, whichever is later and not past the
 * horizon, up to it: a day of events a day. Answers how many identities moved (0: none is left).
 */
export async function rebaseDenialAudit(
  db: SqlRunner,
  horizon: number,
  limit = PENDING_BATCH,
  only?: readonly string[],
): Promise<number> {
  const named =
    only === undefined
      ? null
      : identityRows(
          db,
          only.map((identity) => [identity]),
          [],
        );
  if (only !== undefined && named === null) return 0;
  const ofNamed = named === null ? sql`` : sql` AND (server, identity) IN (SELECT server, identity FROM ${named} AS n)`;
  const due = await db.all<StoredRow & { identity: string }>(sql`SELECT ${identityText(db)} AS identity, ${STORED}
    FROM denial_identity WHERE pending = 0 AND (base_at IS NULL OR base_at < ${horizon})${ofNamed} LIMIT ${limit}`);
  const starts = due.map((row) => {
    const checkpoint = row.checkpointAt === null ? null : Number(row.checkpointAt);
    if (checkpoint !== null && checkpoint <= horizon) {
      return { identity: row.identity, from: checkpoint, decisions: checkpointDecisions(row, row.identity) };
    }
    return { identity: row.identity, ...baseOf(row, row.identity) };
  });
  const events = await countedEvents(db, starts, horizon);
  const rows = starts.map(({ identity, decisions }) => {
    const base = serialiseDecisions(auditDenialsFrom(decisions, events.get(identity) ?? [], horizon).decisionsAt);
    return [...digestKey(identity), horizon, base];
  });
  // A checkpoint before the horizon moves up with the base; a later one stays.
  await upsertRows(db, BASE_UPSERT, rows);
  return due.length;
}

/** Whether any of these identities waits for its first audit (`pending`): its base cannot move before it. */
export async function auditsPending(db: SqlRunner, identities: readonly string[]): Promise<boolean> {
  const named = identityRows(
    db,
    identities.map((identity) => [identity]),
    [],
  );
  if (named === null) return false;
  const rows = await db.all(sql`SELECT 1 AS n FROM denial_identity
    WHERE pending = 1 AND (server, identity) IN (SELECT server, identity FROM ${named} AS n) LIMIT 1`);
  return rows.length > 0;
}

/** What `denial_identity` holds of an identity's audit. */
interface StoredRow {
  pending: number;
  checkpointAt: number | string | null;
  checkpoint: string | null;
  baseAt: number | string | null;
  base: string | null;
}

const STORED = sql.raw(`pending, checkpoint_at AS "checkpointAt", checkpoint, base_at AS "baseAt", base`);

async function storedAudits(db: SqlRunner, identities: readonly string[]): Promise<Map<string, StoredRow>> {
  const table = identityRows(
    db,
    identities.map((identity) => [identity]),
    [],
  );
  if (table === null) return new Map();
  const rows = await db.all<StoredRow & { identity: string }>(sql`SELECT ${identityText(db, 'd')} AS identity,
      d.pending AS pending, d.checkpoint_at AS "checkpointAt", d.checkpoint AS checkpoint, d.base_at AS "baseAt",
      d.base AS base
    FROM denial_identity AS d JOIN ${table} AS t ON d.server = t.server AND d.identity = t.identity`);
  return new Map(rows.map((row) => [row.identity, row]));
}

/** One identity's audit: from where (null: its first event), with the decisions standing there. */
interface AuditPlan {
  identity: string;
  from: number | null;
  decisions: DenialDecisions;
  /** Resumed at its checkpoint (then it stays known whatever it reads), else audited from its base or first event. */
  resumed: boolean;
  /** The newest touching event, which the checkpoint moves up to (the hour before); null: the newest event read. */
  latest: number | null;
  baseAt: number | null;
  base: string | null;
}

function planOf(identity: string, stored: StoredRow | undefined, touch: Touch | null): AuditPlan {
  const checkpoint = stored?.checkpointAt == null ? null : Number(stored.checkpointAt);
  const latest = touch?.latest ?? null;
  const kept = { baseAt: stored?.baseAt == null ? null : Number(stored.baseAt), base: stored?.base ?? null };
  if (stored !== undefined && stored.pending === 0 && checkpoint !== null && touch !== null) {
    if (touch.earliest >= checkpoint) {
      const decisions = checkpointDecisions(stored, identity);
      return { identity, from: checkpoint, decisions, resumed: true, latest, ...kept };
    }
  }
  return { identity, ...baseOf(stored, identity), resumed: false, latest, ...kept };
}

/**
 * The decisions standing at the identity's checkpoint. A checkpoint a rebase moved up to the base is stored as no
 * text at the base's time: the same decisions twice cost what the whole audit costs again (compaction rebases every
 * identity each day).
 */
function checkpointDecisions(stored: StoredRow, identity: string): DenialDecisions {
  const atBase =
    stored.checkpointAt != null && stored.baseAt != null && Number(stored.checkpointAt) === Number(stored.baseAt);
  return parseDecisions(stored.checkpoint ?? (atBase ? (stored.base ?? '[]') : '[]'), identity);
}

/** Where a full audit of the identity starts: its base, else its first event. */
function baseOf(stored: Pick<StoredRow, 'baseAt' | 'base'> | undefined, identity: string) {
  if (stored?.baseAt == null) return { from: null, decisions: new Map() as DenialDecisions };
  return { from: Number(stored.baseAt), decisions: parseDecisions(stored.base ?? '[]', identity) };
}

/** Counted events of each identity from its start (and before `until`), read by the (identity, server, ts) index. */
async function countedEvents(
  db: SqlRunner,
  starts: readonly { identity: string; from: number | null }[],
  until: number | null = null,
): Promise<Map<string, AnalysisEvent[]>> {
  const rows = starts.map(({ identity, from }) => [identity, from ?? Number.MIN_SAFE_INTEGER] as const);
  const byIdentity = new Map<string, AnalysisEvent[]>();
  const before = until === null ? sql`` : sql` AND events.ts < ${until}`;
  const counted = (server: SQL) => sql`events.identity = t.i AND events.server = ${server} AND events.ts >= t.f${before}
    AND events.identity IS NOT NULL AND events.counted = 1`;
  const columns = sql`${analysisColumns(db)}, events.seq AS seq`;
  const pairs = (table: SQL) => sql`(SELECT server AS s, identity AS i, since AS f FROM ${table} AS t)`;
  type Row = AnalysisRow & { seq: number | string };
  // PostgreSQL as a lateral subquery: one seek per identity and day partition (as db/counters/identities.ts
  // sendTimes, whose join the planner ran over every partition's whole index). OFFSET 0 keeps it from flattening; a
  // leg per server keeps Citus from refusing it.
  let found: Row[];
  if (db.dialect === 'postgres') {
    found = await allOfUnion<Row>(
      db,
      identityRowsPerServer(db, rows, [['since', 'bigint']]).map(
        ({ server, table }) => sql`SELECT ${columns} FROM ${pairs(table)} AS t
          CROSS JOIN LATERAL (SELECT * FROM events WHERE ${counted(sql`${server}`)} OFFSET 0) AS events`,
      ),
      (union) => union,
    );
  } else {
    const table = identityRows(db, rows, [['since', 'bigint']]);
    if (table === null) return byIdentity;
    found = await db.all<Row>(sql`SELECT ${columns} FROM ${pairs(table)} AS t JOIN events ON ${counted(sql`t.s`)}`);
  }
  denialAuditReads.events += found.length;
  for (const row of found) {
    const e = { ...analysisEventOfRow(row), seq: Number(row.seq) };
    const list = byIdentity.get(e.identity as string);
    if (list === undefined) byIdentity.set(e.identity as string, [e]);
    else list.push(e);
  }
  return byIdentity;
}

/** Replaces the stored audit of each identity from its plan's start by one computed from its counted events now. */
async function auditIdentities(db: SqlRunner, plans: readonly AuditPlan[]): Promise<void> {
  if (plans.length === 0) return;
  for (const plan of plans) denialAuditReads[plan.resumed ? 'resumed' : 'full']++;
  const events = await countedEvents(db, plans);
  const starts = identityRows(
    db,
    plans.map(({ identity, from }) => [identity, from ?? Number.MIN_SAFE_INTEGER]),
    [['since', 'bigint']],
  );
  if (starts === null) return;
  // The rows to go are found by a join from the plans into each table's key, in a subquery that runs once: as a
  // correlated EXISTS per stored row, SQLite parsed the plans' JSON again for every row of both tables, a cost that
  // grew with the store (at 1M events a day, most of each fold).
  // What goes is returned, to be taken off the hour counts (db/counters/denial-hours.ts) that what comes adds to.
  const fromStart = (table: string, key: readonly string[], time: string, returned: string) => {
    const columns = (prefix: string) => sql.raw(key.map((column) => `${prefix}${column}`).join(', '));
    return sql`DELETE FROM ${sql.raw(table)} WHERE (${columns('')}) IN (SELECT ${columns('audit.')}
      FROM ${starts} AS t JOIN ${sql.raw(table)} AS audit ON audit.server = t.server AND audit.identity = t.identity
        AND audit.${sql.raw(time)} >= t.since) RETURNING ${sql.raw(returned)}`;
  };
  const hourly = new DenialHourChanges();
  const goneBreaches = await db.all<{ server: string; client: string; ts: number | string }>(
    fromStart(
      'denial_breach',
      ['server', 'identity', 'answer_ts', 'answer_id'],
      'answer_ts',
      'server, client, answer_ts AS ts',
    ),
  );
  for (const row of goneBreaches) hourly.breach(row.server, row.client, Number(row.ts), -1);
  const goneReplays = await db.all<{ server: string; client: string; start: number | string; replayed: number }>(
    fromStart(
      'denial_replay_hour',
      ['server', 'identity', 'client', 'start'],
      'start',
      'server, client, start, replayed',
    ),
  );
  for (const row of goneReplays) hourly.replays(row.server, row.client, Number(row.start), -Number(row.replayed));
  const identities: unknown[][] = [];
  const forgotten: string[] = [];
  const breaches: unknown[][] = [];
  const hours = new Map<string, [string, string, string, number, number]>();
  for (const plan of plans) {
    const own = events.get(plan.identity) ?? [];
    const checkpointAt = checkpointOf(plan, own);
    const audit = auditDenialsFrom(plan.decisions, own, checkpointAt);
    // Known while it has a refusal; once it has a checkpoint or a base, the refusals before them count too.
    const known = plan.resumed || plan.baseAt !== null || own.some((e) => e.bucket === 'refusal');
    if (!known) {
      forgotten.push(plan.identity);
      continue;
    }
    const checkpoint = checkpointAt === null ? null : serialiseDecisions(audit.decisionsAt);
    // Every row of the audit is of the identity audited.
    const key = digestKey(plan.identity);
    identities.push([...key, checkpointAt, checkpoint, plan.baseAt, plan.base]);
    for (const d of audit.notHeld) {
      hourly.breach(key[0], d.client, d.answer.ts, 1);
      breaches.push([
        ...key,
        d.answer.id,
        d.answer.ts,
        d.client,
        d.rpcMethod,
        d.newSession ? 1 : 0,
        JSON.stringify(d.refusal),
        JSON.stringify(d.answer),
      ]);
    }
    for (const r of audit.replayed) {
      const start = r.ts - (r.ts % HOUR_MS);
      const id = JSON.stringify([plan.identity, r.client, start]);
      const row = hours.get(id);
      if (row === undefined) hours.set(id, [...key, r.client, start, 1]);
      else row[4]++;
      hourly.replays(key[0], r.client, start, 1);
    }
  }
  const gone = identityRows(
    db,
    forgotten.map((identity) => [identity]),
    [],
  );
  if (gone !== null) {
    await db.run(
      sql`DELETE FROM denial_identity WHERE (server, identity) IN (SELECT server, identity FROM ${gone} AS t)`,
    );
  }
  identities.sort((a, b) => (String(a[0]) + a[1] < String(b[0]) + b[1] ? -1 : 1));
  await upsertRows(db, IDENTITY_UPSERT, identities);
  await upsertRows(db, BREACH_UPSERT, breaches);
  await upsertRows(db, REPLAY_UPSERT, [...hours.values()]);
  await hourly.write(db);
}

/**
 * The hour before the newest touching event (the newest read, for an audit nothing touched), not before the start:
 * the events a later fold brings are mostly after it, and an hour or two of an identity's sends is what a fold
 * re-reads. An hour's start, so that the hours of replays before it are whole. Null for an audit from the first
 * event that read none.
 */
function checkpointOf(plan: AuditPlan, events: readonly AnalysisEvent[]): number | null {
  let latest = plan.latest;
  if (latest === null) for (const e of events) latest = latest === null ? e.ts : Math.max(latest, e.ts);
  if (latest === null) return plan.from;
  const candidate = bucketStart(latest, HOUR_MS) - HOUR_MS;
  return plan.from === null ? candidate : Math.max(plan.from, candidate);
}

function digestKey(identity: string): [string, string] {
  const server = identity.slice(0, identity.lastIndexOf(':'));
  return [server, storedDigest(identity, server)];
}

const IDENTITY_UPSERT = {
  table: 'denial_identity',
  columns: [
    ['server', 'text'],
    ['identity', 'bytea'],
    ['checkpoint_at', 'bigint'],
    ['checkpoint', 'text'],
    ['base_at', 'bigint'],
    ['base', 'text'],
  ],
  key: ['server', 'identity'],
  set: 'pending = 0, checkpoint_at = excluded.checkpoint_at, checkpoint = excluded.checkpoint',
} as const;

/** A new base; the checkpoint moves up to it when it was earlier (or none), as no text of its own (checkpointDecisions). */
const BASE_UPSERT = {
  table: 'denial_identity',
  columns: [
    ['server', 'text'],
    ['identity', 'bytea'],
    ['base_at', 'bigint'],
    ['base', 'text'],
  ],
  key: ['server', 'identity'],
  set: `base_at = excluded.base_at, base = excluded.base,
    checkpoint = CASE WHEN denial_identity.checkpoint_at IS NULL OR denial_identity.checkpoint_at < excluded.base_at
      THEN NULL ELSE denial_identity.checkpoint END,
    checkpoint_at = CASE WHEN denial_identity.checkpoint_at IS NULL OR denial_identity.checkpoint_at < excluded.base_at
      THEN excluded.base_at ELSE denial_identity.checkpoint_at END`,
} as const;

const BREACH_UPSERT = {
  table: 'denial_breach',
  columns: [
    ['server', 'text'],
    ['identity', 'bytea'],
    ['answer_id', 'text'],
    ['answer_ts', 'bigint'],
    ['client', 'text'],
    ['rpc_method', 'text'],
    ['new_session', 'integer'],
    ['refusal', 'text'],
    ['answer', 'text'],
  ],
  key: ['server', 'identity', 'answer_ts', 'answer_id'],
  // The audit deleted the identity's rows from its start, and writes only rows from there: nothing is left to meet.
  set: 'new_session = excluded.new_session, refusal = excluded.refusal, answer = excluded.answer',
} as const;

const REPLAY_UPSERT = {
  table: 'denial_replay_hour',
  columns: [
    ['server', 'text'],
    ['identity', 'bytea'],
    ['client', 'text'],
    ['start', 'bigint'],
    ['replayed', 'integer'],
  ],
  key: ['server', 'identity', 'client', 'start'],
  set: 'replayed = excluded.replayed',
} as const;
