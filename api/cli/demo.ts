import { parseArgs } from 'node:util';
import { openStore } from '../../db/store.ts';
import { loadDemo } from '../demo/load.ts';
import { CliError } from './cli-error.ts';

/** Loads the generated demo federation into the configured store (a day of traffic ending now). */
export async function demoCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { 'data-dir': { type: 'string', default: process.env.DATA_DIR ?? './data' } },
  });
  const store = await openStore({ dataDir: values['data-dir'], databaseUrl: process.env.DATABASE_URL || undefined });
  try {
    const report = await loadDemo(store, Date.now());
    if (report.rejectedTotal > 0)
      throw new CliError(`the demo generator produced ${report.rejectedTotal} invalid events`);
    process.stdout.write(
      `demo loaded into ${store.description}: ${report.accepted} events (${report.duplicates} already there), ` +
        `${report.servers} servers with discovery documents\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}
