import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../shared/analysis/time-buckets.ts';
import { createTestApp, get, postNdjson, type TestApp } from '../support/app.ts';
import { BASE_TS, clientEvent, rpcError } from '../support/events.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';

/** Every analysis read that takes a range. */
const ROUTES = [
  '/api/v1/timeseries',
  '/api/v1/servers',
  '/api/v1/servers/release-notes',
  '/api/v1/context-gap',
  '/api/v1/identities',
  '/api/v1/identities?only=alarmed',
  '/api/v1/clients',
  '/api/v1/storms',
  '/api/v1/summary',
];

const withRange = (route: string, range: string) => `${route}${route.includes('?') ? '&' : '?'}${range}`;

describe.each(STORE_KINDS)('every read has a cost bound, on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeEach(async () => {
      db = await kind.open();
      app = createTestApp(db.store);
    });
    afterEach(async () => db.dispose());

    const failure = (ts: number) =>
      clientEvent({ ts: new Date(ts).toISOString(), response: rpcError(-32602, 'Unknown tool') });

    it.each([
      ['the whole of time', 'from=0&to=8640000000000000', 2],
      ['a day in the far future', 'to=9999-12-31T00:00:00Z', 0],
    ])('answers %s with a bounded answer', async (_, range, events) => {
      await postNdjson(app, [failure(BASE_TS), failure(BASE_TS + 3 * DAY_MS)]);
      for (const route of ROUTES) {
        const res = await get(app, withRange(route, range));
        expect({ route, status: res.status }).toEqual({ route, status: 200 });
        const body = await res.text();
        expect(body.length).toBeLessThan(200_000);
      }
      const series = await (await get(app, withRange('/api/v1/timeseries', range))).json();
      expect(series.points.length).toBeLessThanOrEqual(400);
      expect(series.points.reduce((sum: number, p: { requests: number }) => sum + p.requests, 0)).toBe(events);
    });

    it('answers the whole of time on an empty store', async () => {
      for (const route of ROUTES) {
        const res = await get(app, withRange(route, 'from=0&to=8640000000000000'));
        expect({ route, status: res.status }).toEqual({ route, status: route.includes('/servers/') ? 404 : 200 });
      }
    });

    it('refuses a range still longer than 400 days of events, saying how to narrow it', async () => {
      await postNdjson(app, [failure(BASE_TS - 500 * DAY_MS), failure(BASE_TS)]);
      const res = await get(app, '/api/v1/timeseries?from=0&to=8640000000000000');
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.error).toMatchObject({ code: 'invalid_request', field: 'from' });
      expect(body.error.fix).toMatch(/at most 400 days; the store holds events from \d{4}-/);
      // Within 400 days, the same store answers.
      const narrowed = `from=${new Date(BASE_TS - 10 * DAY_MS).toISOString()}&to=${new Date(BASE_TS + DAY_MS).toISOString()}`;
      expect((await get(app, `/api/v1/timeseries?${narrowed}`)).status).toBe(200);
    });
  });
});
