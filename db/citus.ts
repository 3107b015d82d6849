import { sql } from 'drizzle-orm';
import pg from 'pg';
import { NOT_BY_SERVER } from './distribution.ts';
import type { Store } from './runner.ts';
import { openStore } from './store.ts';

/**
 * `lens citus-setup` (docs/adr/0014-distribution-by-server.md): the Citus calls that place each table of a migrated
 * store as db/distribution.ts says, run on the coordinator after the migrations.
 */

/** One Citus call for one table. */
export interface CitusCall {
  table: string;
  /** The call, as run: its arguments are the table and column names of our own schema, never input. */
  statement: string;
}

/**
 * The calls, in the order they can run: reference tables first (nothing references them, but they are the cheapest
 * to place), `events` before the tables co-located with it, the tables distributed by another column, and the
 * coordinator-local tables last. `tables` are the store's tables (not partitions: a partition follows its parent),
 * `placed` those Citus already holds, left alone so that the setup can run again.
 */
export function citusPlan(tables: readonly string[], placed: ReadonlySet<string>): CitusCall[] {
  const order = { reference: 0, events: 1, server: 2, distributed: 3, coordinator: 4 } as const;
  const calls = tables
    .filter((table) => !placed.has(table))
    .map((table) => {
      const placement = NOT_BY_SERVER[table];
      if (placement === undefined) {
        return table === 'events'
          ? { rank: order.events, table, statement: `SELECT create_distributed_table('events', 'server')` }
          : {
              rank: order.server,
              table,
              statement: `SELECT create_distributed_table('${table}', 'server', colocate_with => 'events')`,
            };
      }
      if (placement.as === 'reference')
        return { rank: order.reference, table, statement: `SELECT create_reference_table('${table}')` };
      if (placement.as === 'coordinator')
        return { rank: order.coordinator, table, statement: `SELECT citus_add_local_table_to_metadata('${table}')` };
      return {
        rank: order.distributed,
        table,
        statement: `SELECT create_distributed_table('${table}', '${placement.by}')`,
      };
    });
  return calls
    .sort((a, b) => a.rank - b.rank || a.table.localeCompare(b.table))
    .map(({ table, statement }) => ({ table, statement }));
}

/** What the store is, for the setup to refuse a store that is not a Citus coordinator, saying why. */
export async function citusProblem(store: Store): Promise<string | null> {
  if (store.dialect !== 'postgres') return 'the store is SQLite: Citus is a PostgreSQL extension (set DATABASE_URL)';
  const [extension] = await store.all<{ version: string }>(
    sql`SELECT extversion AS version FROM pg_extension WHERE extname = 'citus'`,
  );
  if (extension === undefined)
    return 'the database is not a Citus coordinator: it has no citus extension (CREATE EXTENSION citus on it and on every worker, then citus_add_node)';
  return null;
}

/** The store's own tables, partitioned parents included and partitions left out. */
export async function storeTables(store: Store): Promise<string[]> {
  const rows = await store.all<{ table: string }>(sql`
    SELECT c.relname AS "table" FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY c.relname`);
  return rows.map((row) => row.table);
}

/** The tables Citus already places (distributed, reference or coordinator-local). */
export async function placedTables(store: Store): Promise<Set<string>> {
  const rows = await store.all<{ table: string }>(sql`
    SELECT c.relname AS "table" FROM pg_dist_partition AS p JOIN pg_class AS c ON c.oid = p.logicalrelid
    JOIN pg_namespace AS n ON n.oid = c.relnamespace WHERE n.nspname = 'public'`);
  return new Set(rows.map((row) => row.table));
}

/**
 * Held on the coordinator's admin database while `citusDatabase` makes a database and adds the nodes to it (an
 * arbitrary constant). Adding a worker writes rows of the worker's catalogs that all its databases share, so two
 * setups at once (two test stores opened together) failed on the worker with "tuple concurrently updated".
 */
const SETUP_LOCK = '7365201747';

/**
 * A new database of this name on every node of a Citus cluster, given each node's admin URL (the coordinator's
 * first), with the citus extension, the coordinator and workers in its metadata: what a test or bench run makes
 * before migrating and placing (`lens citus-setup`). Answers its URL on the coordinator and how to drop it
 * everywhere. The names are the caller's own constants, never input.
 */
export async function citusDatabase(
  name: string,
  coordinatorAdminUrl: string,
  workerAdminUrls: readonly string[],
): Promise<{ url: string; drop: () => Promise<void> }> {
  const nodes = [coordinatorAdminUrl, ...workerAdminUrls];
  const inDatabase = (url: string) => Object.assign(new URL(url), { pathname: `/${name}` }).toString();
  const hostAndPort = (url: string) => {
    const { hostname, port } = new URL(url);
    return `'${hostname}', ${Number(port || 5432)}`;
  };
  const setup = new pg.Client({ connectionString: coordinatorAdminUrl });
  await setup.connect();
  try {
    await setup.query('SELECT pg_advisory_lock($1::bigint)', [SETUP_LOCK]);
    for (const node of nodes) {
      await runOn(node, `CREATE DATABASE ${name}`);
      await runOn(inDatabase(node), 'CREATE EXTENSION citus');
    }
    await runOn(
      inDatabase(coordinatorAdminUrl),
      `SELECT citus_set_coordinator_host(${hostAndPort(coordinatorAdminUrl)})`,
    );
    for (const worker of workerAdminUrls)
      await runOn(inDatabase(coordinatorAdminUrl), `SELECT citus_add_node(${hostAndPort(worker)})`);
  } finally {
    // Its session lock goes with it.
    await setup.end();
  }
  return {
    url: inDatabase(coordinatorAdminUrl),
    drop: async () => {
      for (const node of nodes) await runOn(node, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** Migrates the store at `url` (opening it does) and places its tables: `lens citus-setup` without its report. */
export async function placeOnCitus(url: string): Promise<number> {
  const store = await openStore({ databaseUrl: url, dataDir: '.' });
  try {
    const calls = citusPlan(await storeTables(store), await placedTables(store));
    for (const call of calls) await store.all(sql.raw(call.statement));
    return calls.length;
  } finally {
    await store.close();
  }
}

async function runOn(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
