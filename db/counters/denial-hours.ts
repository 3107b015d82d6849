import { sql } from 'drizzle-orm';
import { type DenialCounts, emptyDenialCounts } from '../../shared/analysis/denials.ts';
import { bucketStart } from '../../shared/analysis/time-buckets.ts';
import type { NameRecord } from '../../shared/name-record.ts';
import { type DenialScope, narrowedTo } from '../queries/denials.ts';
import { addCounts, type RowsColumn } from '../queries/lists.ts';
import type { SqlRunner } from '../runner.ts';
import { segments } from './family.ts';
import { COUNTER_FAMILIES } from './levels.ts';

/**
 * The decision store's audit counted per hour (db/schema/denials.ts `denial_hour` and its per-client and per-server
 * twins): the denials that did not hold, by their answer's hour, and the replayed refusals. The audit
 * (db/queries/denial-audit.ts) replaces an identity's rows from a start; what it deletes and what it writes come here as
 * changes, so the counts stay the sum of the rows they count whatever is audited again. A day's counts then read
 * some rows per hour and client or server, not the day's breaches (a hundred thousand at 10M events a day).
 */
const [{ table: PAIRS, size: HOUR }] = COUNTER_FAMILIES.denials;
const [{ table: CLIENTS }] = COUNTER_FAMILIES.denialsByClient;
const [{ table: SERVERS }] = COUNTER_FAMILIES.denialsByServer;

/** Each table's key after the hour: what it keeps apart. */
const TABLES = [
  { table: PAIRS, keeps: ['server', 'client'] },
  { table: CLIENTS, keeps: ['client'] },
  { table: SERVERS, keeps: ['server'] },
] as const;

/** Changes to the hour counts, added up and written once per audit. */
export class DenialHourChanges {
  private readonly changes: { start: number; server: string; client: string; breaches: number; replayed: number }[] =
    [];

  /** A denial that did not hold, answered at `ts`, stored (+1) or replaced (-1). */
  breach(server: string, client: string, ts: number, sign: 1 | -1): void {
    this.changes.push({ start: bucketStart(ts, HOUR), server, client, breaches: sign, replayed: 0 });
  }

  /** Replayed refusals of the hour starting at `start`, stored (+) or replaced (-). */
  replays(server: string, client: string, start: number, replayed: number): void {
    this.changes.push({ start, server, client, breaches: 0, replayed });
  }

  async write(db: SqlRunner): Promise<void> {
    await Promise.all(
      TABLES.map(({ table, keeps }) =>
        addCounts(
          db,
          table,
          [['start', 'bigint'], ...keeps.map((column): RowsColumn => [column, 'text'])],
          ['breaches', 'replayed'],
          this.changes.map((c) => [c.start, ...keeps.map((column) => c[column]), c.breaches, c.replayed]),
        ),
      ),
    );
    this.changes.length = 0;
  }
}

/** A window's denials that did not hold, counted per client and server, and its replayed refusals per client. */
export interface DenialCountsIn {
  counts: DenialCounts;
  replayed: Map<string, number>;
}

/**
 * The denials that did not hold whose later answer falls in the window, counted per client and per server, and the
 * re-presented refusals replayed per client in the hours that start in it (the replays are counted per hour): whole
 * hours from the hour counts (of the pairs when the window names a server or client, else of the clients and of the
 * servers), the window's edges from `denial_breach`'s (answer_ts, server, client) index.
 */
export async function denialCountsIn(db: SqlRunner, scope: DenialScope): Promise<DenialCountsIn> {
  // The audit's rows are kept as long as the hour counts (db/queries/retention.ts), so its edges are read from them
  // on either side of the raw events' horizon.
  const parts = segments({ ...scope, eventsFrom: null }, COUNTER_FAMILIES.denials);
  const narrowed = narrowedTo(scope);
  // The hours that start in the window hold its replays; the whole ones among them its breaches.
  const hours = sql`start >= ${bucketStart(scope.from, HOUR)} AND start < ${scope.to}${narrowed}`;
  const [whole] = parts.rollups;
  const inWhole = whole === undefined ? sql`0 = 1` : sql`start >= ${whole[1]} AND start < ${whole[2]}`;
  const breaches = sql`CASE WHEN ${inWhole} THEN breaches ELSE 0 END`;
  const read = (table: string, keeps: string) =>
    db.all<{ client: string; server: string; breaches: number | string; replayed: number | string }>(sql`SELECT
        ${sql.raw(keeps)}, sum(${breaches}) AS breaches, sum(replayed) AS replayed FROM ${sql.raw(table)}
      WHERE ${hours} GROUP BY ${sql.raw(keeps)}`);
  const edges = parts.raw.map(
    ([from, to]) => sql`SELECT client, server, count(*) AS breaches FROM denial_breach
      WHERE answer_ts >= ${from} AND answer_ts < ${to}${narrowed} GROUP BY client, server`,
  );
  const edgeRows = (): Promise<{ client: string; server: string; breaches: number | string }[]> =>
    edges.length === 0 ? Promise.resolve([]) : db.all(sql.join(edges, sql` UNION ALL `));
  const narrow = scope.server !== undefined || scope.client !== undefined;
  const [byClient, byServer, edge] = await Promise.all(
    narrow
      ? [read(PAIRS, 'client, server'), Promise.resolve([]), edgeRows()]
      : [read(CLIENTS, 'client'), read(SERVERS, 'server'), edgeRows()],
  );
  const counts = emptyDenialCounts();
  const replayed = new Map<string, number>();
  const add = (into: NameRecord<number>, name: string, n: number) => {
    if (n !== 0) into[name] = (into[name] ?? 0) + n;
  };
  for (const row of byClient) {
    add(counts.byClient, row.client, Number(row.breaches));
    // Narrowed, the pairs give the servers too; else the servers' own rows do.
    if (narrow) add(counts.byServer, row.server, Number(row.breaches));
    if (Number(row.replayed) !== 0) replayed.set(row.client, (replayed.get(row.client) ?? 0) + Number(row.replayed));
  }
  for (const row of byServer) add(counts.byServer, row.server, Number(row.breaches));
  for (const row of edge) {
    add(counts.byClient, row.client, Number(row.breaches));
    add(counts.byServer, row.server, Number(row.breaches));
  }
  counts.total = Object.values(counts.byClient).reduce((sum, n) => sum + n, 0);
  return { counts, replayed };
}
