import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, get, postNdjson, type TestApp } from '../support/app.ts';
import { BASE_TS } from '../support/events.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';

/** A small LCG: the same seed gives the same hostile events on every run. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
  return { pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T, next };
}

const NAMES = ['docs', 'dócs', 'a\u0000b', 'lone\uD800', '🚀', 'x'.repeat(200), ' spaced ', 'a,b;"c"'];
const CODES = [-32602, -32601, -32000, 2 ** 31, -(2 ** 33), 0, 1.5, 'text', null];
const STATUSES = [200, 404, 429, 500, 502, 1200, -1, 200.5, '404'];
const RETRY = [undefined, 2, 0.0005, 1e-9, '7', 'Wed, 21 Oct 2026 07:28:00 GMT', 'soon', -3];
const METHODS = ['tools/call', 'tools/\u0000call', 'sampling/createMessage', 'x'.repeat(300), 'lone\uDC00', 7];

/** Events of every shape a hostile or broken producer writes, valid enough to be stored. */
function hostileEvents(count: number, seed: number): Record<string, unknown>[] {
  const r = random(seed);
  return Array.from({ length: count }, (_, i) => {
    const method = r.pick(METHODS);
    const traceparent =
      r.next() < 0.2 ? '0'.repeat(9000) : `00-${i.toString(16).padStart(32, '0')}-b7ad6b7169203331-01`;
    return {
      id: `h-${seed}-${i}`,
      ts: BASE_TS + Math.floor(r.next() * 3_600_000),
      source: r.next() < 0.8 ? 'client' : 'proxy',
      client: r.pick(NAMES),
      server: r.pick(NAMES),
      session: r.pick(['s1', 's\u0000', null, 'lone\uD800']),
      http: {
        method: r.pick(['POST', 'GET', 'P\u0000ST']),
        path: r.pick(['/mcp', '/a\u0000', '/x?y']),
        status: r.pick(STATUSES),
        retryAfter: r.pick(RETRY),
      },
      request: {
        jsonrpc: '2.0',
        id: i,
        method,
        params: { name: 'q', arguments: { n: r.next() }, includeContext: 'allServers', _meta: { traceparent } },
      },
      response:
        r.next() < 0.5
          ? {
              jsonrpc: '2.0',
              id: i,
              error: {
                code: r.pick(CODES),
                message: 'm\u0000',
                data: {
                  reason: r.pick(['policy.rate_limit', 'r\u0000', 'x'.repeat(400)]),
                  resetsAt: r.pick([undefined, '2026-11-02T11:00:00.123456Z', 'never']),
                },
              },
            }
          : {
              jsonrpc: '2.0',
              id: i,
              result: {
                _meta: {
                  context: {
                    requested: 'allServers',
                    applied: 'none',
                    reason: r.pick(['policy.max_scope', 'p\u0000', 'lone\uD800']),
                  },
                },
              },
            },
      latencyMs: r.pick([12, 0.001, 1e300, '12ms', -1]),
      timeout: r.pick([false, true, 'no']),
    };
  });
}

const RANGE = `from=${new Date(BASE_TS - 86_400_000).toISOString()}&to=${new Date(BASE_TS + 86_400_000).toISOString()}`;
const READS = [
  '/api/v1/events?limit=1000',
  '/api/v1/summary',
  '/api/v1/servers',
  '/api/v1/clients',
  '/api/v1/identities',
  '/api/v1/storms',
  '/api/v1/context-gap',
  '/api/v1/timeseries',
];

const [sqliteKind, postgresKind] = STORE_KINDS as [(typeof STORE_KINDS)[0], (typeof STORE_KINDS)[1]];

describe.skipIf(postgresKind.unavailable !== null)('the same hostile events on SQLite and PostgreSQL', () => {
  const stores: TestStore[] = [];
  const apps: TestApp[] = [];
  beforeAll(async () => {
    for (const kind of [sqliteKind, postgresKind]) {
      const store = await kind.open();
      stores.push(store);
      apps.push(createTestApp(store.store));
    }
  });
  afterAll(async () => {
    for (const store of stores) await store.dispose();
  });

  it.each([1, 2, 3])('are accepted alike and read back alike (seed %i)', async (seed) => {
    const events = hostileEvents(150, seed);
    const reports = [];
    for (const app of apps) {
      const res = await postNdjson(app, events);
      expect(res.status).toBe(200);
      reports.push(await res.json());
    }
    expect(reports[0].accepted).toBeGreaterThan(100);
    expect(reports[1]).toEqual(reports[0]);
    for (const read of READS) {
      const path = `${read}${read.includes('?') ? '&' : '?'}${RANGE}`;
      const [a, b] = await Promise.all(apps.map(async (app) => (await get(app, path)).json()));
      expect({ read, answer: b }).toEqual({ read, answer: a });
    }
  });
});
