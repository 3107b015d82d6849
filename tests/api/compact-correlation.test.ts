import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { addMigrationFunctions } from '../../db/sqlite.ts';
import { storedCorrelation } from '../../shared/correlation-key.ts';
import { correlationOf } from '../../shared/frames.ts';
import { createTestApp, postNdjson } from '../support/app.ts';
import { clientEvent, proxyEvent } from '../support/events.ts';
import { replayMigration } from '../support/migrations.ts';
import { STORE_KINDS, skipOnCitus, type TestStore } from '../support/stores.ts';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/** The client's record, its request carrying the traceparent the proxy also logged. */
function tracedClient() {
  return clientEvent({
    id: 'client-1',
    session: 'session-1',
    request: {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'a', _meta: { traceparent: TRACEPARENT } },
    },
  });
}

async function storedKeys(db: TestStore): Promise<(string | null)[]> {
  const rows = await db.store.all<{ correlation: string | null }>(
    sql`SELECT correlation FROM events ORDER BY event_id`,
  );
  return rows.map((row) => row.correlation);
}

describe('join keys stored compact', () => {
  it('keep their kind, take 16 characters of digest, and tell keys apart', () => {
    const trace = storedCorrelation(`tp:${TRACEPARENT}`);
    expect(trace).toMatch(/^tp:[A-Za-z0-9_-]{16}$/);
    expect(storedCorrelation('rpc:["s","session",1]')).toMatch(/^rpc:[A-Za-z0-9_-]{16}$/);
    expect(storedCorrelation('rpc:["s","session",2]')).not.toBe(storedCorrelation('rpc:["s","session",1]'));
    expect(storedCorrelation(`tp:${TRACEPARENT}`)).toBe(trace);
    expect(storedCorrelation(null)).toBeNull();
  });
});

describe.each(STORE_KINDS)('a store from before compact join keys, on $name', (kind) => {
  it.skipIf(kind.unavailable !== null)(
    'rewrites the keys it holds to the compact form, so a record arriving after the upgrade still joins',
    async ({ skip }) => {
      skipOnCitus(
        skip,
        kind,
        'replays migration compact_correlation on a placed store, which no Citus store goes through (lens citus-setup places a store after its migrations): its UPDATE of events calls a STABLE function with column references, which Citus refuses in a distributed UPDATE',
      );
      const db = await kind.open();
      try {
        const longKey = correlationOf(tracedClient() as never);
        expect(longKey).toBe(`tp:${TRACEPARENT}`);
        await postNdjson(createTestApp(db.store), [tracedClient()]);
        expect(await storedKeys(db)).toEqual([storedCorrelation(longKey)]);

        // As a store written before the upgrade holds it, then the migration as it runs on that store.
        await db.store.run(sql`UPDATE events SET correlation = ${longKey}`);
        if (kind.name === 'postgres') await replayMigration(db.store, 'postgres', 'compact_correlation', () => true);
        else replaySqliteMigration(db);
        expect(await storedKeys(db)).toEqual([storedCorrelation(longKey)]);

        // The proxy's line of the same request, shipped after the upgrade, joins the client's record by the key.
        const proxy = proxyEvent({
          id: 'proxy-1',
          http: { method: 'POST', path: '/mcp', status: 200, traceparent: TRACEPARENT },
        });
        await postNdjson(createTestApp(db.store), [proxy]);
        const joined = await db.store.all<{ eventId: string; partner: string | null; counted: number }>(
          sql`SELECT event_id AS "eventId", partner, counted FROM events ORDER BY event_id`,
        );
        expect(joined).toEqual([
          { eventId: 'client-1', partner: 'proxy-1', counted: 1 },
          { eventId: 'proxy-1', partner: 'client-1', counted: 0 },
        ]);
      } finally {
        await db.dispose();
      }
    },
  );
});

/**
 * The migration's statement on the store's file through a connection of its own, with the function db/sqlite.ts gives
 * the migrating connection (the store's writer has none: it never migrates). WAL lets it write beside the store.
 */
function replaySqliteMigration(db: TestStore): void {
  const file = new Database(join(db.config.dataDir, 'lens.sqlite'));
  try {
    addMigrationFunctions(file);
    file.exec(
      readFileSync(new URL('../../db/migrations/sqlite/0029_compact_correlation.sql', import.meta.url), 'utf8'),
    );
  } finally {
    file.close();
  }
}
