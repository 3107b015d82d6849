import { sql } from 'drizzle-orm';
import { auditDenials } from '../../shared/analysis/denials.ts';
import { HOUR_MS } from '../../shared/analysis/time-buckets.ts';
import { type AnalysisRow, analysisColumns, analysisEventOfRow } from '../queries/analysis.ts';
import { upsertRows } from '../queries/lists.ts';
import type { SqlRunner } from '../runner.ts';
import { identityRows, identityText, storedDigest } from '../stored-identity.ts';

/**
 * The decision store's audit (db/schema/denials.ts) as the fold keeps it: a change to any counted event of an
 * identity with a refusal (stored, shadowed, reclassified, refiled) audits that identity anew from all its counted
 * events (the index on (identity, server, ts)), and its results replace the stored ones. A function of the stored
 * events alone, so it is exact whatever order they arrived in, and whatever was shadowed or reclassified meanwhile.
 * The cost follows the refused identities touched, not the events folded: other identities cost one probe of the
 * small `denial_identity` per fold.
 */
export class DenialTouches {
  /** Public identity → whether a touching record was a refusal (then the identity is audited whatever is stored). */
  private readonly touched = new Map<string, boolean>();

  touch(record: { identity: string | null; bucket?: string }): void {
    if (record.identity === null) return;
    const refused = record.bucket === 'refusal';
    if (refused || !this.touched.has(record.identity)) this.touched.set(record.identity, refused);
  }

  /** Audits the touched identities that have (or had) a refusal, and forgets them. */
  async write(db: SqlRunner): Promise<void> {
    if (this.touched.size === 0) return;
    const touched = [...this.touched];
    this.touched.clear();
    const known = await knownRefused(
      db,
      touched.map(([identity]) => identity),
    );
    const due = touched.filter(([identity, refused]) => refused || known.has(identity)).map(([identity]) => identity);
    await auditIdentities(db, due);
  }
}

/** Identities waiting since the migration that built the audit, audited a batch at a time by idle folds. */
export async function auditPendingDenials(db: SqlRunner, limit = PENDING_BATCH): Promise<number> {
  const pending = await db.all<{ identity: string }>(sql`SELECT ${identityText(db)} AS identity
    FROM denial_identity WHERE pending = 1 LIMIT ${limit}`);
  await auditIdentities(
    db,
    pending.map((row) => row.identity),
  );
  return pending.length;
}

const PENDING_BATCH = 500;

async function knownRefused(db: SqlRunner, identities: readonly string[]): Promise<Set<string>> {
  const table = identityRows(
    db,
    identities.map((identity) => [identity]),
    [],
  );
  if (table === null) return new Set();
  const rows = await db.all<{ identity: string }>(sql`SELECT ${identityText(db, 'd')} AS identity
    FROM denial_identity AS d JOIN ${table} AS t ON d.server = t.server AND d.identity = t.identity`);
  return new Set(rows.map((row) => row.identity));
}

/** Replaces the stored audit of `identities` by one computed from their counted events now. */
async function auditIdentities(db: SqlRunner, identities: readonly string[]): Promise<void> {
  const table = identityRows(
    db,
    identities.map((identity) => [identity]),
    [],
  );
  if (table === null) return;
  const rows = await db.all<AnalysisRow & { seq: number }>(sql`SELECT ${analysisColumns(db)}, events.seq AS seq
    FROM (SELECT server AS s, identity AS i FROM ${table} AS t) AS t JOIN events ON events.identity = t.i
      AND events.server = t.s
    WHERE events.identity IS NOT NULL AND events.counted = 1`);
  const events = rows.map((row) => ({ ...analysisEventOfRow(row), seq: row.seq }));
  const audit = auditDenials(events);
  const ofThese = sql`(server, identity) IN (SELECT server, identity FROM ${table} AS t)`;
  await db.run(sql`DELETE FROM denial_breach WHERE ${ofThese}`);
  await db.run(sql`DELETE FROM denial_replay_hour WHERE ${ofThese}`);
  await db.run(sql`DELETE FROM denial_identity WHERE ${ofThese}`);
  const refused = new Set(events.filter((e) => e.bucket === 'refusal').map((e) => e.identity as string));
  await upsertRows(
    db,
    IDENTITY_UPSERT,
    [...refused].sort().map((identity) => digestKey(identity)),
  );
  await upsertRows(
    db,
    BREACH_UPSERT,
    audit.notHeld.map((d) => [
      ...digestKey(d.identity),
      d.answer.id,
      d.answer.ts,
      d.client,
      d.rpcMethod,
      d.newSession ? 1 : 0,
      JSON.stringify(d.refusal),
      JSON.stringify(d.answer),
    ]),
  );
  const hours = new Map<string, [string, string, string, number, number]>();
  for (const r of audit.replayed) {
    const start = r.ts - (r.ts % HOUR_MS);
    const id = JSON.stringify([r.identity, r.client, start]);
    const row = hours.get(id);
    if (row === undefined) hours.set(id, [...digestKey(r.identity), r.client, start, 1]);
    else row[4]++;
  }
  await upsertRows(db, REPLAY_UPSERT, [...hours.values()]);
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
  ],
  key: ['server', 'identity'],
  set: 'pending = 0',
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
  key: ['server', 'identity', 'answer_id'],
  set: 'answer_ts = excluded.answer_ts',
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
