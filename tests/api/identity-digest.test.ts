import { type SQL, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { backfillRequestFacts } from '../../api/services/request-facts.ts';
import type { SqlRunner } from '../../db/runner.ts';
import { identityText } from '../../db/stored-identity.ts';
import { requestIdentity } from '../../shared/identity.ts';
import { createTestApp, get, postNdjson, TEST_NOW, type TestApp } from '../support/app.ts';
import { readCatalog } from '../support/catalog.ts';
import { clientEvent } from '../support/events.ts';
import { asBeforeDenialAudit, catalogBefore } from '../support/migrations.ts';
import { STORE_KINDS, skipOnCitus, type TestStore } from '../support/stores.ts';

// The store keeps an identity as the row's server and 16 bytes of digest (ADR 11); the API shows and takes
// `server:` + 32 hex, whatever the server's name holds.

/** Servers whose names hold colons (the digest is what follows the last) and Unicode. */
const UNICODE = 'сервер 服务 🚀';
const SERVERS = ['a', 'a:b', 'tcp://10.0.0.1:8080', UNICODE];
const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
const POLL = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'poll', arguments: { q: 'ü' } } };
const T0 = TEST_NOW - 150 * 60_000;
const RANGE = `from=${TEST_NOW - 3 * 3_600_000}&to=${TEST_NOW}`;

/**
 * Over two and a half hours: a `tools/list` without params to every server (one digest on all of them), the i-th
 * server's sent i + 2 times; and a poll of `a:b` sent 41 times in 7 minutes, over the re-presentation alarm.
 */
function traffic(): Record<string, unknown>[] {
  const events = SERVERS.flatMap((server, i) =>
    Array.from({ length: i + 2 }, (_, k) => clientEvent({ server, ts: T0 + k * 30 * 60_000 + i, request: LIST })),
  );
  for (let k = 0; k < 41; k++)
    events.push(clientEvent({ server: 'a:b', ts: T0 + 5 * 60_000 + k * 10_000, request: POLL }));
  return events;
}

const listOf = (server: string) => requestIdentity(server, LIST) as string;
const POLLED = requestIdentity('a:b', POLL) as string;

async function read(app: TestApp, path: string, status = 200) {
  const res = await get(app, path);
  expect(res.status, path).toBe(status);
  return res.json();
}

describe.each(STORE_KINDS)('identities kept as digests, on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeAll(async () => {
      db = await kind.open();
      app = createTestApp(db.store);
      await postNdjson(app, traffic());
    });
    afterAll(async () => db?.dispose());

    it("name each identity by its own server, though its digest is every server's", async () => {
      const { identities } = await read(app, `/api/v1/identities?${RANGE}&limit=50`);
      const sends = Object.fromEntries(
        identities.map((view: { identity: string; sends: number }) => [view.identity, view.sends]),
      );
      expect(sends).toEqual({
        [POLLED]: 41,
        ...Object.fromEntries(SERVERS.map((server, i) => [listOf(server), i + 2])),
      });
      for (const view of identities) {
        const one = await read(app, `/api/v1/identities/${encodeURIComponent(view.identity)}?${RANGE}`);
        expect(one).toEqual(view);
        expect(`${one.server}:`).toBe(one.identity.slice(0, -32));
      }
      const alarmed = await read(app, `/api/v1/identities?${RANGE}&only=alarmed`);
      expect(alarmed.identities.map((view: { identity: string }) => view.identity)).toEqual([POLLED]);
      const { events } = await read(app, '/api/v1/events?limit=1000');
      for (const event of events) {
        expect(event.identity).toBe(requestIdentity(event.server, event.method === 'tools/list' ? LIST : POLL));
      }
    });

    it("list a server's identities only, not those of a server whose name starts with its own", async () => {
      for (const [server, expected] of [
        ['a', [listOf('a')]],
        ['a:b', [POLLED, listOf('a:b')]],
        [UNICODE, [listOf(UNICODE)]],
      ] as const) {
        const list = await read(app, `/api/v1/identities?${RANGE}&server=${encodeURIComponent(server)}`);
        expect(list.identities.map((view: { identity: string }) => view.identity)).toEqual(expected);
      }
    });

    it('find no identity for a string that is none, or one of a server that never sent it', async () => {
      const digest = listOf('a').slice(-32);
      for (const text of [
        'a',
        digest,
        `a:${digest.toUpperCase()}`,
        `a:${digest.slice(1)}`,
        `a:${digest}0`,
        `zz:${digest}`,
        `a' OR '1'='1:${digest}`,
        `a:b:${'0'.repeat(32)}`,
        ':',
      ]) {
        const body = await read(app, `/api/v1/identities/${encodeURIComponent(text)}?${RANGE}`, 404);
        expect(body.error.code, text).toBe('not_found');
      }
      await read(app, `/api/v1/identities/${'a'.repeat(301)}?${RANGE}`, 400);
    });
  });
});

