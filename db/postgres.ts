import { fileURLToPath } from 'node:url';
import type { SQL } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { PgDialect } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { dayBlockId } from './event-days.ts';
import { EVENT_COLUMNS, putEventValues, storedKey } from './event-row.ts';
import type { SqlRunner, Store, TxRunner } from './runner.ts';

const MIGRATIONS = fileURLToPath(new URL('./migrations/pg', import.meta.url));

/** Column types of the hot insert's unnest(), where not text. */
const PG_ARRAY_TYPES: Record<string, string> = {
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
  body_block: 'bigint',
  body_line: 'smallint',
  act_profile: 'integer',
  frames: 'smallint',
  continuation: 'smallint',
};

// One unnest() statement with a fixed number of array parameters inserts any number of rows, so it can stay a
// named prepared statement; a multi-row VALUES list would need a new statement for every batch size.
const COLUMNS = [...EVENT_COLUMNS.map(([, column]) => column), 'identity', 'body_block', 'body_line'];
// The identity's digest comes as hex, as on SQLite, and is stored as its bytes.
const PICKS = COLUMNS.map((column) => (column === 'identity' ? `decode(${column}, 'hex')` : column));
const ARRAYS = COLUMNS.map((c, i) => `$${i + 1}::${PG_ARRAY_TYPES[c] ?? 'text'}[]`);
const INSERT_EVENTS = `INSERT INTO events (${COLUMNS.join(', ')})
  SELECT ${PICKS.join(', ')} FROM unnest(${ARRAYS.join(', ')}) AS batch(${COLUMNS.join(', ')})
  ON CONFLICT (event_id, ts, server) DO NOTHING RETURNING event_id, ts, server, seq`;

const BLOCK_IDS = `SELECT nextval(pg_get_serial_sequence('event_bodies', 'id')) AS id FROM generate_series(1, $1::integer)`;
const INSERT_BLOCKS = 'INSERT INTO event_bodies (id, data) SELECT * FROM unnest($1::bigint[], $2::bytea[])';
const DROP_BLOCKS = 'DELETE FROM event_bodies WHERE id = ANY($1::bigint[])';

/**
 * The session lock every server takes to migrate (an arbitrary constant, ours alone on a database). Drizzle's migrator
 * checks what is applied, then applies the rest, which two servers starting together on a fresh database both do:
 * one loses on the `CREATE TABLE` (or the migrations schema) and exits. With the lock they migrate in turn, and the
 * later ones find nothing left to apply.
 */
const MIGRATION_LOCK = '7365201746';

async function migrateExclusively(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  let failed: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK]);
    try {
      await migrate(drizzle({ client }), { migrationsFolder: MIGRATIONS });
    } finally {
      await client.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK]);
    }
  } catch (error) {
    failed = error as Error;
    throw error;
  } finally {
    // A connection that failed here may still hold the lock (or be broken): it is closed, never pooled.
    client.release(failed);
  }
}

/** The scale-out store: PostgreSQL through a connection pool, chosen by DATABASE_URL. */
export async function openPostgresStore(databaseUrl: string): Promise<Store> {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 8,
    // A server that does not answer at all (a dropped route, a failover in progress) costs a request a retryable
    // error after this long, not a hang; so does waiting this long for a free connection of the pool.
    connectionTimeoutMillis: 15_000,
    // Finds a connection whose server vanished without a word even while no query runs on it.
    keepAlive: true,
  });
  // An idle connection the server drops (restart, failover) must not take the process down; the pool discards it
  // and the next query gets a fresh connection or a clear error.
  pool.on('error', (error) => console.error(`PostgreSQL connection lost: ${error.message}`));
  await migrateExclusively(pool);
  const url = new URL(databaseUrl);

  return {
    ...runnerOver(pool),
    description: `PostgreSQL ${url.host}${url.pathname}`,
    async transaction<T>(work: (tx: TxRunner) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      const tx = txRunnerOver(client);
      // A checked-out connection has no listener of the pool's: without this one, the server dropping it (a
      // restart, a failover, an idle-in-transaction timeout) would be an unhandled 'error' event, which ends the
      // process. Its statements fail with the error instead, and the connection is not given back to the pool.
      let lost: Error | null = null;
      const onLost = (error: Error) => {
        lost ??= error;
        tx.lose(error);
      };
      client.on('error', onLost);
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const result = await work(tx);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        // Queued statements must not reach the connection after ROLLBACK: they would run outside any transaction.
        await tx.abandon();
        await client.query('ROLLBACK').catch((rollbackError: Error) => {
          // A connection whose transaction could not be rolled back is not fit for the next one.
          broken = rollbackError;
        });
        throw lost ?? error;
      } finally {
        client.removeListener('error', onLost);
        client.release(lost ?? broken);
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
function txRunnerOver(client: pg.PoolClient): TxRunner & { abandon(): Promise<void>; lose(error: Error): void } {
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
    insertEvents: ({ rows, blocks, blockOf, lineOf, blockDays, digests }) =>
      inTurn(async () => {
        // The blocks' ids are drawn first, so that the one insert of the rows can point each at its block. Each
        // falls in its day's range of ids, the partition of event_bodies its day's events go with.
        const drawn = await client.query<{ id: string }>({
          name: 'block_ids',
          text: BLOCK_IDS,
          values: [blocks.length],
        });
        const ids = drawn.rows.map((row, block) => dayBlockId(blockDays[block] as number, Number(row.id)));
        await client.query({ name: 'insert_blocks', text: INSERT_BLOCKS, values: [ids, blocks] });
        const idOf = (index: number) => ids[blockOf[index] as number];
        const fields = EVENT_COLUMNS.map(() => new Array<unknown>(rows.length));
        const values = new Array<unknown>(EVENT_COLUMNS.length);
        rows.forEach((row, index) => {
          putEventValues(row, values, 0);
          values.forEach((value, field) => {
            (fields[field] as unknown[])[index] = value;
          });
        });
        const columns = [...fields, digests, rows.map((_, index) => idOf(index)), lineOf];
        const result = await client.query<{ event_id: string; ts: string; server: string; seq: string | number }>({
          name: 'insert_events',
          text: INSERT_EVENTS,
          values: columns,
        });
        const fresh = new Map(
          result.rows.map((row) => [
            storedKey({ eventId: row.event_id, ts: Number(row.ts), server: row.server }),
            Number(row.seq),
          ]),
        );
        // RETURNING answers the new rows in no promised order: each goes to the first row of its key, a later copy
        // of it in the same rows gets 0.
        const seqs = rows.map((row) => {
          const key = storedKey(row);
          const seq = fresh.get(key) ?? 0;
          fresh.delete(key);
          return seq;
        });
        // A block whose rows were all duplicates (a batch sent again) holds nothing anyone will read.
        const used = new Set(rows.flatMap((_, index) => ((seqs[index] as number) > 0 ? [idOf(index)] : [])));
        const unused = ids.filter((id) => !used.has(id));
        if (unused.length > 0) await client.query({ name: 'drop_blocks', text: DROP_BLOCKS, values: [unused] });
        return seqs;
      }),
    async abandon() {
      failure ??= new Error('the transaction was rolled back');
      await queue;
    },
    /** The connection is gone: statements not yet sent fail with why. */
    lose(error) {
      failure ??= error;
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
