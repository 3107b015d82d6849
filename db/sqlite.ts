import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { SQL } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import { storedCorrelation } from '../shared/correlation-key.ts';
import { EVENT_COLUMNS, putEventValues } from './event-row.ts';
import type { Store, TxRunner } from './runner.ts';

const MIGRATIONS = fileURLToPath(new URL('./migrations/sqlite', import.meta.url));
const WRITER = new URL('./sqlite-writer.worker.mjs', import.meta.url);
const COLUMNS = [...EVENT_COLUMNS.map(([, column]) => column), 'identity', 'body_block', 'body_line'];
// The identity's digest travels to the writer as hex (the values go as JSON) and is stored as its bytes.
const SLOTS = COLUMNS.map((column) => (column === 'identity' ? 'unhex(?)' : '?'));
const INSERT_SQL = `INSERT INTO events (${COLUMNS.join(', ')})
  VALUES (${SLOTS.join(', ')}) ON CONFLICT (event_id, ts, server) DO NOTHING`;

const dialect = new SQLiteSyncDialect();

/**
 * What migrations call that SQLite lacks: compact_correlation rewrites stored join keys with the digest ingest uses
 * (SQLite has no SHA-256).
 */
export function addMigrationFunctions(db: Database.Database): void {
  db.function('lens_stored_correlation', { deterministic: true }, (key) =>
    storedCorrelation(typeof key === 'string' ? key : null),
  );
}

/**
 * The embedded store: one SQLite file in WAL mode. Every write runs on a writer thread (sqlite-writer.worker.mjs),
 * so ingest uses both cores: this thread prepares the next chunk while the writer commits the last. Transactions
 * are serialised by a promise queue. Reads outside transactions use a connection on this thread, to which WAL
 * gives a consistent snapshot without waiting for the writer.
 */
export function openSqliteStore(dataDir: string): Store {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'lens.sqlite');
  const setup = new Database(file);
  // Retention deletes a day of events at a time: with incremental auto-vacuum it can give the freed pages back to
  // the file system in small steps (db/queries/retention.ts). SQLite takes the mode only before the first table.
  const fresh = setup.prepare('SELECT 1 FROM sqlite_master LIMIT 1').get() === undefined;
  if (fresh) setup.pragma('auto_vacuum = INCREMENTAL');
  setup.pragma('journal_mode = WAL');
  addMigrationFunctions(setup);
  migrate(drizzle({ client: setup }), { migrationsFolder: MIGRATIONS });
  setup.close();

  const reader = new Database(file, { readonly: true });
  reader.pragma('busy_timeout = 5000');
  // The reader maps none of the file and keeps a 4 MiB cache (issue 39 item 10, ADR 20 "The reader's pages"): the
  // server's RSS must stay under 300 MB while it ingests. Mapped (2 GB), every page a read touched stayed resident
  // until SQLite mapped the file again: the day's identity list alone touched 66 MB of a 1M-event store, and in the
  // 10-minute soak (1,000 events/s and a dashboard) the mapped pages reached 280 MB, peak RSS 571 MB; unmapped, 0 MB
  // and 295-309 MB. The pages come from the OS page cache by read(); with a 16 MiB cache the main thread's malloc
  // arena grew to 44 MB in 6 minutes, with 4 MiB to 25. What it costs, at 1M events on a day (median of 6 alternating
  // runs' p50s, all pages in the OS page cache): the day's identities 39 -> 47 ms, a server's page 93 -> 111 ms, the
  // rest within the noise. At 10M it costs more: the alarm list took 84 ms unmapped, 54 mapped (not measured again).
  reader.pragma('cache_size = -4096');
  reader.pragma('mmap_size = 0');
  const writer = new WriterThread(file);
  let queue: Promise<unknown> = Promise.resolve();

  const runEach = (statement: string, rows: readonly (readonly unknown[])[]) =>
    writer.call<void>({ op: 'each', sql: statement, rows: holdsLongText(rows) ? rows : JSON.stringify(rows) });
  const txRunner: TxRunner = {
    dialect: 'sqlite',
    all: async <T>(query: SQL) => rowObjects<T>(await writer.call<WriterRows>({ op: 'all', ...render(query) })),
    run: (query: SQL) => writer.call<number>({ op: 'run', ...render(query) }),
    runEach,
    async insertEvents({ rows, blocks, blockOf, lineOf, digests }) {
      // body_block holds the block's place in `blocks` until the writer has stored it and knows its id.
      const values = new Array<unknown>(rows.length * COLUMNS.length);
      const fields = EVENT_COLUMNS.length;
      rows.forEach((row, index) => {
        const at = index * COLUMNS.length;
        putEventValues(row, values, at);
        values[at + fields] = digests[index];
        values[at + fields + 1] = blockOf[index];
        values[at + fields + 2] = lineOf[index];
      });
      // Seqs by row, as the writer answers them (0: a duplicate): no key per row is built here.
      return writer.call<Float64Array>({ op: 'insert', values: JSON.stringify(values), blocks });
    },
  };

  function serialise<T>(work: () => Promise<T>): Promise<T> {
    const result = queue.then(work, work);
    queue = result.catch(() => undefined);
    return result;
  }

  return {
    dialect: 'sqlite',
    async all<T>(query: SQL) {
      const { sql, params } = render(query);
      return reader.prepare(sql).all(params) as T[];
    },
    run: (query: SQL) => serialise(() => txRunner.run(query)),
    runEach: (statement, rows) => serialise(() => runEach(statement, rows)),
    description: `SQLite ${file}`,
    transaction<T>(work: (tx: TxRunner) => Promise<T>): Promise<T> {
      return serialise(async () => {
        await writer.call({ op: 'begin' });
        try {
          const result = await work(txRunner);
          await writer.call({ op: 'exec', sql: 'COMMIT' });
          return result;
        } catch (error) {
          // A COMMIT that failed (SQLITE_FULL: the WAL could not grow) may have ended the transaction itself; the
          // writer rolls back whatever is left, and should that fail, the next BEGIN still starts clean.
          await writer.call({ op: 'rollback' }).catch(() => undefined);
          throw error;
        }
      });
    },
    async close() {
      await serialise(async () => {
        await writer.call({ op: 'close' });
        await writer.terminate();
        reader.close();
      });
    },
  };
}

