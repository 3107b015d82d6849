/**
 * What an embedded store costs on disk per event, and which table or index each byte belongs to: the figure issue
 * 19 holds against the NDJSON the events came from. Read with the store closed, after a checkpoint that empties the
 * write-ahead log into the file, without VACUUM: free pages the store left behind count, since they are on disk.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { printTable } from './support.ts';

/** The parts named one by one; the rest are summed into one line. */
const NAMED_PARTS = 14;

export function reportStoreBytes(dataDir: string, events: number, ndjsonBytes: number): void {
  const db = new Database(join(dataDir, 'lens.sqlite'));
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const pages = db.pragma('page_count', { simple: true }) as number;
    const freePages = db.pragma('freelist_count', { simple: true }) as number;
    const parts = db
      .prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC')
      .all() as { name: string; bytes: number }[];
    const perEvent = (bytes: number) => (bytes / events).toFixed(1);
    const rest = parts.slice(NAMED_PARTS).reduce((n, part) => n + part.bytes, 0);
    console.log(
      `bytes: ${perEvent(pages * pageSize)} B/event on disk (${perEvent(freePages * pageSize)} of them free pages) vs ` +
        `${perEvent(ndjsonBytes)} B/event of NDJSON`,
    );
    printTable(
      ['part', 'B/event'],
      [
        ...parts.slice(0, NAMED_PARTS).map((part) => [part.name, perEvent(part.bytes)]),
        [`${parts.length - NAMED_PARTS} more`, perEvent(rest)],
      ],
    );
  } finally {
    db.close();
  }
}
