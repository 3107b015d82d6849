import { type SQL, sql } from 'drizzle-orm';
import type { Era } from '../../shared/era.ts';
import { isSentByServer } from '../../shared/frames.ts';
import { addCounts, type RowsColumn } from '../queries/lists.ts';
import type { SqlRunner } from '../runner.ts';
import { SENDER } from './families.ts';
import { type Level, segments } from './family.ts';
import { COUNTER_FAMILIES } from './levels.ts';
import type { RangeFilter } from './rollups.ts';

/** What a counted record is filed by in the era counts, as its row keeps it. */
export interface EraCounted {
  ts: number;
  server: string;
  client: string | null;
  rpcMethod: string | null;
  bucket: string;
  kind: string;
  era: string | null;
  /** 1 (or true) for an MRTR round that answers an input request. */
  continuation: number | boolean;
}

const continues = (r: EraCounted) => r.continuation === 1 || r.continuation === true;
/** A call's first round answered `input_required`: a call that asked for input (DOMAIN.md section 10). */
const asks = (r: EraCounted) => r.bucket === 'pending' && !continues(r);
const ASKS = sql`bucket = 'pending' AND continuation = 0`;

/**
 * The counts, declared once: what one counted record adds to each, in TypeScript for the fold and in SQL for the
 * events at a window's edges (migration era_counts filled the tables with the same conditions). A round's rounds
 * count is the call's: its asking first round, and each continuation but one whose `requestState` the server
 * rejected (`invalid_request_state`: it continues no call the server knows, like a forged state).
 */
const COUNTS = [
  { column: 'requests', of: () => true, where: sql`1 = 1` },
  { column: 'legacy', of: (r: EraCounted) => r.kind === 'era_legacy', where: sql`kind = 'era_legacy'` },
  { column: 'pending', of: (r: EraCounted) => r.bucket === 'pending', where: sql`bucket = 'pending'` },
  { column: 'continuations', of: continues, where: sql`continuation = 1` },
  { column: 'calls', of: asks, where: ASKS },
  {
    column: 'rounds',
    of: (r: EraCounted) => asks(r) || (continues(r) && r.kind !== 'invalid_request_state'),
    where: sql`(${ASKS}) OR (continuation = 1 AND kind <> 'invalid_request_state')`,
  },
] as const;
const COLUMNS = COUNTS.map((count) => count.column);
export type EraCountColumn = (typeof COUNTS)[number]['column'];

/**
 * The two families: each files a record under one name, the server, or the client that sent the request (a request
 * the server sent to the client, '' as the rollups file it: db/counters/changes.ts), in TypeScript and in SQL.
 */
const FAMILIES = {
  server: {
    levels: COUNTER_FAMILIES.erasByServer,
    nameOf: (r: EraCounted) => r.server,
    column: sql`server`,
    named: (name: string) => [sql`server = ${name}`],
  },
  client: {
    levels: COUNTER_FAMILIES.erasByClient,
    nameOf: (r: EraCounted) => (isSentByServer(r.rpcMethod) ? '' : (r.client ?? '')),
    column: sql`coalesce(${SENDER}, '')`,
    // The client's own index serves a client's events; of them, the requests it sent.
    named: (name: string) => [sql`client = ${name}`, sql`${SENDER} IS NOT NULL`],
  },
} as const satisfies Record<string, Family>;

interface Family {
  levels: readonly Level[];
  /** The name a record is filed under, from its row in TypeScript and from `events` in SQL. */
  nameOf: (r: EraCounted) => string;
  column: SQL;
  /** The events filed under `name`. */
  named: (name: string) => SQL[];
}

export type EraCountsBy = keyof typeof FAMILIES;

/** A change of one minute's counts: its time, server, sender, era ('' for none), then one value per count. */
type EraDelta = [minute: number, server: string, client: string, era: string, ...counts: number[]];

const MINUTE = COUNTER_FAMILIES.erasByServer[1].size;

/** A family's key after its name, in the order the rows are written (db/queries/lists.ts addCounts). */
function keysOf(by: string): RowsColumn[] {
  return [
    [by, 'text'],
    ['start', 'bigint'],
    ['era', 'text'],
  ];
}

/**
 * The fold's part for this family (db/counters/changes.ts): a counted record in (+1) or out (-1) of its minute. It is
 * moved wherever what it is filed by changes: stored, shadowed by its client's record, reclassified (a
 * `requestState` rejection can be re-mapped by an override), its era read again from its line.
 */
export class EraChanges {
  /** Summed per minute, server, sender and era as they come: a fold's ten thousand records are a few keys a minute. */
  private readonly minutes = new Map<string, EraDelta>();