function render(query: SQL): { sql: string; params: unknown[] } {
  const { sql, params } = dialect.sqlToQuery(query);
  return { sql, params };
}

/** A read's answer from the writer thread: rows as arrays, in JSON unless they hold bytes (sqlite-writer.worker.mjs). */
type WriterRows = { columns: string[]; json: string } | { columns: string[]; rows: unknown[][] };

/** Row makers by column list: a read renders the same columns every time, so each shape is compiled once. */
const rowMakers = new Map<string, (values: unknown[]) => unknown>();

/** The writer's arrays as the objects `all` answers, keyed by column name (a repeated name keeps the last value). */
function rowObjects<T>(answer: WriterRows): T[] {
  const shape = answer.columns.join('\u0000');
  let make = rowMakers.get(shape);
  if (make === undefined) {
    // An object literal of fixed keys makes objects of one hidden class, ~4x faster to fill than assigning keys in a
    // loop. The keys are the statement's column names, each written as a JSON string literal: code never runs them.
    const fields = answer.columns.map((name, index) => `${JSON.stringify(name)}: values[${index}]`);
    make = new Function('values', `return { ${fields.join(', ')} };`) as (values: unknown[]) => unknown;
    rowMakers.set(shape, make);
  }
  const rows = 'json' in answer ? (JSON.parse(answer.json) as unknown[][]) : answer.rows;
  return rows.map(make) as T[];
}

/**
 * Whether rows hold long strings (a partition's storm state is kilobytes of JSON), judged by their first few: rows of
 * one statement share a shape. Those are cloned to the writer as they are: in JSON every quote in them is escaped
 * here and unescaped there, ~20x what cloning costs (500 rows of 3.7 KB: ~7 ms of this thread and ~2.5 ms of the
 * writer's, against ~0.4 ms and ~0).
 */
export function holdsLongText(rows: readonly (readonly unknown[])[]): boolean {
  for (let r = 0; r < rows.length && r < LONG_TEXT_PROBES; r++) {
    for (const value of rows[r] as readonly unknown[]) {
      if (typeof value === 'string' && value.length > LONG_TEXT) return true;
    }
  }
  return false;
}

const LONG_TEXT_PROBES = 8;
const LONG_TEXT = 512;

type WriterRequest =
  | { op: 'exec'; sql: string }
  | { op: 'begin' | 'rollback' }
  | { op: 'run' | 'all'; sql: string; params: unknown[] }
  // Rows and values travel as JSON: for thousands of small arrays, JSON.stringify and JSON.parse cost a fifth of
  // what structured cloning them does (measured: 20k rows of 12 values, ~15 ms against ~33 ms), and they hold only
  // strings, numbers and nulls, which JSON keeps exactly. Rows holding long strings are cloned (holdsLongText).
  | { op: 'each'; sql: string; rows: string | readonly (readonly unknown[])[] }
  | { op: 'insert'; values: string; blocks: Uint8Array[] }
  | { op: 'close' };

/** A statement of the writer thread failed; `code` is SQLite's (SQLITE_FULL, SQLITE_BUSY, ...), as on SqliteError. */
class WriterError extends Error {
  override readonly name = 'SqliteError';
  readonly code: string | undefined;

  constructor(message: string, code: string | undefined) {
    super(message);
    this.code = code;
  }
}

/** Request/answer messaging with the writer thread; a dead writer fails every pending and later call. */
class WriterThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private failure: Error | null = null;

  constructor(file: string) {
    this.worker = new Worker(WRITER, {
      workerData: { file, insertSql: INSERT_SQL, insertWidth: COLUMNS.length },
      // Everything the writer allocates (a message, its rows) is garbage once answered: an 8 MB young generation
      // holds a message's worth, and keeps the thread's heap at ~20 MB instead of ~50 MB, at no cost in speed.
      resourceLimits: { maxYoungGenerationSizeMb: 8 },
    });
    this.worker.on('message', (message: { id: number; result?: unknown; error?: string; code?: string }) => {
      const waiter = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error !== undefined) waiter?.reject(new WriterError(message.error, message.code));
      else waiter?.resolve(message.result);
    });
    const fail = (error: Error) => {
      this.failure = error;
      for (const waiter of this.pending.values()) waiter.reject(error);
      this.pending.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`the SQLite writer thread exited (${code})`)));
  }

  call<T = unknown>(request: WriterRequest): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ id, ...request });
    });
  }

  async terminate(): Promise<void> {
    await this.worker.terminate();
  }
}
