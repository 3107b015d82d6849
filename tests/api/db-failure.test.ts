import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyDbError } from '../../db/errors.ts';
import type { Store } from '../../db/runner.ts';
import { openStore } from '../../db/store.ts';
import { createTestApp, get, postNdjson, type TestApp } from '../support/app.ts';
import { clientEvent } from '../support/events.ts';
import { createPgCluster, type PgCluster, pgClusterUnavailable } from '../support/pg-cluster.ts';

/** Errors nobody handled while the suite ran: a lost connection must never become one of these. */
const unhandled: unknown[] = [];
const record = (error: unknown) => unhandled.push(error);

function batch(size: number) {
  return Array.from({ length: size }, () => clientEvent());
}

async function storedIds(app: TestApp): Promise<string[]> {
  const res = await get(app, '/api/v1/events?limit=1000');
  expect(res.status).toBe(200);
  return ((await res.json()).events as { id: string }[]).map((e) => e.id);
}

async function expectUnavailable(res: Response) {
  expect(res.status).toBe(503);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(0);
  expect(await res.json()).toEqual({
    error: {
      code: 'store_unavailable',
      message: expect.stringContaining('database'),
      fix: expect.any(String),
      retryable: true,
      retryAfterSeconds: retryAfter,
    },
  });
}

describe.skipIf(pgClusterUnavailable !== null)('PostgreSQL going away', () => {
  let cluster: PgCluster;
  let store: Store;
  let app: TestApp;

  beforeAll(async () => {
    process.on('uncaughtException', record);
    process.on('unhandledRejection', record);
    cluster = await createPgCluster();
    store = await openStore({ databaseUrl: cluster.url, dataDir: '' });
    app = createTestApp(store);
  });

  afterAll(async () => {
    process.off('uncaughtException', record);
    process.off('unhandledRejection', record);
    await store?.close();
    await cluster?.destroy();
  });

  it('costs a 503 with Retry-After while it is down, and nothing acknowledged, then works again', async () => {
    const first = batch(200);
    const ok = await postNdjson(app, first);
    expect(ok.status).toBe(200);
    expect((await ok.json()).accepted).toBe(200);

    // Hold the ingest transaction inside the database: another session locks the table of the event lines, which
    // only the transaction writes (after its first statements), so the batch waits there, on its checked-out
    // connection, when the server dies.
    const blocker = new pg.Client({ connectionString: cluster.url });
    blocker.on('error', () => undefined);
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE event_bodies IN EXCLUSIVE MODE');
    const second = batch(200);
    const pending = postNdjson(app, second);
    for (let waited = 0; ; waited += 20) {
      const { rows } = await blocker.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
      );
      if (rows[0].n > 0) break;
      if (waited > 10_000) throw new Error('the ingest transaction never reached the lock');
      await sleep(20);
    }
    await cluster.stop('immediate');
    await blocker.end().catch(() => undefined);

    const cut = await pending;
    expect(unhandled).toEqual([]);
    await expectUnavailable(cut);
    // While it is down: refused connections, for writes and for reads alike.
    await expectUnavailable(await postNdjson(app, second));
    await expectUnavailable(await get(app, '/api/v1/summary'));

    await cluster.start();
    const restarted = performance.now();
    const again = await postNdjson(app, second);
    const reconnectMs = performance.now() - restarted;
    expect(again.status).toBe(200);
    expect((await again.json()).accepted).toBe(200);
    console.info(`PostgreSQL failure suite: first ingest after restart answered in ${reconnectMs.toFixed(0)} ms`);

    const summary = await get(app, '/api/v1/summary');
    expect(summary.status).toBe(200);
    expect((await summary.json()).overall.total).toBe(400);
    const ids = await storedIds(app);
    expect(ids.length).toBe(400);
    expect(new Set(ids)).toEqual(new Set([...first, ...second].map((e) => e.id as string)));
    expect(unhandled).toEqual([]);
  });

  it('cuts a transaction idle on its connection without taking the process down', async () => {
    const lost = store.transaction(async (tx) => {
      await tx.run(sql`INSERT INTO servers (name, overrides, updated_at) VALUES ('idle-tx', '[]', 0)`);
      // The connection sits idle in the transaction while the server dies under it.
      await cluster.stop('immediate');
      await sleep(200);
      return tx.run(sql`SELECT 1`);
    });
    const error = await lost.then(
      () => null,
      (e: unknown) => e,
    );
    expect(classifyDbError(error)).toBe('unavailable');
    await cluster.start();
    const ok = await postNdjson(app, batch(10));
    expect(ok.status).toBe(200);
    const servers = await store.all<{ n: number }>(sql`SELECT count(*) AS n FROM servers WHERE name = 'idle-tx'`);
    expect(servers[0]?.n).toBe(0);
    expect(unhandled).toEqual([]);
  });

  it('answers 503 store_read_only while the database takes no writes, and writes again once it does', async () => {
    const admin = new pg.Client({ connectionString: cluster.url });
    admin.on('error', () => undefined);
    await admin.connect();
    // A setting of the database reaches new sessions only: the store's are cut, and it opens new ones.
    const reconnectStore = async () => {
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database()',
      );
      for (let waited = 0; ; waited += 20) {
        const { rows } = await admin.query(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database()',
        );
        if (rows[0].n === 0) break;
        if (waited > 10_000) throw new Error('the store kept its connections');
        await sleep(20);
      }
      await sleep(50); // the pool hears of the ends
    };
    try {
      const before = (await storedIds(app)).length;
      await admin.query('ALTER DATABASE postgres SET default_transaction_read_only = on');
      await reconnectStore();
      const refused = await postNdjson(app, batch(20));
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('60');
      expect((await refused.json()).error).toMatchObject({
        code: 'store_read_only',
        message: expect.stringContaining('read-only'),
        retryable: true,
        retryAfterSeconds: 60,
      });
      expect((await storedIds(app)).length).toBe(before);

      await admin.query('ALTER DATABASE postgres RESET default_transaction_read_only');
      await reconnectStore();
      const ok = await postNdjson(app, batch(20));
      expect(ok.status).toBe(200);
      expect((await storedIds(app)).length).toBe(before + 20);
    } finally {
      await admin.end();
    }
    expect(unhandled).toEqual([]);
  });
});
