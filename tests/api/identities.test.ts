import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAnalysis } from '../../api/services/analysis/load.ts';
import { topIdentityRows } from '../../db/queries/analysis.ts';
import { shuffled } from '../../shared/analysis/fixtures.ts';
import { representationAlarms, timelineSeries, topIdentities } from '../../shared/analysis/identities.ts';
import { stepFor } from '../../shared/analysis/time-buckets.ts';
import { createTestApp, get, type TestApp } from '../support/app.ts';
import { BASE_TS, clientEvent, proxyEvent, rpcError } from '../support/events.ts';
import { ingestFolded } from '../support/ingest.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';

const H = 3_600_000;
const call = (name: string, id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: {}, _meta: { traceparent: `${name}-${id}` } },
});

/**
 * Three hours on `docs` (BASE_TS is on the hour): a poller sent most of all but never fast; a burst of 41 sends in
 * five minutes across the hour (40 re-presentations: the alarm); a near miss, 43 sends 16 s apart, each also in a
 * proxy's log (counted once, or it would be over); a second burst later on; and background calls sent once or twice.
 */
function traffic(): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  const send = (name: string, ts: number, n: number, client = 'agent-a') =>
    events.push(clientEvent({ ts, client, server: 'docs', request: call(name, n) }));
  for (let i = 0; i < 300; i++) send('poll', BASE_TS + i * 36_000, i);
  for (let i = 0; i < 41; i++) send('burst', BASE_TS + H - 150_000 + i * 7_000, i, i % 3 === 0 ? 'agent-b' : 'agent-a');
  for (let i = 0; i < 43; i++) {
    const ts = BASE_TS + 2 * H + 60_000 + i * 16_000;
    send('near', ts, i);
    events.push(proxyEvent({ ts, client: 'agent-a', server: 'docs', request: call('near', i) }));
  }
  for (let i = 0; i < 41; i++) send('second-burst', BASE_TS + 2 * H + 35 * 60_000 + i * 5_000, i);
  for (let i = 0; i < 200; i++) send(`once-${i % 150}`, BASE_TS + i * 50_000, i);
  // Weeks before: one sent once a day for 25 days (more hours than one SQL statement may list), and a burst over the
  // alarm 20 days back.
  for (let i = 0; i < 25; i++) send('daily', BASE_TS - (i + 1) * 24 * H + 3_000, 1000 + i);
  for (let i = 0; i < 41; i++) send('old-burst', BASE_TS - 20 * 24 * H + i * 6_000, 2000 + i);
  // Two last sends at one time, answered differently: the latest is the one with the greater id.
  send('tie', BASE_TS + 20 * 60_000, 0);
  send('tie', BASE_TS + 2 * H + 10 * 60_000, 1);
  events.push(
    clientEvent({
      ts: BASE_TS + 2 * H + 10 * 60_000,
      client: 'agent-b',
      server: 'docs',
      request: call('tie', 2),
      response: rpcError(-32602, 'Unknown tool'),
    }),
  );
  return events;
}

