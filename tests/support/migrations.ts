import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import type { Store } from '../../db/runner.ts';

/**
 * Runs again the statements of the migration named `name` (`all_time_totals`), or whose file starts with it (`0012_`,
 * for the early migrations that drizzle-kit named at random), that `keep` selects (by default those holding `verb`:
 * the ones that rebuild counts from the stored events), or all of them.
 */
export async function replayMigration(
  store: Store,
  dialect: string,
  name: string,
  keep: string | ((statement: string) => boolean) = '',
): Promise<void> {
  const folder = fileURLToPath(
    new URL(`../../db/migrations/${dialect === 'sqlite' ? 'sqlite' : 'pg'}/`, import.meta.url),
  );
  const migration = readdirSync(folder).find((file) => file.startsWith(name) || file.endsWith(`_${name}.sql`)) ?? '';
  const statements = readFileSync(join(folder, migration), 'utf8').split('--> statement-breakpoint');
  const kept = statements.filter(typeof keep === 'string' ? (text) => text.includes(keep) : keep);
  expect(kept.length).toBeGreaterThan(0);
  for (const statement of kept) await store.run(sql.raw(statement));
}
