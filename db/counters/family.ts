import { type SQL, sql } from 'drizzle-orm';
import { HOUR_MS, MINUTE_MS } from '../../shared/analysis/time-buckets.ts';
import { addingUpsert, type RowsColumn, upsertRows } from '../queries/lists.ts';
import type { SqlRunner } from '../runner.ts';

/** A counter table and the width of its time buckets. */
export interface Level {
  table: string;
  size: number;
}

/**
 * A column a family's rows are keyed by besides their time bucket: what a record is filed under, in TypeScript for
 * the fold and in SQL over `events` for a range's edges (and a migration's rebuild), side by side so they stay one.
 */
export interface Key<R> {
  column: string;
  type: 'text' | 'integer';
  of: (record: R) => string | number;
  events: SQL;
}

/** A count a family's rows hold: what one counted record adds to it, in TypeScript and over `events`. */
export interface Count<R> {
  column: string;
  of: (record: R) => number;
  events: SQL;
  /** Follows the record's gate verdict (avoidable, and why): a verdict change moves these counts alone. */
  verdict?: true;
}

/**
 * What moves a family's counts: a record folded (`stored`), a proxy record joined to its client's (`shadowed`), a
 * record moved to another bucket and kind (`reclassified`), a gate verdict changed (`verdict`).
 */
export type Verb = 'stored' | 'shadowed' | 'reclassified' | 'verdict';

/**
 * A counter family, declared once (ADR 4): its levels (coarse to fine), the keys and counts of its rows, which
 * records it counts and the verbs that move it. The fold writes every family through `FamilyChanges`, every range is
 * read through `rangeUnion` / `sumRange`, and a migration that adds it fills it with `rebuildStatement`.
 *
 * A family with `of` keeps the rows of another with keys or counts left out (its keys and counts are some of that
 * family's, the same objects): it is written from that family's changes, and a range is read from its own levels
 * and then that family's finer ones (the context counts per server end in the per-client minutes).
 */
export interface CounterFamily<R> {
  levels: readonly Level[];
  keys: readonly Key<R>[];
  counts: readonly Count<R>[];
  /** Which counted records it counts, when not all: in TypeScript and over `events`. */
  where?: { of: (record: R) => boolean; events: SQL };
  moves: readonly Verb[];
  of?: CounterFamily<R>;
}

/** Which of a record's counts a change moves: all, those that do not follow the verdict, or those that do. */
export type Part = 'all' | 'facts' | 'verdict';

/**
 * The changes to one family (and the families kept `of` it) in one transaction: summed per minute and key as they
 * come (a fold's ten thousand records are a few keys a minute), written to every level at once at its end.
 */
export class FamilyChanges<R extends { ts: number }> {
  /** Per minute and key: the minute, the key's values, then one sum per count. */
  private readonly minutes = new Map<string, (string | number)[]>();
  /** The values of a record's counts and of its keys, reused from one record to the next. */
  private readonly values: number[];
  private readonly keyValues: (string | number)[];

  constructor(
    readonly family: CounterFamily<R>,
    private readonly kept: readonly CounterFamily<R>[],
  ) {
    this.values = family.counts.map(() => 0);
    this.keyValues = family.keys.map(() => '');
  }

  /** Counts a record in (`sign` 1) or out (-1); `part` says which of its counts move. */
  add(record: R, sign: number, part: Part = 'all'): void {
    const { family } = this;
    if (family.where !== undefined && !family.where.of(record)) return;
    const { counts } = family;
    const values = this.values;
    let moved = false;
    for (let i = 0; i < counts.length; i++) {
      const count = counts[i] as Count<R>;
      const value = part === 'all' || (part === 'verdict') === (count.verdict === true) ? sign * count.of(record) : 0;
      values[i] = value;
      if (value !== 0) moved = true;
    }
    if (!moved) return;
    const minute = bucketOf(record.ts, MINUTE_MS);
    const { keys } = family;
    const keyValues = this.keyValues;
    // Names never hold NUL (the event schema rejects it), so NUL joins a key unambiguously.
    let id = String(minute);
    for (let k = 0; k < keys.length; k++) {
      const value = (keys[k] as Key<R>).of(record);
      keyValues[k] = value;
      id += `\u0000${value}`;
    }
    const width = 1 + keys.length;
    const sum = this.minutes.get(id);
    if (sum === undefined) {
      // One array of its final length per new row: each record of a fold passes here in every family it moves.
      const row = new Array<string | number>(width + values.length);
      row[0] = minute;
      for (let k = 0; k < keys.length; k++) row[1 + k] = keyValues[k] as string | number;
      for (let i = 0; i < values.length; i++) row[width + i] = values[i] as number;
      this.minutes.set(id, row);
      return;
    }
    for (let i = 0; i < values.length; i++) sum[width + i] = (sum[width + i] as number) + (values[i] as number);
  }

