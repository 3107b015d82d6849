import { type SQL, sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';
import { identityText } from '../stored-identity.ts';
import { type AnalysisRow, analysisColumns } from './analysis.ts';
import { listTable, type RowsColumn, rowsTable } from './lists.ts';

/** The events stored and not yet folded (db/schema/fold-queue.ts), as runs of seqs. */

export interface SeqRun {
  firstSeq: number;
  lastSeq: number;
}

/**
 * Queues freshly stored events, in the transaction that stored them. Their seqs are cut into runs of consecutive
 * values: on SQLite one transaction's seqs are one run; on PostgreSQL concurrent inserts may interleave theirs.
 */
export async function queueForFold(
  db: SqlRunner,
  stored: readonly { seq: number; ts: number }[],
  committedAt: number,
): Promise<void> {
  if (stored.length === 0) return;
  const rows = runsOf(stored).map((run) => [run.firstSeq, run.lastSeq, run.minTs, committedAt]);
  await db.run(sql`INSERT INTO fold_queue (first_seq, last_seq, min_ts, committed_at)
    SELECT * FROM ${rowsTable(db, QUEUE_COLUMNS, rows)} AS rows WHERE true`);
}

const QUEUE_COLUMNS: readonly RowsColumn[] = [
  ['first_seq', 'bigint'],
  ['last_seq', 'bigint'],
  ['min_ts', 'bigint'],
  ['committed_at', 'bigint'],
];

function runsOf(stored: readonly { seq: number; ts: number }[]): (SeqRun & { minTs: number })[] {
  const sorted = [...stored].sort((a, b) => a.seq - b.seq);
  const runs: (SeqRun & { minTs: number })[] = [];
  for (const { seq, ts } of sorted) {
    const last = runs[runs.length - 1];
    if (last !== undefined && seq === last.lastSeq + 1) {
      last.lastSeq = seq;
      last.minTs = Math.min(last.minTs, ts);
    } else runs.push({ firstSeq: seq, lastSeq: seq, minTs: ts });
  }
  return runs;
}

/**
 * Takes queued events off the queue, `maxEvents` at most (a run longer than that is cut, its rest left queued), the
 * runs of the earliest events first: batches sent side by side commit out of order, and a fold that took a later
 * batch before an earlier one would make the earlier one's partitions replay. The caller folds them in the same
 * transaction, holding the fold lock, so the read and the delete see the same queue.
 */
export async function takeQueued(db: SqlRunner, maxEvents: number): Promise<TakenRun[]> {
  const queued = await db.all<{ firstSeq: number | string; lastSeq: number | string; minTs: number | string }>(sql`
    SELECT first_seq AS "firstSeq", last_seq AS "lastSeq", min_ts AS "minTs" FROM fold_queue
    ORDER BY min_ts, first_seq LIMIT ${TAKE_RUNS}`);
  const taken: TakenRun[] = [];
  let room = maxEvents;
  let cut: TakenRun | null = null;
  for (const row of queued) {
    const run = { firstSeq: Number(row.firstSeq), lastSeq: Number(row.lastSeq), minTs: Number(row.minTs) };
    const size = run.lastSeq - run.firstSeq + 1;
    if (size > room) {
      // The run's earliest time bounds the part taken as well as the part left.
      if (room > 0) cut = { ...run, lastSeq: run.firstSeq + room - 1 };
      break;
    }
    taken.push(run);
    room -= size;
  }
  if (taken.length > 0) {
    const firsts = taken.map((run) => run.firstSeq);
    await db.run(sql`DELETE FROM fold_queue WHERE first_seq IN ${listTable(db, firsts)}`);
  }
  if (cut !== null) {
    await db.run(sql`UPDATE fold_queue SET first_seq = ${cut.lastSeq + 1} WHERE first_seq = ${cut.firstSeq}`);
    taken.push(cut);
  }
  return taken.sort((a, b) => a.firstSeq - b.firstSeq);
}

/** A run taken for a fold, with the earliest event time in it (a bound for the read: fewer day partitions). */
export interface TakenRun extends SeqRun {
  minTs: number;
}

/** Runs read per take: on PostgreSQL interleaved inserts may leave many short ones. */
const TAKE_RUNS = 20_000;

/**
 * 1 while the events row of the enclosing query is still queued for its fold, else 0 (an integer on both engines).
 * Read in the same statement as the row, so from the same snapshot: the replays and reclassification tell folded
 * from queued by it. SQLite probes the queue for the row; PostgreSQL reads the queue once, as the multirange of its
 * runs that each row's seq is looked up in: on Citus (docs/adr/0014-distribution-by-server.md) fold_queue is a table
 * of the coordinator, which a query on the distributed events may read apart (a subquery it runs first) but not probe
 * per row.
 */
export function queued(db: SqlRunner): SQL {
  if (db.dialect === 'sqlite') return sql`(CASE WHEN ${queuedSeq(sql`events.seq`)} THEN 1 ELSE 0 END)`;
  return sql`(CASE WHEN (SELECT range_agg(int8range(first_seq, last_seq, '[]')) FROM fold_queue) @> events.seq
    THEN 1 ELSE 0 END)`;
}

/** Whether `seq` is queued: the run starting at or before it, found by the primary key, reaches it. */
function queuedSeq(seq: SQL): SQL {
  return sql`EXISTS (SELECT 1 FROM (SELECT last_seq FROM fold_queue WHERE fold_queue.first_seq <= ${seq}
    ORDER BY fold_queue.first_seq DESC LIMIT 1) AS run WHERE run.last_seq >= ${seq})`;
}

/**
 * Which of these seqs are still queued, probed in the queue alone. Asked of the events rows with these seqs,
 * PostgreSQL, without statistics yet on a day partition filling up, scanned the partition and probed the queue for
 * every row of it before matching the seqs (0.3-1.8 s against a few ms, at 100k events).
 */
export async function stillQueued(db: SqlRunner, seqs: readonly number[]): Promise<Set<number>> {
  if (seqs.length === 0) return new Set();
  const rows = await db.all<{ seq: number | string }>(sql`SELECT probe.value AS seq FROM ${listTable(db, seqs)} AS probe
    WHERE ${queuedSeq(sql`probe.value`)}`);
  return new Set(rows.map((row) => Number(row.seq)));
}

/** Whether `seq` lies in one of `runs` (in seq order). */
export function inRuns(runs: readonly SeqRun[], seq: number): boolean {
  let low = 0;
  let high = runs.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const run = runs[middle] as SeqRun;
    if (seq < run.firstSeq) high = middle - 1;
    else if (seq > run.lastSeq) low = middle + 1;
    else return true;
  }
  return false;
}

