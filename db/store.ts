import { openPostgresStore } from './postgres.ts';
import type { Store } from './runner.ts';
import { openSqliteStore } from './sqlite.ts';

export interface StoreConfig {
  /** PostgreSQL connection string; when absent the embedded SQLite store in `dataDir` is used. */
  databaseUrl?: string;
  dataDir: string;
}

/** Opens the configured store and applies its migrations. */
export async function openStore(config: StoreConfig): Promise<Store> {
  return config.databaseUrl ? openPostgresStore(config.databaseUrl) : openSqliteStore(config.dataDir);
}
