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

/** Sets a key, whatever it held. */
export async function putSetting(db: SqlRunner, key: string, value: string): Promise<void> {
  await db.run(sql`INSERT INTO settings (key, value) VALUES (${key}, ${value})
    ON CONFLICT (key) DO UPDATE SET value = excluded.value`);
}