/** How many events wait to be folded, and since when the oldest of them has (null when none). */
export async function queueLag(db: SqlRunner): Promise<{ events: number; since: number | null }> {
  const rows = await db.all<{ events: number | string | null; since: number | string | null }>(
    sql`SELECT SUM(last_seq - first_seq + 1) AS events, MIN(committed_at) AS since FROM fold_queue`,
  );
  const row = rows[0];
  return { events: Number(row?.events ?? 0), since: row?.since == null ? null : Number(row.since) };
}

/** A stored event as the fold reads it: its analysis columns and what joins it to the other side's record. */
export interface FoldRow extends AnalysisRow {
  seq: number;
  timeout: number;
  correlation: string | null;
  requestId: string | null;
  actProfile: number | null;
}

/**
 * What a stored event's row keeps as it was inserted: everything the fold reads but the columns a later statement may
 * change (MUTABLE_COLUMNS: a reclassification, re-filed facts, a gate verdict, a join). The process that stored an
 * event can hand these to the fold (api/services/fresh-rows.ts), which then reads back only the rest.
 */
export type FoldFacts = Omit<FoldRow, MutableColumn>;

type MutableColumn =
  | 'seq'
  | 'counted'
  | 'bucket'
  | 'kind'
  | 'rule'
  | 'waitUntil'
  | 'identity'
  | 'avoidable'
  | 'gateReason'
  | 'blockedBy';

/** The columns an UPDATE of events may change after the insert (db/queries/classification.ts, gate.ts, request-join.ts). */
function mutableColumns(db: SqlRunner): SQL {
  return sql`seq, counted, bucket, kind, rule, wait_until AS "waitUntil", ${identityText(db, 'events')} AS identity,
    avoidable, gate_reason AS "gateReason", blocked_by AS "blockedBy"`;
}

/**
 * The events of the runs taken (in seq order, as `takeQueued` answers them), in seq order. Of a run whose every
 * event's facts are `known` (this process stored them), only the columns that may have changed since are read;
 * the others are read whole. A row no longer stored (retention deleted it) is not read either way, so it is not
 * folded.
 */
