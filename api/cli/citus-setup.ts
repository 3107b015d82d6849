import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { citusPlan, citusProblem, placedTables, storeTables } from '../../db/citus.ts';
import { openStore } from '../../db/store.ts';
import { CliError } from './cli-error.ts';

/**
 * Places each table of the store on a Citus cluster as db/distribution.ts says (ADR 14): run on the coordinator, at
 * DATABASE_URL, after the migrations (opening the store runs them). A table Citus already places is left alone, so
 * running it again does nothing; a database without Citus is refused before anything is changed.
 */
export async function citusSetupCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { 'dry-run': { type: 'boolean' } } });
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new CliError('DATABASE_URL is not set: citus-setup runs on the Citus coordinator');
  const store = await openStore({ databaseUrl, dataDir: '.' });
  try {
    const problem = await citusProblem(store);
    if (problem !== null) throw new CliError(`${store.description}: ${problem}`);
    const calls = citusPlan(await storeTables(store), await placedTables(store));
    for (const call of calls) {
      process.stdout.write(`${call.statement}\n`);
      if (!values['dry-run']) await store.all(sql.raw(call.statement));
    }
    const done = values['dry-run'] ? 'would place' : 'placed';
    process.stdout.write(`citus-setup: ${done} ${calls.length} tables in ${store.description}\n`);
    return 0;
  } finally {
    await store.close();
  }
}
