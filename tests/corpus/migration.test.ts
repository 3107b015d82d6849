import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildMissingStorms } from '../../api/services/gate-maintenance.ts';
import { rederiveStoredFacts } from '../../api/services/stored-facts.ts';
import { CountChanges } from '../../db/counters/changes.ts';
import { bytesFromHex } from '../../db/queries/lists.ts';
import { storedDigest } from '../../db/stored-identity.ts';
import { validateEvent } from '../../shared/event.ts';
import { isSentByServer } from '../../shared/frames.ts';
import { requestIdentity } from '../../shared/identity.ts';
import { analysed, createTestApp, get, putJson, type TestApp } from '../support/app.ts';
import { CORPORA, corpusText, expectedOf } from '../support/corpus.ts';
import { replayMigration } from '../support/migrations.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';

const RANGE = 'from=2026-12-01T00:00:00Z&to=2026-12-03T00:00:00Z';

describe.each(STORE_KINDS.flatMap((kind) => CORPORA.map((corpus) => ({ ...kind, corpus }))))(
  'a store of $corpus written by the release before the gate blocks, on $name',
  (kind) => {
    const CORPUS = kind.corpus;
    const SERVER = expectedOf(CORPUS).server[0] as string;
    describe.skipIf(kind.unavailable !== null)('', () => {
      let db: TestStore;
      let app: TestApp;
      beforeEach(async () => {
        db = await kind.open();
        app = createTestApp(db.store);
        await putJson(app, `/api/v1/servers/${SERVER}/discovery`, JSON.parse(corpusText(CORPUS, 'discovery.json')));
        await app.request('/api/v1/ingest', {
          method: 'POST',
          headers: { 'content-type': 'application/x-ndjson', host: '127.0.0.1:7700' },
          body: corpusText(CORPUS, 'client.ndjson'),
        });
        await analysed(app);
      });
      afterEach(async () => db.dispose());

      const events = async () =>
        (await (await get(app, '/api/v1/events?limit=1000')).json()).events as {
          id: string;
          identity: string | null;
          avoidable: boolean;
          blockedBy: string | null;
        }[];

      /**
       * The rows as the older release left them: identities with messageId, no lapses, no verdicts, a server's
       * requests filed under the client, and no record that the facts were filed anew.
       */
      async function writeAsBefore() {
        const rollups = new CountChanges();
        const rows = await db.store.all<{ eventId: string; avoidable: number; gateReason: string | null }>(
          sql`SELECT event_id AS "eventId", avoidable, gate_reason AS "gateReason" FROM events`,
        );
        const verdicts = new Map(rows.map((row) => [row.eventId, row]));
        for (const line of corpusText(CORPUS, 'client.ndjson').trim().split('\n')) {
          const parsed = validateEvent(JSON.parse(line));
          if (!parsed.ok) throw new Error(parsed.error.message);
          const { event } = parsed;
          const rpcMethod = typeof event.request?.method === 'string' ? event.request.method : null;
          const verdict = verdicts.get(event.id ?? '');
          const counted = { ...event, client: event.client ?? null, discoveryRead: event.discoveryRead ?? null };
          const row = { ...counted, bucket: '', kind: '' };
          const stored = await db.store.all<{ bucket: string; kind: string }>(
            sql`SELECT bucket, kind FROM events WHERE event_id = ${event.id ?? ''}`,
          );
          Object.assign(row, stored[0]);
          // Verdicts off as they are filed now; the requests of the server filed under the client, as before.
          rollups.add({ ...row, rpcMethod }, 0, -(verdict?.avoidable ?? 0), verdict?.gateReason ?? null);
          if (isSentByServer(rpcMethod)) {
            rollups.add({ ...row, rpcMethod }, -1, 0);
            rollups.add({ ...row, rpcMethod: null }, 1, 0);
          }
          const now = requestIdentity(event.server, event.request, event.protocol);
          const before = requestIdentity(event.server, event.request, 'mcp');
          if (now === before) continue;
          const digest = bytesFromHex(db.store, sql`${storedDigest(before, event.server)}`);
          await db.store.run(sql`UPDATE events SET identity = ${digest} WHERE event_id = ${event.id ?? ''}`);
          rollups.addSend({ ts: event.ts, server: event.server, identity: now }, -1);
          rollups.addSend({ ts: event.ts, server: event.server, identity: before }, 1);
        }
        await db.store.transaction((tx) => rollups.write(tx));
        await db.store.run(
          sql`UPDATE events SET avoidable = 0, gate_reason = NULL, blocked_by = NULL, wait_until = NULL`,
        );
        await db.store.run(sql`DELETE FROM settings WHERE key LIKE 'stored_facts%'`);
      }

      it('derives identities and lapses again and replays every verdict, once', async () => {
        const fresh = await events();
        const identities = await (await get(app, `/api/v1/identities?${RANGE}&limit=50`)).json();
        const clients = await (await get(app, `/api/v1/clients?${RANGE}`)).json();
        const servers = await (await get(app, `/api/v1/servers?${RANGE}`)).json();
        await writeAsBefore();
        expect((await events()).filter((e) => e.avoidable)).toHaveLength(0);
        expect(await (await get(app, `/api/v1/identities?${RANGE}&limit=50`)).json()).not.toEqual(
          CORPUS === 'a2a-js' ? identities : null,
        );

        await replayMigration(
          db.store,
          kind.name,
          kind.name === 'sqlite' ? '0025_' : '0024_',
          (s) => !s.includes('ALTER TABLE'),
        );
        expect(await rederiveStoredFacts(db.store)).toBeGreaterThan(0);
        expect(await buildMissingStorms(db.store)).toBeGreaterThan(0);
        expect(await events()).toEqual(fresh);
        expect(await (await get(app, `/api/v1/identities?${RANGE}&limit=50`)).json()).toEqual(identities);
        expect(await (await get(app, `/api/v1/clients?${RANGE}`)).json()).toEqual(clients);
        expect(await (await get(app, `/api/v1/servers?${RANGE}`)).json()).toEqual(servers);
        const expected = expectedOf(CORPUS).events;
        expect(Object.fromEntries(fresh.map((e) => [e.id, e.avoidable]))).toEqual(
          Object.fromEntries(Object.entries(expected).map(([id, e]) => [id, e.avoidable])),
        );
        const probe = CORPUS === 'a2a-js' ? 'card-prober-006' : 'prober-007';
        expect(fresh.find((e) => e.id === probe)?.blockedBy).toBe('endpoint');
        // Once per store: a second start derives nothing.
        expect(await rederiveStoredFacts(db.store)).toBe(0);
      });
    });
  },
);