export async function foldRows(
  db: SqlRunner,
  runs: readonly TakenRun[],
  known: ReadonlyMap<number, FoldFacts> = new Map(),
): Promise<FoldRow[]> {
  const knownRuns = runs.filter((run) => runKnown(run, known));
  const otherRuns = runs.filter((run) => !runKnown(run, known));
  const [changing, whole] = await Promise.all([
    readRuns<Pick<FoldRow, MutableColumn>>(db, knownRuns, mutableColumns(db)),
    readRuns<FoldRow>(
      db,
      otherRuns,
      sql`seq, timeout, correlation, request_id AS "requestId", act_profile AS "actProfile",
      ${analysisColumns(db)}`,
    ),
  ]);
  const rows = changing.map((row) => withFacts(row, known.get(row.seq) as FoldFacts));
  if (whole.length === 0) return rows;
  return [...rows, ...whole].sort((a, b) => a.seq - b.seq);
}

function runKnown(run: SeqRun, known: ReadonlyMap<number, FoldFacts>): boolean {
  if (known.size === 0) return false;
  for (let seq = run.firstSeq; seq <= run.lastSeq; seq++) if (!known.has(seq)) return false;
  return true;
}

/** One object literal, so that every fold row has one shape. */
function withFacts(row: Pick<FoldRow, MutableColumn>, facts: FoldFacts): FoldRow {
  return {
    seq: row.seq,
    eventId: facts.eventId,
    ts: facts.ts,
    source: facts.source,
    protocol: facts.protocol,
    client: facts.client,
    server: facts.server,
    session: facts.session,
    httpMethod: facts.httpMethod,
    httpPath: facts.httpPath,
    httpStatus: facts.httpStatus,
    rpcMethod: facts.rpcMethod,
    rpcName: facts.rpcName,
    era: facts.era,
    protocolVersion: facts.protocolVersion,
    continuation: facts.continuation,
    rpcCode: facts.rpcCode,
    frames: facts.frames,
    latencyMs: facts.latencyMs,
    identity: row.identity,
    bucket: row.bucket,
    kind: row.kind,
    rule: row.rule,
    waitUntil: row.waitUntil,
    discoveryRead: facts.discoveryRead,
    counted: row.counted,
    ctxRequested: facts.ctxRequested,
    ctxApplied: facts.ctxApplied,
    ctxReason: facts.ctxReason,
    avoidable: row.avoidable,
    gateReason: row.gateReason,
    blockedBy: row.blockedBy,
    timeout: facts.timeout,
    correlation: facts.correlation,
    requestId: facts.requestId,
    actProfile: facts.actProfile,
  };
}

/**
 * The `columns` of the events of `runs`, in seq order. Runs close together are read as one primary-key range and
 * what lies between them (another transaction's events) is left out; runs far apart are read apart. A join of the
 * runs to the events made PostgreSQL scan the table once per run (7 s a fold at 200k events), and one range from the
 * first run to the last read the whole backlog when the runs taken, the earliest events first, lay far apart in seq
 * (interleaved inserts).
 */
async function readRuns<T extends { seq: number }>(
  db: SqlRunner,
  runs: readonly TakenRun[],
  columns: SQL,
): Promise<T[]> {
  // No event of the runs is older than their earliest time: on PostgreSQL the read looks only in the day partitions
  // from it on, instead of in every day's seq index. SQLite reads the rowid ranges, which a bound on ts could only
  // tempt onto events_ts_idx.
  const fromTs = runs.reduce((least, run) => Math.min(least, run.minTs), Number.POSITIVE_INFINITY);
  const inDays = db.dialect === 'postgres' ? sql`ts >= ${fromTs} AND ` : sql``;
  const spans: SeqRun[] = [];
  for (const run of runs) {
    const last = spans[spans.length - 1];
    if (last !== undefined && run.firstSeq - last.lastSeq <= SPAN_GAP) last.lastSeq = run.lastSeq;
    else spans.push({ ...run });
  }
  const rows: T[] = [];
  for (let start = 0; start < spans.length; start += SPANS_PER_READ) {
    const ranges = spans
      .slice(start, start + SPANS_PER_READ)
      .map((span) => sql`(seq >= ${span.firstSeq} AND seq <= ${span.lastSeq})`);
    const read = await db.all<T & { seq: number | string }>(
      sql`SELECT ${columns} FROM events WHERE ${inDays}(${sql.join(ranges, sql` OR `)}) ORDER BY seq`,
    );
    for (const row of read) {
      row.seq = Number(row.seq);
      if (inRuns(runs, row.seq)) rows.push(row);
    }
  }
  return rows;
}

/** Runs closer than this are read as one range: a few rows more read, far fewer ranges. */
const SPAN_GAP = 256;
/** Ranges per statement: SQLite binds at most 32,766 parameters, and a plan over thousands of ranges costs too. */
const SPANS_PER_READ = 200;