describe.each(STORE_KINDS)('a store from before identities were kept as digests, on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    afterEach(async () => db.dispose());

    it('reads the same identities and counts after the upgrade, and counts new sends with the old', async ({
      skip,
    }) => {
      skipOnCitus(
        skip,
        kind,
        'rebuilds the schema of the release before events_by_day, storms keyed by id alone, a unique key without the distribution column, which Citus refuses (a Citus store starts at the current schema)',
      );
      db = await kind.open();
      const app = createTestApp(db.store);
      await postNdjson(app, traffic());
      const before = await readAll(app, db.store);

      await asBeforeDenialAudit(db.store);
      await asBeforeDigests(db.store);
      // The shape the release before left, and its identities: the public strings.
      expect(await readCatalog(db.store)).toEqual(await catalogBefore(kind.name, 'identity_digest'));
      const stored = await db.store.all<{ identity: string }>(sql`SELECT DISTINCT identity FROM events ORDER BY 1`);
      expect(stored.map((row) => row.identity).sort()).toEqual(Object.keys(before.sends).sort());
      const [{ seq: lastSeq } = { seq: 0 }] = await db.store.all<{ seq: number }>(
        sql`SELECT max(seq) AS seq FROM events`,
      );

      // A restart runs the migration, and reads what the stored requests say of themselves (api/server.ts).
      const upgraded = createTestApp(await db.reopen());
      await backfillRequestFacts(db.store);
      expect(await readAll(upgraded, db.store)).toEqual(before);

      // A send after the upgrade is counted with those before it, under a new seq.
      await postNdjson(upgraded, [clientEvent({ server: 'a:b', ts: T0 + 20 * 60_000, request: POLL })]);
      const view = await read(upgraded, `/api/v1/identities/${encodeURIComponent(POLLED)}?${RANGE}`);
      expect(view.sends).toBe(42);
      const [{ seq } = { seq: 0 }] = await db.store.all<{ seq: number }>(sql`SELECT max(seq) AS seq FROM events`);
      expect(Number(seq)).toBe(Number(lastSeq) + 1);
    });
  });
});

/** What the API shows of the identities, and their hour counts under their public names. */
async function readAll(app: TestApp, store: SqlRunner) {
  const ranking = await read(app, `/api/v1/identities?${RANGE}&limit=50`);
  const alarmed = await read(app, `/api/v1/identities?${RANGE}&only=alarmed`);
  const views = [];
  for (const { identity } of ranking.identities) {
    views.push(await read(app, `/api/v1/identities/${encodeURIComponent(identity)}?${RANGE}`));
  }
  const { events } = await read(app, '/api/v1/events?limit=1000');
  const hours = await store.all(sql`SELECT ${identityText(store)} AS identity, start, sends, sends_00, sends_10,
      sends_20, sends_30, sends_40, sends_50
    FROM identity_hour ORDER BY 1, 2`);
  const sends = Object.fromEntries(
    ranking.identities.map((view: { identity: string; sends: number }) => [view.identity, view.sends]),
  );
  return { ranking, alarmed, views, events, hours, sends };
}

/**
 * Turns the store back into what the release before the migration identity_digest left: identities as their public
 * strings in events and identity_hour, the index and key without the server, and the migration not yet applied.
 * (SQLite keeps any value in any column: events.identity keeps its declared type, which the migration never reads.)
 */
async function asBeforeDigests(store: SqlRunner): Promise<void> {
  const statements: SQL[] =
    store.dialect === 'sqlite'
      ? [
          sql`DROP INDEX events_identity_server_ts_idx`,
          sql`UPDATE events SET identity = server || ':' || lower(hex(identity)) WHERE identity IS NOT NULL`,
          sql`CREATE INDEX events_identity_ts_idx ON events (identity, ts) WHERE identity IS NOT NULL AND counted = 1`,
          sql`CREATE TABLE identity_hour_before (start integer NOT NULL, identity text NOT NULL,
            sends integer NOT NULL, sends_00 integer DEFAULT 0 NOT NULL, sends_10 integer DEFAULT 0 NOT NULL,
            sends_20 integer DEFAULT 0 NOT NULL, sends_30 integer DEFAULT 0 NOT NULL,
            sends_40 integer DEFAULT 0 NOT NULL, sends_50 integer DEFAULT 0 NOT NULL,
            PRIMARY KEY (start, identity)) WITHOUT ROWID`,
          sql`INSERT INTO identity_hour_before SELECT start, server || ':' || lower(hex(identity)), sends, sends_00,
            sends_10, sends_20, sends_30, sends_40, sends_50 FROM identity_hour`,
          sql`DROP TABLE identity_hour`,
          sql`ALTER TABLE identity_hour_before RENAME TO identity_hour`,
          sql`CREATE INDEX identity_hour_sends_idx ON identity_hour (start, sends) WHERE sends > 1`,
          // The migrator's own table numbers no row on SQLite: the last migration is the one created last.
          sql`DELETE FROM __drizzle_migrations WHERE created_at = (SELECT max(created_at) FROM __drizzle_migrations)`,
        ]
      : [
          sql`DROP INDEX events_identity_server_ts_idx`,
          sql`ALTER TABLE events ALTER COLUMN identity TYPE text USING server || ':' || encode(identity, 'hex')`,
          sql`CREATE INDEX events_identity_ts_idx ON events (identity, ts) WHERE identity IS NOT NULL AND counted = 1`,
          sql`ALTER TABLE identity_hour DROP CONSTRAINT identity_hour_start_server_identity_pk`,
          sql`ALTER TABLE identity_hour ALTER COLUMN identity TYPE text USING server || ':' || encode(identity, 'hex')`,
          sql`ALTER TABLE identity_hour DROP COLUMN server`,
          sql`ALTER TABLE identity_hour ADD CONSTRAINT identity_hour_start_identity_pk PRIMARY KEY (start, identity)`,
          sql`DELETE FROM drizzle.__drizzle_migrations
            WHERE created_at = (SELECT max(created_at) FROM drizzle.__drizzle_migrations)`,
        ];
  for (const statement of statements) await store.run(statement);
}