  /** The changes as rows of the family's keys and counts, per minute. */
  rows(): readonly (readonly (string | number)[])[] {
    return [...this.minutes.values()];
  }

  /**
   * Adds the changes to every level of the family and of those kept of it; one table each, sent together. Each
   * family's rows are summed to its finest level from the minutes, and each coarser level from the one below it.
   */
  async write(db: SqlRunner): Promise<void> {
    if (this.minutes.size === 0) return;
    const minutes = this.rows();
    const writes: Promise<void>[] = [];
    for (const family of [this.family, ...this.kept]) {
      const keys = family.keys.map((key) => 1 + indexOf(this.family.keys, key));
      const counts = family.counts.map((count) => 1 + this.family.keys.length + indexOf(this.family.counts, count));
      const columns: RowsColumn[] = [
        ['start', 'bigint'],
        ...family.keys.map((key): RowsColumn => [key.column, key.type]),
      ];
      const names = family.counts.map((count) => count.column);
      // The family's own minutes are summed per its keys already: sorted, they are its minute rows.
      let rows = family === this.family ? sortedRows(this.minutes) : sumPer(minutes, MINUTE_MS, keys, counts);
      let size = MINUTE_MS;
      const own = rows[0]?.length ?? 0;
      const same = Array.from({ length: own - 1 }, (_, i) => 1 + i);
      const [ownKeys, ownCounts] = [same.slice(0, keys.length), same.slice(keys.length)];
      // Levels are listed coarse to fine; a coarser bucket is a union of finer ones, so each sums the one before.
      for (const level of [...family.levels].reverse()) {
        if (level.size !== size) rows = sumPer(rows, level.size, ownKeys, ownCounts);
        size = level.size;
        const { table } = level;
        const changed = rows.filter((row) => ownCounts.some((i) => row[i] !== 0));
        writes.push(upsertRows(db, addingUpsert(table, columns, names), changed));
      }
    }
    await Promise.all(writes);
    this.minutes.clear();
  }
}

/**
 * Sums rows of (start, keys, counts) per bucket of `size` and the keys at `keys`, the counts at `counts`, sorted by
 * key: concurrent PostgreSQL transactions then lock shared rows in one order and cannot deadlock.
 */
function sumPer(
  rows: readonly (readonly (string | number)[])[],
  size: number,
  keys: readonly number[],
  counts: readonly number[],
): (string | number)[][] {
  const sums = new Map<string, (string | number)[]>();
  const width = 1 + keys.length;
  for (const row of rows) {
    const start = bucketOf(row[0] as number, size);
    let id = String(start);
    for (let k = 0; k < keys.length; k++) id += `\u0000${row[keys[k] as number]}`;
    const sum = sums.get(id);
    if (sum === undefined) {
      const next = new Array<string | number>(width + counts.length);
      next[0] = start;
      for (let k = 0; k < keys.length; k++) next[1 + k] = row[keys[k] as number] as string | number;
      for (let c = 0; c < counts.length; c++) next[width + c] = row[counts[c] as number] as number;
      sums.set(id, next);
      continue;
    }
    for (let c = 0; c < counts.length; c++) {
      const at = width + c;
      sum[at] = (sum[at] as number) + (row[counts[c] as number] as number);
    }
  }
  return sortedRows(sums);
}

/** Rows by their ids, in the ids' order. */
function sortedRows(byId: ReadonlyMap<string, (string | number)[]>): (string | number)[][] {
  // The default sort orders strings by UTF-16 code units, as `<` does, without a call back into JavaScript per step.
  return [...byId.keys()].sort().map((id) => byId.get(id) as (string | number)[]);
}

function indexOf<T>(list: readonly T[], item: T): number {
  const i = list.indexOf(item);
  if (i < 0) throw new Error('a family kept of another keeps only its keys and counts');
  return i;
}

/**
 * A range read: [from, to) (open ends are the bounds of event times) and where the raw events begin, which a reader
 * must say (null: nothing deleted), since a reader that forgot it would read deleted events as none.
 */
export interface Window {
  from?: number;
  to?: number;
  /**
   * Where raw events and the counts finer than an hour begin (api/services/retention.ts), an hour's start: before
   * it only the hour counts are kept, and a range's older part is read from them in whole hours.
   */
  eventsFrom: number | null;
  /**
   * Where the events still kept as rows begin (api/services/compaction.ts), an hour's start; null or absent: every
   * kept event is a row. Before it a range's edges finer than a minute cannot be read from `events`, so they are read
   * in whole minutes: a range that starts at 10:00:30 there counts from 10:00.
   */
  rowsFrom?: number | null;
}