  count(record: EraCounted, sign: 1 | -1): void {
    const minute = record.ts - (record.ts % MINUTE);
    const server = FAMILIES.server.nameOf(record);
    const client = FAMILIES.client.nameOf(record);
    const era = record.era ?? '';
    // Names never hold NUL (the event schema rejects it), so NUL joins a key unambiguously.
    const key = `${minute}\u0000${server}\u0000${client}\u0000${era}`;
    let delta = this.minutes.get(key);
    if (delta === undefined) {
      delta = [minute, server, client, era, ...COUNTS.map(() => 0)];
      this.minutes.set(key, delta);
    }
    for (let i = 0; i < COUNTS.length; i++) if (COUNTS[i]?.of(record)) (delta[4 + i] as number) += sign;
  }

  async write(db: SqlRunner): Promise<void> {
    if (this.minutes.size === 0) return;
    const deltas = [...this.minutes.values()];
    const writes: Promise<void>[] = [];
    for (const [by, family] of Object.entries(FAMILIES)) {
      const name = by === 'server' ? 1 : 2;
      for (const { table, size } of family.levels) {
        const rows = deltas.map((d) => [d[name], d[0] - (d[0] % size), d[3], ...d.slice(4)]);
        writes.push(addCounts(db, table, keysOf(by), COLUMNS, rows));
      }
    }
    await Promise.all(writes);
    this.minutes.clear();
  }
}

/** One name's counts in one era over a window. */
export interface EraCountRow extends Record<EraCountColumn, number> {
  /** The server or the client ('' for requests a server sent). */
  name: string;
  era: Era | null;
}

/**
 * Counts per server (or client) and era over [from, to), of one server (or client) when `name` is given, exactly:
 * whole hours and minutes from the counts kept at ingest, the sub-minute edges from the events.
 */
export async function eraCounts(
  db: SqlRunner,
  window: Pick<RangeFilter, 'from' | 'to' | 'eventsFrom'>,
  by: EraCountsBy,
  name?: string,
): Promise<EraCountRow[]> {
  const family = FAMILIES[by];
  const parts = segments(window, family.levels);
  const counts = sql.raw(COLUMNS.join(', '));
  const selects: SQL[] = parts.rollups.map(([table, from, to]) => {
    const named = name === undefined ? [] : [sql`${sql.identifier(by)} = ${name}`];
    const where = sql.join([sql`start >= ${from}`, sql`start < ${to}`, ...named], sql` AND `);
    return sql`SELECT ${sql.identifier(by)} AS name, era, ${counts} FROM ${sql.raw(table)} WHERE ${where}`;
  });
  const flags = COUNTS.map((count) => sql`CASE WHEN ${count.where} THEN 1 ELSE 0 END AS ${sql.raw(count.column)}`);
  for (const [from, to] of parts.raw) {
    const named = name === undefined ? [] : family.named(name);
    const where = sql.join([sql`counted = 1`, sql`ts >= ${from}`, sql`ts < ${to}`, ...named], sql` AND `);
    selects.push(sql`SELECT ${family.column} AS name, coalesce(era, '') AS era, ${sql.join(flags, sql`, `)}
      FROM events WHERE ${where}`);
  }
  if (selects.length === 0) return [];
  const sums = sql.raw(COLUMNS.map((column) => `sum(${column}) AS ${column}`).join(', '));
  const rows = await db.all<Record<string, number | string>>(sql`SELECT name, era, ${sums}
    FROM (${sql.join(selects, sql` UNION ALL `)}) AS parts GROUP BY name, era HAVING sum(requests) <> 0
    ORDER BY name, era`);
  return rows.map(eraRow);
}

/** The same counts grouped from the events alone: what `eraCounts` must equal. */
export async function rawEraCounts(
  db: SqlRunner,
  window: { from: number; to: number },
  by: EraCountsBy,
): Promise<EraCountRow[]> {
  const family = FAMILIES[by];
  const flags = COUNTS.map((count) => sql`sum(CASE WHEN ${count.where} THEN 1 ELSE 0 END) AS ${sql.raw(count.column)}`);
  const rows = await db.all<Record<string, number | string>>(sql`SELECT ${family.column} AS name,
      coalesce(era, '') AS era, ${sql.join(flags, sql`, `)}
    FROM events WHERE counted = 1 AND ts >= ${window.from} AND ts < ${window.to}
    GROUP BY 1, 2 ORDER BY 1, 2`);
  return rows.map(eraRow);
}

function eraRow(row: Record<string, number | string>): EraCountRow {
  const era = row.era === '2025' || row.era === '2026' ? row.era : null;
  const counts = Object.fromEntries(COLUMNS.map((column) => [column, Number(row[column])]));
  return { name: String(row.name), era, ...(counts as Record<EraCountColumn, number>) };
}
