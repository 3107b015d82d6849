import { describe, expect, it } from 'vitest';
import { createTestApp, get, postNdjson } from '../support/app.ts';
import { CORPORA, corpusText } from '../support/corpus.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';

/**
 * Event ids are the log's: a client that numbers its records afresh on every start writes one id many times. The
 * store keeps events of one id at different times apart (its key is id, time and server), and the fold must go on
 * over them: an upsert that met one key twice stopped PostgreSQL's fold for good (the denial audit's did).
 */
describe.each(STORE_KINDS)('a log whose ids repeat, on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    const DAY = 'from=2026-12-01&to=2026-12-03';

    async function analyse(db: TestStore, idOf: (e: Record<string, unknown>) => unknown) {
      const app = createTestApp(db.store);
      const lines = CORPORA.flatMap((corpus) => corpusText(corpus, 'client.ndjson').trim().split('\n'));
      const events = lines.map((line) => {
        const e = JSON.parse(line) as Record<string, unknown>;
        return { ...e, id: idOf(e) };
      });
      const res = await postNdjson(app, events);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ accepted: events.length, rejectedTotal: 0 });
      // Analysed through: a fold that failed on a repeated id leaves the events queued.
      expect((await (await get(app, '/api/v1/health')).json()).analysis.pendingEvents).toBe(0);
      const read = async (path: string) => {
        const answer = await get(app, `/api/v1/${path}?${DAY}`);
        expect(answer.status).toBe(200);
        const { analysedThrough: _through, lagMs: _lag, ...rest } = await answer.json();
        return rest;
      };
      const storms = await read('storms');
      return { summary: await read('summary'), denials: (await read('denials')).total, storms: storms.total };
    }

    it('is stored and counted as with ids of its own', async () => {
      const [own, repeated] = [await kind.open(), await kind.open()];
      try {
        const expected = await analyse(own, (e) => e.id);
        // One id for every record, as far as the store's key allows: records of one time and server are told apart.
        const seen = new Map<string, number>();
        const found = await analyse(repeated, (e) => {
          const at = `${e.ts} ${e.server}`;
          seen.set(at, (seen.get(at) ?? 0) + 1);
          return `record-${seen.get(at)}`;
        });
        expect(found.summary.overall).toEqual(expected.summary.overall);
        expect(found.denials).toBe(expected.denials);
        expect(found.storms).toBe(expected.storms);
        expect(expected.denials).toBeGreaterThan(0);
      } finally {
        await own.dispose();
        await repeated.dispose();
      }
    });
  });
});