export interface RangeRead {
  window: Window;
  /** Rows per bucket of this width (a multiple of a minute), from the levels that nest in it; null: one bucket, 0. */
  step: number | null;
  /** Conditions on the family's keys, given a key's column: the table's, or its expression over `events`. */
  where?: (key: (column: string) => SQL) => SQL[];
}

/** The levels a range of the family is read from: its own, then the finer ones of the family it is kept of. */
function levelsOf<R>(family: CounterFamily<R>): readonly Level[] {
  const finest = family.levels[family.levels.length - 1]?.size ?? Number.POSITIVE_INFINITY;
  const finer = family.of === undefined ? [] : levelsOf(family.of).filter((level) => level.size < finest);
  return [...family.levels, ...finer];
}

/**
 * The family's rows over a range, exactly, as one UNION ALL of (start, its keys, its counts): each span from the
 * coarsest level whose buckets fit in it, the edges finer than the finest level from the events themselves. Null
 * when the range is empty.
 */
export function rangeUnion<R>(family: CounterFamily<R>, read: RangeRead): SQL | null {
  const { step } = read;
  const levels = levelsOf(family).filter((level) => step === null || step % level.size === 0);
  const parts = segments(read.window, levels);
  const startOf = (column: SQL) => (step === null ? sql`0` : sql`${column} - (${column} % ${step})`);
  const keys = family.keys.map((key) => sql.identifier(key.column));
  const counts = family.counts.map((count) => sql.identifier(count.column));
  const selects: SQL[] = parts.rollups.map(([table, from, to]) => {
    const where = [
      sql`start >= ${from}`,
      sql`start < ${to}`,
      ...(read.where?.((column) => sql`${sql.identifier(column)}`) ?? []),
    ];
    return sql`SELECT ${startOf(sql`start`)} AS start, ${sql.join([...keys, ...counts], sql`, `)}
      FROM ${sql.identifier(table)} WHERE ${sql.join(where, sql` AND `)}`;
  });
  const keyOf = (column: string): SQL => {
    const key = family.keys.find((k) => k.column === column);
    if (key === undefined) throw new Error(`no key ${column} in the family of ${family.levels[0]?.table}`);
    return sql`(${key.events})`;
  };
  for (const [from, to] of parts.raw) {
    const where = [...eventsOf(family, from, to), ...(read.where?.(keyOf) ?? [])];
    const values = [
      ...family.keys.map((key) => sql`${key.events} AS ${sql.identifier(key.column)}`),
      ...family.counts.map((count) => sql`${count.events} AS ${sql.identifier(count.column)}`),
    ];
    selects.push(sql`SELECT ${startOf(sql`ts`)} AS start, ${sql.join(values, sql`, `)}
      FROM events WHERE ${sql.join(where, sql` AND `)}`);
  }
  return selects.length === 0 ? null : sql.join(selects, sql` UNION ALL `);
}

/** The events the family counts in [from, to). */
function eventsOf<R>(family: CounterFamily<R>, from: number, to: number): SQL[] {
  return [
    sql`counted = 1`,
    sql`ts >= ${from}`,
    sql`ts < ${to}`,
    ...(family.where === undefined ? [] : [family.where.events]),
  ];
}

/**
 * The family's counts (or those named in `counts`) over a range, summed per start and the keys in `keep` (the others
 * folded away), rows whose counts are all 0 left out: what most reads are.
 */
export async function sumRange<Row>(
  db: SqlRunner,
  // Of any record: the reader needs only its SQL.
  family: CounterFamily<never>,
  read: RangeRead & { keep: readonly string[]; counts?: readonly string[]; orderBy?: readonly string[] },
): Promise<Row[]> {
  const union = rangeUnion(family, read);
  if (union === null) return [];
  const groups = ['start', ...read.keep].map((column) => sql.identifier(column));
  const counts = read.counts ?? family.counts.map((count) => count.column);
  const sums = counts.map((column) => sql`sum(${sql.identifier(column)})`);
  const named = counts.map((column, i) => sql`${sums[i]} AS ${sql.identifier(column)}`);
  return db.all<Row>(sql`SELECT ${sql.join([...groups, ...named], sql`, `)} FROM (${union}) AS parts
    GROUP BY ${sql.join(groups, sql`, `)} HAVING ${sql.join(
      sums.map((sum) => sql`${sum} <> 0`),
      sql` OR `,
    )}${
      read.orderBy === undefined
        ? sql``
        : sql` ORDER BY ${sql.join(
            read.orderBy.map((column) => sql.identifier(column)),
            sql`, `,
          )}`
    }`);
}

