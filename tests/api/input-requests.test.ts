/**
 * MCP 2026-07-28's input requests counted as a 2025 server's own requests are (DOMAIN.md section 10): what a server
 * asks inside a round's `input_required` answer is a send of its identity, the server its sender, in the identity
 * reads (the ranking from the hour counts and from the events, an identity's view) and in the server's conduct. The
 * rounds are the TypeScript SDK v2's own (tests/fixtures/corpus/mcp-ts-v2: cautious-agent's three `publish` calls,
 * each answered with the same elicitation), a proxy's record of them made from the same lines with the nginx request
 * id they carry.
 */
import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backfillInputRequests } from '../../api/services/input-requests.ts';
import { bytesFromHex } from '../../db/queries/lists.ts';
import { deleteCountsBefore } from '../../db/queries/retention.ts';
import { storedDigest } from '../../db/stored-identity.ts';
import { analysed, createTestApp, get, postNdjson, type TestApp } from '../support/app.ts';
import { corpusText, expectedOf } from '../support/corpus.ts';
import { asBeforeInputRequests, replayMigration } from '../support/migrations.ts';
import { STORE_KINDS, skipOnCitus, type TestStore } from '../support/stores.ts';

type Line = Record<string, unknown> & { id: string; ts: string; http: Record<string, unknown> };

const ROUNDS = ['cautious-agent-002', 'cautious-agent-004', 'cautious-agent-006'];
const lines = new Map(
  corpusText('mcp-ts-v2', 'client.ndjson')
    .trim()
    .split('\n')
    .map((text) => JSON.parse(text) as Line)
    .map((line) => [line.id, line]),
);
const round = (id: string) => lines.get(id) as Line;
/** The elicitation the server asked in each round, by expected.json. */
const ASKED = expectedOf('mcp-ts-v2').events['cautious-agent-002'] as unknown as {
  inputRequests: { identity: string; method: string }[];
};
const ELICITATION = ASKED.inputRequests[0]?.identity as string;
const first = Date.parse(round('cautious-agent-002').ts);

describe.each(STORE_KINDS)('input requests as sends of their identity on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeEach(async () => {
      db = await kind.open();
      app = createTestApp(db.store);
    });
    afterEach(async () => db.dispose());

    async function view(identity: string, range: string) {
      const res = await get(app, `/api/v1/identities/${encodeURIComponent(identity)}?${range}`);
      return { status: res.status, body: res.status === 200 ? await res.json() : null };
    }

    async function ranked(range: string) {
      const res = await get(app, `/api/v1/identities?${range}&limit=50`);
      expect(res.status).toBe(200);
      const { identities } = (await res.json()) as { identities: { identity: string; sends: number }[] };
      return Object.fromEntries(identities.map((i) => [i.identity, i.sends]));
    }

    it("ranks the server's re-asked elicitation in whole hours and at a window's edges, and shows it asked", async () => {
      await postNdjson(app, ROUNDS.map(round));
      await analysed(app);
      const wholeHours = `from=${first - (first % 3_600_000)}&to=${first - (first % 3_600_000) + 3_600_000}`;
      const edges = `from=${first - 1}&to=${first + 60_000}`;
      for (const range of [wholeHours, edges]) {
        expect({ range, sends: (await ranked(range))[ELICITATION] }).toEqual({ range, sends: 3 });
        expect((await ranked(`${range}&client=cautious-agent`))[ELICITATION]).toBe(3);
        const { body } = await view(ELICITATION, range);
        expect(body).toMatchObject({
          sends: 3,
          represented: 2,
          method: 'elicitation/create',
          last: { id: 'cautious-agent-006', bucket: 'pending', kind: 'input_required' },
        });
      }
      expect((await ranked(`${wholeHours}&client=someone-else`))[ELICITATION]).toBeUndefined();
      const detail = await (await get(app, `/api/v1/servers/atlas-notes?${wholeHours}`)).json();
      expect(detail.sentByServer.inRounds).toEqual({ requests: 3, again: 2, byMethod: { 'elicitation/create': 3 } });
      // A window that holds none of the rounds holds none of their requests.
      const before = `from=${first - 60_000}&to=${first - 1}`;
      expect((await view(ELICITATION, before)).status).toBe(404);
      const none = await (await get(app, `/api/v1/servers/atlas-notes?${before}`)).json();
      expect(none.sentByServer.inRounds).toEqual({ requests: 0, again: 0, byMethod: {} });
    });

    it('reads, after migration input_requests, the requests of the rounds a store held before, once', async ({
      skip,
    }) => {
      skipOnCitus(
        skip,
        kind,
        'undoes migration input_requests and replays it on a placed store, which no Citus store goes through (lens citus-setup places a store after its migrations): the replay makes input_requests a plain local table, which Citus will not join to the distributed events',
      );
      await postNdjson(app, ROUNDS.map(round));
      await analysed(app);
      const range = `from=${first - (first % 3_600_000)}&to=${first - (first % 3_600_000) + 3_600_000}`;
      const before = { ranked: await ranked(range), view: (await view(ELICITATION, range)).body };
      await asBeforeInputRequests(db.store);
      await replayMigration(db.store, kind.name, 'input_requests', () => true);
      // The reads of sends look in cold blocks too, a later migration's table.
      await replayMigration(db.store, kind.name, 'cold_blocks', () => true);
      expect((await ranked(range))[ELICITATION]).toBeUndefined();
      expect(await backfillInputRequests(db.store)).toBe(3);
      expect({ ranked: await ranked(range), view: (await view(ELICITATION, range)).body }).toEqual(before);
      expect(await backfillInputRequests(db.store)).toBe(0);
    });

    it("goes at the events' horizon with the fine counts, the hour counts kept", async () => {
      await postNdjson(app, ROUNDS.map(round));
      await analysed(app);
      const stored = async () =>
        Number((await db.store.all<{ n: number }>(sql`SELECT count(*) AS n FROM input_requests`))[0]?.n);
      expect(await stored()).toBe(3);
      await deleteCountsBefore(db.store, first, 0);
      expect(await stored()).toBe(3);
      await deleteCountsBefore(db.store, first + 60_000, 0);
      expect(await stored()).toBe(0);
      // The hour counts keep the server's requests past the events' horizon, as they keep every send.
      const digest = bytesFromHex(db.store, sql`${storedDigest(ELICITATION, 'atlas-notes')}`);
      const hours = await db.store.all<{ n: number }>(
        sql`SELECT sum(sends) AS n FROM identity_hour WHERE server = 'atlas-notes' AND identity = ${digest}`,
      );
      expect(Number(hours[0]?.n)).toBe(3);
    });

    it('counts a round seen by a proxy and by its client once, whichever arrived first', async () => {
      // The proxy's records of two rounds, frames and all (a gateway that logs bodies), sent before the client's.
      const proxied = ROUNDS.slice(0, 2).map((id) => {
        const { client: _client, ...line } = round(id);
        return { ...line, id: `proxy-${id}`, source: 'proxy' };
      });
      await postNdjson(app, proxied);
      await analysed(app);
      const range = `from=${first - (first % 3_600_000)}&to=${first - (first % 3_600_000) + 3_600_000}`;
      expect((await ranked(range))[ELICITATION]).toBe(2);
      await postNdjson(app, ROUNDS.map(round));
      await analysed(app);
      expect((await ranked(range))[ELICITATION]).toBe(3);
      expect((await view(ELICITATION, range)).body).toMatchObject({ sends: 3 });
      const detail = await (await get(app, `/api/v1/servers/atlas-notes?${range}`)).json();
      expect(detail.sentByServer.inRounds.requests).toBe(3);
    });
  });
});