describe.each(STORE_KINDS)('identities on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeAll(async () => {
      db = await kind.open();
      const events = shuffled(traffic(), 5);
      for (let i = 0; i < events.length; i += 97) {
        await ingestFolded(
          db.store,
          events.slice(i, i + 97).map((value, n) => ({ line: n + 1, value })),
        );
      }
      app = createTestApp(db.store);
    });
    afterAll(async () => db.dispose());

    const list = async (query: string) => {
      const res = await get(app, `/api/v1/identities?${query}`);
      expect(res.status, query).toBe(200);
      return (await res.json()) as {
        identities: { identity: string; sends: number; alarms: { count: number }[] }[];
        total?: number;
      };
    };

    it('ranks the poller first by sends, though it never comes near the alarm', async () => {
      const { identities } = await list(`from=${BASE_TS}&to=${BASE_TS + 3 * H}&limit=2`);
      expect(identities.map((row) => [row.sends, row.alarms.length])).toEqual([
        [300, 0],
        [43, 0],
      ]);
    });

    it('lists the identities over the alarm as the events show them, also where the most sent hide them', async () => {
      const ranges = [
        { from: BASE_TS, to: BASE_TS + 3 * H },
        { from: BASE_TS + H - 200_000, to: BASE_TS + H + 200_000 },
        { from: BASE_TS + H, to: BASE_TS + 3 * H },
        { from: BASE_TS + 30 * 60_000, to: BASE_TS + 2 * H + 45 * 60_000, client: 'agent-a' },
        { from: BASE_TS, to: BASE_TS + 3 * H, server: 'elsewhere' },
      ];
      let alarmed = 0;
      for (const range of ranges) {
        const { events } = await loadAnalysis(db.store, range);
        const expected = representationAlarms(events).map((alarm) => [alarm.identity, alarm.count]);
        const query = new URLSearchParams(Object.entries(range).map(([key, value]) => [key, String(value)]));
        const { identities } = await list(`${query}&only=alarmed&limit=50`);
        expect(
          identities.map((row) => [row.identity, row.alarms[0]?.count]),
          JSON.stringify(range),
        ).toEqual(expected);
        alarmed += expected.length;
      }
      // The burst over the hour, whole in the first two ranges only; the second in all but the second and the last
      // (agent-a sent it); the near miss never.
      expect(alarmed).toBe(5);
      const { identities } = await list(`from=${BASE_TS}&to=${BASE_TS + 3 * H}&only=alarmed`);
      expect(identities.map((row) => [row.sends, row.alarms[0]?.count])).toEqual([
        [41, 40],
        [41, 40],
      ]);
      const first = await list(`from=${BASE_TS}&to=${BASE_TS + 3 * H}&only=alarmed&limit=1`);
      expect([first.identities.length, first.total]).toEqual([1, 2]);
    });

    it('shows each identity as its events do, in the list and on its own, over any range and filter', async () => {
      const ranges = [
        { from: BASE_TS, to: BASE_TS + 3 * H },
        { from: BASE_TS + H - 200_000, to: BASE_TS + H + 200_000 },
        { from: BASE_TS + 30 * 60_000, to: BASE_TS + 2 * H + 45 * 60_000, client: 'agent-b' },
        { from: BASE_TS + 30 * 60_000, to: BASE_TS + 2 * H + 45 * 60_000, server: 'docs' },
      ];
      let shown = 0;
      for (const range of ranges) {
        const { events } = await loadAnalysis(db.store, range);
        const step = stepFor(range.to - range.from);
        const viewOf = (identity: string) => {
          const sends = events.filter((event) => event.identity === identity);
          return {
            ...topIdentities(sends, 1)[0],
            alarms: representationAlarms(sends),
            series: timelineSeries(
              sends.map((send) => send.ts).sort((a, b) => a - b),
              range.from,
              range.to,
              step,
            ),
            step,
          };
        };
        const query = new URLSearchParams(Object.entries(range).map(([key, value]) => [key, String(value)]));
        const { identities } = await list(`${query}&limit=50`);
        for (const view of identities) expect(view, JSON.stringify(range)).toEqual(viewOf(view.identity));
        for (const view of identities.slice(0, 3)) {
          const res = await get(app, `/api/v1/identities/${encodeURIComponent(view.identity)}?${query}`);
          expect(await res.json()).toEqual(viewOf(view.identity));
        }
        shown += identities.length;
      }
      expect(shown).toBeGreaterThan(20);
      // The tie is among them: three sends, the last two at one time.
      const day = await list(`from=${BASE_TS}&to=${BASE_TS + 3 * H}&limit=50`);
      expect(day.identities.filter((view) => view.sends === 3)).toHaveLength(1);
    });

    it('ranks and alarms over weeks of traffic, and over a window reaching back before any event', async () => {
      const month = { from: BASE_TS - 30 * 24 * H + 1, to: BASE_TS + 3 * H };
      for (const range of [month, { from: 0, to: BASE_TS + 3 * H }, { ...month, server: 'docs' }]) {
        const { events } = await loadAnalysis(db.store, range);
        const query = new URLSearchParams(Object.entries(range).map(([key, value]) => [key, String(value)]));
        const top = await list(`${query}&limit=6`);
        // Grouping the window's events, as the ranking does when it is small; ties go by identity.
        const grouped = await topIdentityRows(db.store, range, 6);
        expect(top.identities.map((row) => [row.identity, row.sends])).toEqual(
          grouped.map((row) => [row.identity, row.sends]),
        );
        const alarmed = await list(`${query}&only=alarmed&limit=50`);
        expect(alarmed.identities.map((row) => [row.identity, row.alarms[0]?.count])).toEqual(
          representationAlarms(events).map((alarm) => [alarm.identity, alarm.count]),
        );
        expect(alarmed.total).toBe(3);
        expect(top.identities.some((row) => row.sends === 25)).toBe(true);
      }
    });

    it('refuses an unknown list with a clear error', async () => {
      const res = await get(app, '/api/v1/identities?only=everything');
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: expect.any(String) } });
    });
  });
});
