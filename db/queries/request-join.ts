import { type SQL, sql } from 'drizzle-orm';
import type { JoinedPair, JoinFacts } from '../../shared/request-join.ts';
import type { CountedRecord } from '../counters/families.ts';
import { storedKey } from '../event-row.ts';
import type { SqlRunner } from '../runner.ts';
import { shadowedColumns } from './classification.ts';
import type { SeqRun } from './fold-queue.ts';
import { allPerServer, listTable, rowsTable } from './lists.ts';

/**
 * The stored side of shared/request-join.ts: the records still without a partner that could be the partner of a
 * batch's fresh records, and the writing of the pairs found.
 */

const FACTS = sql`seq AS "order", event_id AS "eventId", source, server, ts, latency_ms AS "latencyMs", session,
  http_method AS "httpMethod", http_path AS "httpPath", http_status AS "httpStatus", timeout,
  request_id AS "requestId", correlation`;

interface FactsRow extends Omit<JoinFacts, 'timeout' | 'source'> {
  source: string;
  timeout: number;
}

/** One server's records from `from` to `to` (epoch ms, inclusive). */
export interface TimeWindow {
  server: string;
  from: number;
  to: number;
}

/** Only proxy records still counted can be shadowed; a client record takes one partner. */
const UNJOINED: Record<JoinFacts['source'], SQL> = {
  proxy: sql`source = 'proxy' AND partner IS NULL AND counted = 1`,
  client: sql`source = 'client' AND partner IS NULL`,
};

/**
 * Records of `side` without a partner that share a key with `fresh` or fall in one of its time windows (per server,
 * from `from` to `to`), each with its seq as its `order`. Folded or still queued alike: the caller asks once, of what
 * both sides found, which are still queued (`stillQueued`). Asked in these statements, a probe of fold_queue a row,
 * it made the join on PostgreSQL 2.8-3.6 s of the folds of a 200k-event backlog, against 2.2 s asked after. The
 * key probes join the keys to the events, so that PostgreSQL hashes them: as `IN (SELECT unnest(…))` it compared 10k
 * keys with each of 6k waiting proxy records, 20 s a fold, against 16 ms. The records in `known` (the fresh ones,
 * which the caller holds) are left out: a fold's windows cover its own client records, and reading them back cost as
 * much as reading the fold's rows.
 */
export async function unjoinedRecords(
  db: SqlRunner,
  side: JoinFacts['source'],
  fresh: {
    requestIds: readonly string[];
    correlations: readonly string[];
    windows: readonly TimeWindow[];
    known: readonly SeqRun[];
  },
): Promise<JoinFacts[]> {
  const unjoined = sql`${UNJOINED[side]} AND ${notIn(db, fresh.known)}`;
  const queries: Promise<FactsRow[]>[] = [];
  if (fresh.requestIds.length > 0) {
    queries.push(
      db.all<FactsRow>(sql`SELECT ${FACTS} FROM ${listTable(db, fresh.requestIds)} AS probe
      JOIN events ON events.request_id = probe.value WHERE ${unjoined}`),
    );
  }
  if (fresh.correlations.length > 0) {
    queries.push(
      db.all<FactsRow>(sql`SELECT ${FACTS} FROM ${listTable(db, fresh.correlations)} AS probe
      JOIN events ON events.correlation = probe.value WHERE ${unjoined}`),
    );
  }
  if (fresh.windows.length > 0) queries.push(inWindows(db, unjoined, fresh.windows));
  const byId = new Map<string, JoinFacts>();
  for (const row of (await Promise.all(queries)).flat()) {
    byId.set(row.eventId, { ...row, source: side, timeout: row.timeout === 1 });
  }
  return [...byId.values()];
}

/**
 * Records of `side` without a partner in any of the windows, in one statement: a batch spread thinly over hours has
 * a thousand windows, a round trip each on PostgreSQL. Each window is a range of the (server, ts) indexes (on the
 * proxy side the small index of unjoined proxy records, empty where no access log was ever sent). SQLite loops
 * over the windows as the outer table by itself. PostgreSQL, joined to them plainly, hashed every waiting proxy
 * record of the store against them (1.3 s a fold at 100k events), so there each window is a LATERAL range, behind
 * OFFSET 0, which keeps the planner from flattening it into that same join; a leg per server (allPerServer), which
 * Citus routes to the server's node (it refuses the OFFSET over a table function otherwise).
 */
