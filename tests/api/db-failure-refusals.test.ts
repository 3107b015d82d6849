import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../db/runner.ts';
import { openStore } from '../../db/store.ts';
import { createTestApp, get, postNdjson, type TestApp } from '../support/app.ts';
import { clientEvent } from '../support/events.ts';
import { POSTGRES_ADMIN_URL, STORE_KINDS, tempDatabase } from '../support/stores.ts';

/**
 * Every way PostgreSQL refuses or ends a connection answers 503 store_unavailable with Retry-After, retryable
 * (issue 39, item 5): a shipper that follows our error contract sends the batch again instead of dropping it. Each
 * refusal is provoked for real on the shared server, in a database (and role) of the test's own.
 */

const postgres = STORE_KINDS.find((kind) => kind.name === 'postgres');

async function expectUnavailable(res: Response) {
  const body = await res.json();
  expect({ status: res.status, code: body.error?.code, retryable: body.error?.retryable }).toEqual({
    status: 503,
    code: 'store_unavailable',
    retryable: true,
  });
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
}

async function asAdmin<T>(work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/** Ends every session of `database` but the caller's, and waits until the pool has heard of it. */
async function cutSessions(admin: pg.Client, database: string) {
  await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [database]);
  for (let waited = 0; ; waited += 20) {
    const { rows } = await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [
      database,
    ]);
    if (rows[0].n === 0) break;
    if (waited > 10_000) throw new Error('the store kept its connections');
    await sleep(20);
  }
  await sleep(50);
}

describe.skipIf(postgres?.unavailable !== null)('PostgreSQL refusing connections', () => {
  const role = `lens_limited_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  let name: string;
  let drop: () => Promise<void>;
  let store: Store;
  let app: TestApp;

  beforeAll(async () => {
    const database = await tempDatabase();
    drop = database.drop;
    name = new URL(database.url).pathname.slice(1);
    // A role of its own, owning the database: the limits on connections per role spare superusers.
    await asAdmin(async (admin) => {
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      await admin.query(`ALTER DATABASE ${name} OWNER TO ${role}`);
    });
    const url = new URL(database.url);
    url.username = role;
    store = await openStore({ databaseUrl: url.toString(), dataDir: '' });
    app = createTestApp(store);
    expect((await postNdjson(app, [clientEvent()])).status).toBe(200);
  });

  afterAll(async () => {
    await store?.close();
    await drop?.();
    await asAdmin((admin) => admin.query(`DROP ROLE IF EXISTS ${role}`));
  });

  it('answers 503 while the database accepts no connections (FATAL 55000), and works once it does', async () => {
    await asAdmin(async (admin) => {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      await cutSessions(admin, name);
    });
    try {
      await expectUnavailable(await get(app, '/api/v1/summary'));
      await expectUnavailable(await postNdjson(app, [clientEvent()]));
    } finally {
      await asAdmin((admin) => admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`));
    }
    expect((await get(app, '/api/v1/summary')).status).toBe(200);
  });

  it('answers 503 while the role is past its connection limit (FATAL 53300)', async () => {
    await asAdmin(async (admin) => {
      await admin.query(`ALTER ROLE ${role} CONNECTION LIMIT 0`);
      await cutSessions(admin, name);
    });
    try {
      await expectUnavailable(await get(app, '/api/v1/summary'));
    } finally {
      await asAdmin((admin) => admin.query(`ALTER ROLE ${role} CONNECTION LIMIT -1`));
    }
    expect((await get(app, '/api/v1/summary')).status).toBe(200);
  });

  it('answers 503 when an operator ends the session a batch is waiting on (FATAL 57P01)', async () => {
    const blocker = new pg.Client({ connectionString: POSTGRES_ADMIN_URL.replace(/\/[^/]*$/, `/${name}`) });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE event_bodies IN EXCLUSIVE MODE');
      const pending = postNdjson(app, [clientEvent()]);
      for (let waited = 0; ; waited += 20) {
        const { rows } = await blocker.query(
          "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
        );
        if (rows.length > 0) {
          await blocker.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
          break;
        }
        if (waited > 10_000) throw new Error('the ingest transaction never reached the lock');
        await sleep(20);
      }
      await expectUnavailable(await pending);
    } finally {
      await blocker.end();
    }
    expect((await postNdjson(app, [clientEvent()])).status).toBe(200);
  });
});
