/**
 * Where the data are: the span an ingest answer gives of the events it read, and GET /api/v1/span, the oldest and
 * newest stored event, on both stores. What the dashboard offers when a range is empty but the store is not.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, get, postNdjson, type TestApp } from '../support/app.ts';
import { corpusText } from '../support/corpus.ts';
import { BASE_TS, clientEvent } from '../support/events.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';

const iso = (ms: number) => new Date(ms).toISOString();

describe.each(STORE_KINDS)('where the data are, on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeEach(async () => {
      db = await kind.open();
      app = createTestApp(db.store);
    });
    afterEach(async () => db.dispose());

    async function span() {
      const res = await get(app, '/api/v1/span');
      expect(res.status).toBe(200);
      return res.json();
    }

    it('an empty store has no span; an empty batch and one of bad lines only have none either', async () => {
      expect(await span()).toEqual({ first: null, last: null });
      expect((await (await postNdjson(app, [])).json()).span).toBeNull();
      const bad = await (await postNdjson(app, ['{"ts": oops', JSON.stringify({ source: 'client' })])).json();
      expect(bad).toMatchObject({ accepted: 0, rejectedTotal: 2, span: null });
      expect(await span()).toEqual({ first: null, last: null });
    });

    it("answers a batch's first and last event time, whatever their order, and the store's across batches", async () => {
      const late = BASE_TS + 3_600_000;
      const first = await postNdjson(app, [
        clientEvent({ ts: iso(BASE_TS + 60_000) }),
        clientEvent({ ts: iso(late), server: 'résumé-ünïcode' }),
        '{"ts": oops',
        clientEvent({ ts: iso(BASE_TS) }),
      ]);
      expect(await first.json()).toMatchObject({
        accepted: 3,
        rejectedTotal: 1,
        span: { first: iso(BASE_TS), last: iso(late) },
      });
      // An older batch moves the store's start, not its end.
      const older = BASE_TS - 4 * 86_400_000;
      const second = await postNdjson(app, [clientEvent({ ts: older })]);
      expect((await second.json()).span).toEqual({ first: iso(older), last: iso(older) });
      expect(await span()).toEqual({ first: iso(older), last: iso(late) });
    });

    it('gives the span of a batch sent again: its events are duplicates, stored before, still where they were', async () => {
      const lines = corpusText('mcp-python', 'client.ndjson')
        .split('\n')
        .filter((line) => line.trim() !== '');
      const times = lines.map((line) => Date.parse(JSON.parse(line).ts));
      const expected = { first: iso(Math.min(...times)), last: iso(Math.max(...times)) };
      const sent = await (await postNdjson(app, lines)).json();
      expect(sent).toMatchObject({ accepted: lines.length, span: expected });
      const again = await (await postNdjson(app, lines)).json();
      expect(again).toMatchObject({ accepted: 0, duplicates: lines.length, span: expected });
      expect(await span()).toEqual(expected);
    });
  });
});
