import { parseArgs } from 'node:util';
import { openStore } from '../../db/store.ts';
import { loadDemo } from '../demo/load.ts';
import { CliError } from './cli-error.ts';
import { dataDirOf } from './data-dir.ts';

/**
 * Loads the generated demo federation (a day of traffic ending now) into its own data directory, ./data-demo unless
 * `--data-dir` names another (or into PostgreSQL when DATABASE_URL is set): never into your own ./data unasked.
 */
export async function demoCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { 'data-dir': { type: 'string' } } });
  const dataDir = dataDirOf(values['data-dir'], true);
  const store = await openStore({ dataDir, databaseUrl: process.env.DATABASE_URL || undefined });
  try {
    const report = await loadDemo(store, Date.now());
    if (report.rejectedTotal > 0)
      throw new CliError(`the demo generator produced ${report.rejectedTotal} invalid events`);
    const serveIt = process.env.DATABASE_URL ? '' : `; serve it with npm run lens -- serve --data-dir ${dataDir}`;
    process.stdout.write(
      `demo loaded into ${store.description}: ${report.accepted} events (${report.duplicates} already there), ` +
        `${report.servers} servers with discovery documents${serveIt}\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}
