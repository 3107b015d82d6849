import { sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';

/** Store-wide facts kept once: the default alert rules were seeded, the storms of older events were built. */
export async function getSetting(db: SqlRunner, key: string): Promise<string | null> {
  const rows = await db.all<{ value: string }>(sql`SELECT value FROM settings WHERE key = ${key}`);
  return rows[0]?.value ?? null;
}

/** Sets a key once; answers whether this call set it (false: it was already there). */
export async function setSettingOnce(db: SqlRunner, key: string, value: string): Promise<boolean> {
  const changed = await db.run(sql`INSERT INTO settings (key, value) VALUES (${key}, ${value})
    ON CONFLICT (key) DO NOTHING`);
  return changed > 0;
}

/**
 * Moves a key holding an epoch-ms horizon up to `value`, never back, and answers where it now is. One statement, not a
 * read and a write: two servers on one database recording 10:00 and 11:00 at once must leave 11:00, or reads would
 * take what is gone before it from rows (PostgreSQL's upsert waits for the other's row and compares with it).
 */
export async function raiseSetting(db: SqlRunner, key: string, value: number): Promise<number> {
  const [row] = await db.all<{ value: string }>(sql`INSERT INTO settings (key, value) VALUES (${key}, ${String(value)})
    ON CONFLICT (key) DO UPDATE SET value = CASE
      WHEN CAST(settings.value AS bigint) < CAST(excluded.value AS bigint) THEN excluded.value ELSE settings.value END
    RETURNING value`);
  return Number(row?.value ?? value);
}

/** Sets a key, whatever it held. */
export async function putSetting(db: SqlRunner, key: string, value: string): Promise<void> {
  await db.run(sql`INSERT INTO settings (key, value) VALUES (${key}, ${value})
    ON CONFLICT (key) DO UPDATE SET value = excluded.value`);
}
