import { sql } from 'drizzle-orm';
import type { SqlRunner } from '../../db/runner.ts';
import { openStore, type StoreConfig } from '../../db/store.ts';
import { LOCK_WAITS_VIEW } from './stores.ts';

/**
 * A third session of a PostgreSQL database holding rows of `settings` (FOR UPDATE) until released, so that two
 * passes that write them queue behind it and then write in the order they came: how the tests of several servers on
 * one database make a race happen every run. The rows must exist.
 */
export async function holdSettings(config: StoreConfig, keys: readonly string[]) {
  const holder = await openStore(config);
  let release = () => {};
  let locked = () => {};
  const holding = new Promise<void>((resolve) => {
    locked = resolve;
  });
  const held = holder.transaction(async (tx) => {
    for (const key of keys) await tx.all(sql`SELECT value FROM settings WHERE key = ${key} FOR UPDATE`);
    await new Promise<void>((resolve) => {
      release = resolve;
      locked();
    });
  });
  await holding;
  let released: Promise<void> | null = null;
  const end = async () => {
    release();
    await held;
    await holder.close();
  };
  // Once, however often it is asked (a test's body and its `finally`).
  return { release: (): Promise<void> => (released ??= end()) };
}

/** Waits until `sessions` sessions of the database wait for a lock (bounded: a pass that never waits fails). */
export async function untilWaiting(db: SqlRunner, sessions: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const [row] = await db.all<{ n: number | string }>(sql`SELECT count(*) AS n FROM ${sql.raw(LOCK_WAITS_VIEW)}
      WHERE datname = current_database() AND wait_event_type = 'Lock'`);
    if (Number(row?.n) >= sessions) return;
    if (Date.now() > deadline) throw new Error(`${sessions} sessions never waited for a held row`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