function inWindows(db: SqlRunner, unjoined: SQL, windows: readonly TimeWindow[]): Promise<FactsRow[]> {
  if (db.dialect === 'sqlite') {
    const table = rowsTable(
      db,
      [
        ['window_server', 'text'],
        ['window_from', 'bigint'],
        ['window_to', 'bigint'],
      ],
      windows.map(({ server, from, to }) => [server, from, to]),
    );
    return db.all<FactsRow>(sql`SELECT ${FACTS} FROM ${table} AS w JOIN events ON events.server = w.window_server
      AND events.ts >= w.window_from AND events.ts <= w.window_to AND ${unjoined}`);
  }
  return allPerServer<TimeWindow, FactsRow>(db, windows, (server, ofServer) => {
    const table = rowsTable(
      db,
      [
        ['window_from', 'bigint'],
        ['window_to', 'bigint'],
      ],
      ofServer.map(({ from, to }) => [from, to]),
    );
    return sql`SELECT found.* FROM ${table} AS w CROSS JOIN LATERAL (SELECT ${FACTS} FROM events
      WHERE events.server = ${server} AND events.ts >= w.window_from AND events.ts <= w.window_to AND ${unjoined}
      OFFSET 0) AS found`;
  });
}

/**
 * Not in one of `runs`. On PostgreSQL, where concurrent inserts interleave their seqs and leave a fold a thousand
 * runs or more, they are one multirange parameter, binary-searched for each row (as a seq list, `<> ALL` or a hashed
 * `NOT IN`, the reads cost the same or more). SQLite's folds are a run or two, whose ranges it tests directly (a seq
 * list doubled its reads); past OR_RUNS, where a statement of that many ranges grows long, a list of their seqs.
 */
function notIn(db: SqlRunner, runs: readonly SeqRun[]): SQL {
  if (runs.length === 0) return sql`true`;
  if (db.dialect === 'postgres') {
    const ranges = runs.map((run) => `[${run.firstSeq},${run.lastSeq}]`);
    return sql`NOT (${`{${ranges.join(',')}}`}::int8multirange @> events.seq)`;
  }
  if (runs.length > OR_RUNS) return sql`events.seq NOT IN ${listTable(db, seqsOf(runs))}`;
  const ranges = runs.map((run) => sql`(events.seq >= ${run.firstSeq} AND events.seq <= ${run.lastSeq})`);
  return sql`NOT (${sql.join(ranges, sql` OR `)})`;
}

const OR_RUNS = 64;

function seqsOf(runs: readonly SeqRun[]): number[] {
  const seqs: number[] = [];
  for (const run of runs) for (let seq = run.firstSeq; seq <= run.lastSeq; seq++) seqs.push(seq);
  return seqs;
}

/**
 * Writes the pairs: each proxy record gets its client's id and stops being counted, then each client record whose
 * proxy record was still free gets the proxy's. A proxy record another transaction paired meanwhile (two client
 * batches at once on PostgreSQL) is left to that one: `partner IS NULL` is checked again under the row lock.
 * Returns the proxy records no longer counted, for their counts to come off.
 */
export async function writePairs(db: SqlRunner, pairs: readonly JoinedPair[]): Promise<ShadowedRecord[]> {
  if (pairs.length === 0) return [];
  const shadowed = await db.all<CountedRecord & { eventId: string }>(sql`UPDATE events
    SET partner = pairs.partner, counted = 0
    FROM ${pairTable(
      db,
      pairs.map(({ proxy, client }) => [proxy, client.eventId]),
    )} AS pairs
    WHERE ${sameRecord} AND events.partner IS NULL AND events.counted = 1
    RETURNING events.event_id AS "eventId", ${shadowedColumns(db)}`);
  const byProxy = new Map(pairs.map((pair) => [storedKey(pair.proxy), pair]));
  const kept = shadowed.flatMap((row): [JoinFacts, string][] => {
    const pair = byProxy.get(storedKey(row));
    return pair === undefined ? [] : [[pair.client, pair.proxy.eventId]];
  });
  if (kept.length > 0) {
    await db.run(sql`UPDATE events SET partner = pairs.partner
      FROM ${pairTable(db, kept)} AS pairs
      WHERE ${sameRecord} AND events.partner IS NULL`);
  }
  return shadowed;
}

/** A record a join took out of the counts, with its event id (its MRTR input requests go with it). */
export type ShadowedRecord = CountedRecord & { eventId: string };

/**
 * A record named by its dedupe key (event_id, ts, server): the time lets PostgreSQL look in one day partition. The
 * pairs' columns have names of their own, so that RETURNING's unqualified event columns name the event's.
 */
const sameRecord = sql`events.event_id = pairs.record_id AND events.ts = pairs.record_ts
  AND events.server = pairs.record_server`;

function pairTable(db: SqlRunner, rows: readonly (readonly [record: JoinFacts, partner: string])[]): SQL {
  return rowsTable(
    db,
    [
      ['record_id', 'text'],
      ['record_ts', 'bigint'],
      ['record_server', 'text'],
      ['partner', 'text'],
    ],
    rows.map(([record, partner]) => [record.eventId, record.ts, record.server, partner]),
  );
}
