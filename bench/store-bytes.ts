/**
 * What an embedded store costs on disk per event, and which table or index each byte belongs to: the figure issue
 * 19 holds against the NDJSON the events came from. Read with the store closed, after a checkpoint that empties the
 * write-ahead log into the file, without VACUUM: free pages the store left behind count, since they are on disk.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import type { SqlRunner } from '../db/runner.ts';
import { printTable } from './support.ts';

/** The parts named one by one; the rest are summed into one line. */
const NAMED_PARTS = 14;

export function reportStoreBytes(dataDir: string, events: number, ndjsonBytes: number): void {
  printBytes(storeParts(dataDir), events, ndjsonBytes);
}

/** The embedded store's bytes on disk, each part (table or index) with the table it belongs to. */
export function storeParts(dataDir: string): StoreBytes {
  const db = new Database(join(dataDir, 'lens.sqlite'));
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const pages = db.pragma('page_count', { simple: true }) as number;
    const freePages = db.pragma('freelist_count', { simple: true }) as number;
    const parts = db
      .prepare(`SELECT d.name, coalesce(m.tbl_name, d.name) AS "table", sum(d.pgsize) AS bytes
        FROM dbstat d LEFT JOIN sqlite_schema m ON m.name = d.name GROUP BY d.name ORDER BY bytes DESC`)
      .all() as StorePart[];
    return { total: pages * pageSize, free: freePages * pageSize, parts };
  } finally {
    db.close();
  }
}

/**
 * The same on PostgreSQL: each table (with its TOAST, free space and visibility maps) and each index, as the server
 * reports them without a VACUUM FULL; dead tuples the fold's updates left count, as they are on disk. A table kept in
 * time partitions (docs/adr/0009-retention.md) is one part, its partitions summed under its name, as is each of its
 * indexes: a day's or a month's share is not what the breakdown is for.
 */
export async function reportPostgresBytes(store: SqlRunner, events: number, ndjsonBytes: number): Promise<void> {
  const parts = await store.all<{ name: string; bytes: number }>(sql`SELECT
      coalesce(pg_partition_root(c.oid)::regclass::text, c.relname) AS name,
      sum(CASE WHEN c.relkind = 'i' THEN pg_relation_size(c.oid) ELSE pg_table_size(c.oid) END) AS bytes
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'i', 'm')
    GROUP BY 1 ORDER BY bytes DESC`);
  const sized = parts.map((part) => ({ name: part.name, table: part.name, bytes: Number(part.bytes) }));
  printBytes({ total: sized.reduce((n, part) => n + part.bytes, 0), free: null, parts: sized }, events, ndjsonBytes);
}

interface StoreBytes {
  total: number;
  /** Bytes of pages the store holds free (SQLite's free list); null where the engine does not say. */
  free: number | null;
  /** Tables and indexes, largest first. */
  parts: StorePart[];
}

/** A table or an index, and the table it belongs to (on PostgreSQL, its own name). */
interface StorePart {
  name: string;
  table: string;
  bytes: number;
}

function printBytes({ total, free, parts }: StoreBytes, events: number, ndjsonBytes: number): void {
  const perEvent = (bytes: number) => (bytes / events).toFixed(1);
  const rest = parts.slice(NAMED_PARTS).reduce((n, part) => n + part.bytes, 0);
  const freeNote = free === null ? '' : ` (${perEvent(free)} of them free pages)`;
  console.log(`bytes: ${perEvent(total)} B/event on disk${freeNote} vs ${perEvent(ndjsonBytes)} B/event of NDJSON`);
  printTable(
    ['part', 'B/event'],
    [
      ...parts.slice(0, NAMED_PARTS).map((part) => [part.name, perEvent(part.bytes)]),
      [`${parts.length - NAMED_PARTS} more`, perEvent(rest)],
    ],
  );
}