/**
 * The statement that fills a level of the family from the stored events, as its fold would have counted them:
 * counted, and not still queued (their fold counts them). A migration that adds a family holds these, rendered for
 * its store (tests/api/method-failures.test.ts holds them equal); past the events' horizon its hours start empty.
 */
export function rebuildStatement<R>(family: CounterFamily<R>, level: Level): SQL {
  const keys = family.keys.map((key) => key.events);
  const counts = family.counts.map((count) => sql`sum(${count.events})`);
  const columns = ['start', ...family.keys.map((k) => k.column), ...family.counts.map((c) => c.column)];
  const where = [
    sql`counted = 1`,
    ...(family.where === undefined ? [] : [family.where.events]),
    sql`NOT EXISTS (SELECT 1 FROM fold_queue WHERE events.seq BETWEEN fold_queue.first_seq AND fold_queue.last_seq)`,
  ];
  const groups = columns.slice(0, 1 + keys.length).map((_, i) => String(i + 1));
  return sql`INSERT INTO ${sql.identifier(level.table)} (${sql.join(
    columns.map((column) => sql.identifier(column)),
    sql`, `,
  )}) SELECT ts - ts % ${sql.raw(String(level.size))}, ${sql.join([...keys, ...counts], sql`, `)} FROM events WHERE ${sql.join(
    where,
    sql` AND `,
  )} GROUP BY ${sql.raw(groups.join(', '))}`;
}

const MAX_TS = 8.64e15 + 1;

/**
 * Splits [from, to) into spans of the levels, coarsest level first, and the edges finer than the finest level (levels
 * are listed coarse to fine), read from raw events. Past the raw events' horizon, whole hours from the hour level.
 */
export function segments(
  window: Window,
  levels: readonly Level[],
): { rollups: [string, number, number][]; raw: [number, number][] } {
  // Event times are validated to lie in [0, 8.64e15]: an open end is that bound.
  const asked = { from: window.from ?? 0, to: window.to ?? MAX_TS };
  const kept = window.eventsFrom;
  const finest = levels[levels.length - 1]?.size ?? MINUTE_MS;
  const packed = window.rowsFrom ?? null;
  // Edges among packed events widen to the finest level's buckets (rowsFrom is an hour's start, so never cut one).
  const from = packed !== null && asked.from < packed ? bucketOf(asked.from, finest) : asked.from;
  const to = packed !== null && asked.to <= packed ? ceilTo(asked.to, finest) : asked.to;
  if (kept !== null && from < kept) {
    // Past retention: whole hours from the hour level (none when the step is finer than an hour).
    const hours = levels.find((level) => level.size === HOUR_MS);
    const older: [string, number, number][] =
      hours === undefined ? [] : [[hours.table, from - (from % HOUR_MS), ceilTo(Math.min(to, kept), HOUR_MS)]];
    if (to <= kept) return { rollups: older, raw: [] };
    const newer = segments({ from: kept, to, eventsFrom: null, rowsFrom: packed }, levels);
    return { rollups: [...older, ...newer.rollups], raw: newer.raw };
  }
  const m1 = ceilTo(from, finest);
  const m2 = to - (to % finest);
  if (m1 >= m2 || levels.length === 0) return { rollups: [], raw: [[from, to]] };
  const raw: [number, number][] = [];
  if (from < m1) raw.push([from, m1]);
  if (m2 < to) raw.push([m2, to]);
  const rollups: [string, number, number][] = [];
  cover(m1, m2, levels, rollups);
  return { rollups, raw };
}

/** Whole buckets of the coarsest level in the middle, the remainders at either end from the finer levels. */
function cover(from: number, to: number, levels: readonly Level[], out: [string, number, number][]): void {
  if (from >= to) return;
  const [level, ...finer] = levels;
  if (level === undefined) return;
  const start = ceilTo(from, level.size);
  const end = to - (to % level.size);
  if (finer.length === 0 || start >= end) {
    if (finer.length === 0) out.push([level.table, from, to]);
    else cover(from, to, finer, out);
    return;
  }
  cover(from, start, finer, out);
  out.push([level.table, start, end]);
  cover(end, to, finer, out);
}

function bucketOf(ts: number, size: number): number {
  return ts - (ts % size);
}

function ceilTo(value: number, size: number): number {
  const rest = value % size;
  return rest === 0 ? value : value - rest + size;
}
