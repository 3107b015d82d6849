import { fileURLToPath } from 'node:url';
import type { SQL } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { PgDialect } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { EVENT_COLUMNS } from './event-row.ts';
import type { SqlRunner, Store, TxRunner } from './runner.ts';

const MIGRATIONS = fileURLToPath(new URL('./migrations/pg', import.meta.url));

/** Column types of the hot insert's unnest(), in EVENT_COLUMNS order. */
export const PG_ARRAY_TYPES: Record<string, string> = {
  ts: 'bigint',
  http_status: 'integer',
  rpc_code: 'integer',
  latency_ms: 'double precision',
  timeout: 'smallint',
  discovery_read: 'smallint',
  retry_after: 'double precision',
  counted: 'smallint',
  wait_until: 'bigint',
  avoidable: 'smallint',
  body: 'bytea',
};

// One unnest() statement with a fixed number of array parameters inserts any number of rows, so it can stay a
// named prepared statement; a multi-row VALUES list would need a new statement for every batch size.
const INSERT_EVENTS = `INSERT INTO events (${EVENT_COLUMNS.map(([, c]) => c).join(', ')})
  SELECT * FROM unnest(${EVENT_COLUMNS.map(([, c], i) => `$${i + 1}::${PG_ARRAY_TYPES[c] ?? 'text'}[]`).join(', ')})
  ON CONFLICT (event_id) DO NOTHING RETURNING event_id`;

/** The scale-out store: PostgreSQL through a connection pool, chosen by DATABASE_URL. */
export async function openPostgresStore(databaseUrl: string): Promise<Store> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 8 });
  // An idle connection the server drops (restart, failover) must not take the process down; the next query
  // gets a fresh connection or a clear error.
  pool.on('error', (error) => console.error(`PostgreSQL connection lost: ${error.message}`));
  await migrate(drizzle({ client: pool }), { migrationsFolder: MIGRATIONS });
  const url = new URL(databaseUrl);

  return {
    ...runnerOver(pool),
    description: `PostgreSQL ${url.host}${url.pathname}`,
    async transaction<T>(work: (tx: TxRunner) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      const tx = txRunnerOver(client);
      try {
        await client.query('BEGIN');
        const result = await work(tx);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        // Queued statements must not reach the connection after ROLLBACK: they would run outside any transaction.
        await tx.abandon();
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    async close() {
      await pool.end();
    },
  };
}

/**
 * A transaction's runner. One connection runs one query at a time, so calls made without waiting for each other
 * (the ingest path sends its chunks that way) are queued here rather than in the driver, which deprecates it.
 */
function txRunnerOver(client: pg.PoolClient): TxRunner & { abandon(): Promise<void> } {
  let queue: Promise<unknown> = Promise.resolve();
  let failure: unknown = null;
  // After the first failure the transaction is aborted: later statements fail without being sent.
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const run = () => (failure === null ? work() : Promise.reject(failure));
    const result = queue.then(run, run);
    queue = result.catch((error: unknown) => {
      failure ??= error;
    });
    return result;
  };
  const runner = runnerOver(client);
  return {
    dialect: 'postgres',
    all: (query) => inTurn(() => runner.all(query)),
    run: (query) => inTurn(() => runner.run(query)),
    insertEvents: (rows) =>
      inTurn(async () => {
        const columns = EVENT_COLUMNS.map(([field]) => rows.map((row) => row[field]));
        const result = await client.query<{ event_id: string }>({
          name: 'insert_events',
          text: INSERT_EVENTS,
          values: columns,
        });
        return new Set(result.rows.map((row) => row.event_id));
      }),
    async abandon() {
      failure ??= new Error('the transaction was rolled back');
      await queue;
    },
  };
}

const dialect = new PgDialect();
const types = integerTypes();

/**
 * Renders drizzle's `sql` to text and parameters and runs it on the pg client directly, so that every query reads
 * bigint and count(*) results as numbers, as SQLite does.
 */
function runnerOver(db: pg.Pool | pg.PoolClient): SqlRunner {
  const execute = (query: SQL) => {
    const { sql, params } = dialect.sqlToQuery(query);
    return db.query({ text: sql, values: params, types });
  };
  return {
    dialect: 'postgres',
    async all<T>(query: SQL) {
      return (await execute(query)).rows as T[];
    },
    async run(query: SQL) {
      return (await execute(query)).rowCount ?? 0;
    },
  };
}

/** count(*) and bigint columns come back as strings by default; every value we store fits a double exactly. */
function integerTypes(): pg.CustomTypesConfig {
  return {
    getTypeParser(oid, format) {
      if (oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC) return (value: string) => Number(value);
      return pg.types.getTypeParser(oid, format);
    },
  };
}
