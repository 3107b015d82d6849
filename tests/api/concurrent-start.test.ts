import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../api/server.ts';
import { STORE_KINDS, tempDatabase } from '../support/stores.ts';

/**
 * Servers started together on one fresh PostgreSQL database (issue 39, item 6): each one migrates in turn under an
 * advisory lock, so every one of them starts, the migrations are applied once, and start-up's own writes (the
 * default alert rules) happen once.
 */

const postgres = STORE_KINDS.find((kind) => kind.name === 'postgres');
const SERVERS = 4;
const JOURNAL = JSON.parse(readFileSync(new URL('../../db/migrations/pg/meta/_journal.json', import.meta.url), 'utf8'));

describe.skipIf(postgres?.unavailable !== null)('servers starting at once on a fresh PostgreSQL database', () => {
  const running: RunningServer[] = [];
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await Promise.all(running.map((server) => server.close()));
    await drop?.();
  });

  it(`starts all ${SERVERS}, each migration applied once and the default rules seeded once`, async () => {
    const database = await tempDatabase();
    drop = database.drop;
    const started = await Promise.allSettled(
      Array.from({ length: SERVERS }, () =>
        startServer({ host: '127.0.0.1', port: 0, databaseUrl: database.url, dataDir: tmpdir() }),
      ),
    );
    for (const result of started) if (result.status === 'fulfilled') running.push(result.value);
    expect(started.map((result) => (result.status === 'rejected' ? String(result.reason) : 'started'))).toEqual(
      Array(SERVERS).fill('started'),
    );

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const applied = await client.query('SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations');
      expect(applied.rows[0].n).toBe(JOURNAL.entries.length);
      const rules = await client.query('SELECT count(*)::int AS n FROM alert_rules');
      const perServer = (await (await fetch(`${running[0]?.url}/api/v1/alerts/rules`)).json()).rules.length;
      expect(perServer).toBeGreaterThan(0);
      expect(rules.rows[0].n).toBe(perServer);
    } finally {
      await client.end();
    }
    for (const server of running) expect((await fetch(`${server.url}/api/v1/health`)).status).toBe(200);
  });
});
