/**
 * The yardstick issue 41 holds our ingest against: DuckDB loading the same NDJSON into a table of its own, in this
 * process, on the same machine and in the same run. What an analytic store pays to hold the lines as columns, with
 * none of our work (classification, identities, the gate, the counts): the floor for CPU and bytes per event.
 */
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { withSqlite } from './support.ts';

export interface DuckDbLoad {
  eventsPerSecond: number;
  /** CPU (every thread of this process: DuckDB loads on several) per event. */
  cpuPerEventUs: number;
  /** The database file's bytes per event once the load is checkpointed. */
  bytesPerEvent: number;
}

export async function duckDbLoad(lines: readonly string[]): Promise<DuckDbLoad> {
  // A scratch directory of the bench's own, removed after.
  return withSqlite(async ({ dataDir }) => {
    const ndjson = join(dataDir, 'events.ndjson');
    writeFileSync(ndjson, `${lines.join('\n')}\n`);
    const file = join(dataDir, 'events.duckdb');
    const instance = await DuckDBInstance.create(file);
    const connection = await instance.connect();
    try {
      const cpu = process.cpuUsage();
      const start = performance.now();
      await connection.run(
        `CREATE TABLE events AS SELECT * FROM read_json_auto('${ndjson}', format = 'newline_delimited')`,
      );
      await connection.run('CHECKPOINT');
      const seconds = (performance.now() - start) / 1000;
      const used = process.cpuUsage(cpu);
      return {
        eventsPerSecond: lines.length / seconds,
        cpuPerEventUs: (used.user + used.system) / lines.length,
        bytesPerEvent: statSync(file).size / lines.length,
      };
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });
}
