import { type SQL, sql } from 'drizzle-orm';
import type { SqlRunner, Store } from '../../db/runner.ts';

/** The plans SQLite would run `read`'s queries with; `read` itself sees no rows. */
export async function queryPlan(
  store: Store,
  read: (db: SqlRunner) => Promise<unknown>,
): Promise<{ detail: string }[]> {
  const plans: { detail: string }[] = [];
  await read({
    dialect: 'sqlite',
    all: async <T>(query: SQL) => {
      plans.push(...(await store.all<{ detail: string }>(sql`EXPLAIN QUERY PLAN ${query}`)));
      return [] as T[];
    },
    run: () => Promise.reject(new Error('reads only')),
  });
  return plans;
}
