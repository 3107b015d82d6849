import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, get, postNdjson, type TestApp } from '../support/app.ts';
import { clientEvent } from '../support/events.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';

/**
 * Times are validated once (issue 39, items 3, 4 and 8): every format's reader refuses what is no real instant
 * (a date that does not exist, a time past the year 9999) with a line's own error, nothing of the batch lost and
 * nothing moved; and ranges are refused (400) or answered, never a 500, out to the widest instant an event may have.
 */

const LAST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const LATE = '9999-12-31T23:59:59.000Z';

/** Every GET route that reads a range. */
const RANGE_ROUTES = [
  '/api/v1/summary',
  '/api/v1/timeseries',
  '/api/v1/servers',
  '/api/v1/servers/late',
  '/api/v1/clients',
  '/api/v1/events',
  '/api/v1/storms',
  '/api/v1/identities',
  '/api/v1/context-gap',
  '/api/v1/denials',
  '/api/v1/actionability',
];

/** Answered, or refused as documented (a table reads at most 400 days of stored events): never a fault. */
async function expectAnsweredOrRefused(res: Response, label: string) {
  if (res.status === 200) return;
  expect([res.status, (await res.json()).error?.code], label).toEqual([400, 'invalid_request']);
}

function ingestText(app: TestApp, body: string, query: string) {
  return app.request(`/api/v1/ingest?${query}`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', host: '127.0.0.1:7700' },
    body,
  });
}

describe.each(STORE_KINDS)('times that are no real instant, on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeAll(async () => {
      db = await kind.open();
      app = createTestApp(db.store);
    });
    afterAll(async () => db.dispose());

    it('refuses impossible dates and times past 9999 line by line, and stores the rest unmoved', async () => {
      const lines = [
        clientEvent({ id: 'feb-30', ts: '2026-02-30T10:00:00Z' }),
        clientEvent({ id: 'hour-24', ts: '2026-03-01T24:00:00Z' }),
        clientEvent({ id: 'minute-60', ts: '2026-03-01T10:60:00+01:00' }),
        clientEvent({ id: 'year-10000', ts: LAST + 1 }),
        clientEvent({ id: 'signed-year', ts: '+010000-01-01T00:00:00Z' }),
        clientEvent({ id: 'leap-day', ts: '2028-02-29T10:00:00Z' }),
        clientEvent({ id: 'late', server: 'late', ts: LATE }),
      ];
      const res = await postNdjson(app, lines);
      expect(res.status).toBe(200);
      const report = await res.json();
      expect(report.accepted).toBe(2);
      expect(report.rejected.map((r: { line: number; field: string }) => [r.line, r.field])).toEqual([
        [1, 'ts'],
        [2, 'ts'],
        [3, 'ts'],
        [4, 'ts'],
        [5, 'ts'],
      ]);
      expect(report.rejected[0].message).toContain('2026-02 has no day 30');
      expect(report.rejected[3].message).toContain('after the year 9999');
      const ids = (await (await get(app, `/api/v1/events?from=0&to=${LAST}&limit=100`)).json()).events.map(
        (e: { id: string; ts: string }) => [e.id, e.ts],
      );
      expect(ids.sort()).toEqual([
        ['late', LATE],
        ['leap-day', '2028-02-29T10:00:00.000Z'],
      ]);
    });

    it("refuses an access log's impossible times per line, whatever the format", async () => {
      const nginxJson = [
        { msec: '999999999999.000', request_method: 'POST', request_uri: '/mcp', status: 200 },
        { time_iso8601: '2026-02-30T10:00:00+00:00', request_method: 'POST', request_uri: '/mcp', status: 200 },
        { msec: '1796179362.366', request_method: 'POST', request_uri: '/mcp', status: 200 },
      ];
      const cases: [string, string, number][] = [
        ['nginx-json', nginxJson.map((l) => JSON.stringify(l)).join('\n'), 2],
        [
          'nginx-combined',
          '127.0.0.1 - - [30/Feb/2026:10:00:00 +0000] "POST /mcp HTTP/1.1" 200 5 "-" "agent"\n' +
            '127.0.0.1 - - [28/Feb/2026:10:00:00 +0000] "POST /mcp HTTP/1.1" 200 5 "-" "agent"',
          1,
        ],
        [
          'envoy-json',
          [
            { start_time: '2026-02-30T10:00:00.000Z', method: 'POST', path: '/mcp', response_code: 200 },
            { start_time: '99999999999999.000', method: 'POST', path: '/mcp', response_code: 200 },
          ]
            .map((l) => JSON.stringify(l))
            .join('\n'),
          2,
        ],
      ];
      for (const [format, body, refused] of cases) {
        const res = await ingestText(app, body, `format=${format}&server=proxy-${format}`);
        expect(res.status, format).toBe(200);
        const report = await res.json();
        expect(report.rejectedTotal, format).toBe(refused);
        for (const rejected of report.rejected) {
          expect(rejected.code, format).toBe('no_timestamp');
          expect(rejected.message, format).toContain('no real instant');
        }
      }
    });

    it('answers every range route out to the whole of time (or its documented 400), and refuses what is no instant', async () => {
      for (const route of RANGE_ROUTES) {
        // A Date's last instant, "the whole of time", is clamped to the last an event can have.
        for (const wide of [`from=0&to=${LAST}`, 'from=0&to=8640000000000000', 'from=8640000000000000']) {
          await expectAnsweredOrRefused(await get(app, `${route}?${wide}`), `${route}?${wide}`);
        }
        for (const bad of ['to=8640000000000001', 'from=2026-02-30', 'to=2026-04-31T10:00:00Z', 'to=10000-01-01']) {
          const res = await get(app, `${route}?${bad}`);
          expect(res.status, `${route}?${bad}`).toBe(400);
          expect((await res.json()).error.code, `${route}?${bad}`).toBe('invalid_request');
        }
      }
      for (const table of ['/api/v1/servers', '/api/v1/clients', '/api/v1/events']) {
        await expectAnsweredOrRefused(await get(app, `${table}?from=0&to=${LAST}&format=csv`), `${table} csv`);
      }
    });
  });
});
