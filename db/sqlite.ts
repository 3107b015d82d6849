import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type { SQL } from 'drizzle-orm';
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { EVENT_COLUMNS, type EventRow } from './event-row.ts';
import type { SqlRunner, Store, TxRunner } from './runner.ts';

const MIGRATIONS = fileURLToPath(new URL('./migrations/sqlite', import.meta.url));

/**
 * The embedded store: one SQLite file in WAL mode. Writes go through one connection and are serialised by a
 * promise queue, because better-sqlite3 is synchronous and an awaited step inside a transaction would otherwise let
 * another request's statements into it. Reads outside transactions use a second connection, which WAL gives a
 * consistent snapshot without waiting for the writer.
 */
export function openSqliteStore(dataDir: string): Store {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'lens.sqlite');
  const writer = new Database(file);
  writer.pragma('journal_mode = WAL');
  writer.pragma('synchronous = FULL');
  writer.pragma('busy_timeout = 5000');
  writer.pragma('cache_size = -65536');
  const writerDb = drizzle({ client: writer });
  migrate(writerDb, { migrationsFolder: MIGRATIONS });

  const reader = new Database(file, { readonly: true });
  reader.pragma('busy_timeout = 5000');
  reader.pragma('cache_size = -65536');
  const readerDb = drizzle({ client: reader });

  const insert = writer.prepare(
    `INSERT INTO events (${EVENT_COLUMNS.map(([, column]) => column).join(', ')})
     VALUES (${EVENT_COLUMNS.map(() => '?').join(', ')}) ON CONFLICT (event_id) DO NOTHING`,
  );
  const fields = EVENT_COLUMNS.map(([field]) => field);
  let queue: Promise<unknown> = Promise.resolve();

  const txRunner: TxRunner = {
    ...runnerOver(writerDb),
    async insertEvents(rows: readonly EventRow[]) {
      const inserted = new Set<string>();
      const values = new Array<unknown>(fields.length);
      for (const row of rows) {
        for (let i = 0; i < fields.length; i++) values[i] = row[fields[i] as keyof EventRow];
        if (insert.run(values).changes > 0) inserted.add(row.eventId);
      }
      return inserted;
    },
  };

  function serialise<T>(work: () => Promise<T>): Promise<T> {
    const result = queue.then(work, work);
    queue = result.catch(() => undefined);
    return result;
  }

  return {
    ...runnerOver(readerDb),
    description: `SQLite ${file}`,
    transaction<T>(work: (tx: TxRunner) => Promise<T>): Promise<T> {
      return serialise(async () => {
        writer.exec('BEGIN IMMEDIATE');
        try {
          const result = await work(txRunner);
          writer.exec('COMMIT');
          return result;
        } catch (error) {
          if (writer.inTransaction) writer.exec('ROLLBACK');
          throw error;
        }
      });
    },
    async close() {
      await serialise(async () => {
        reader.close();
        writer.close();
      });
    },
  };
}

function runnerOver(db: BetterSQLite3Database): SqlRunner {
  return {
    dialect: 'sqlite',
    async all<T>(query: SQL) {
      return db.all<T>(query);
    },
    async run(query: SQL) {
      return db.run(query).changes;
    },
  };
}
