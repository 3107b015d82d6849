import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENTS_TABLE } from '../../api/services/export-tables.ts';
import { countListed, listEvents, partnerRecords } from '../../db/queries/event-reads.ts';
import type { SqlRunner } from '../../db/runner.ts';
import { analysed, createTestApp, get, postNdjson, putJson, type TestApp } from '../support/app.ts';
import { clientEvent, proxyEvent, rpcError, uniqueId } from '../support/events.ts';
import { queryPlan } from '../support/plans.ts';
import { openTempSqlite, STORE_KINDS, type TestStore } from '../support/stores.ts';

/**
 * One request, one row (DOMAIN.md section 2, issue 35): a request its client and nginx both logged is stored as two
 * records, and every list that counts requests lists it once, as the record it is counted by (the client's, with the
 * client's outcome), the other record behind it. The world is each recorded corpus's client log and its nginx JSON
 * log in one store, held to the same corpus's client log alone in another: the client log's numbers.
 */

interface Row {
  id: string;
  source: string;
  server: string;
  counted: boolean;
  partner: string | null;
  partnerRecord: Row | null;
  http: { status: number | null };
  bucket: string;
  kind: string;
  rule: string;
}
interface Page {
  events: Row[];
  nextCursor: string | null;
  total: { count: number; capped: boolean } | null;
}

const CORPORA = ['mcp-python', 'a2a-js', 'mcp-ts-v2'] as const;
type Corpus = (typeof CORPORA)[number];

/** A file of a corpus (tests/support/corpus.ts names two of the three). */
function corpusText(corpus: Corpus, file: string): string {
  return readFileSync(new URL(`../fixtures/corpus/${corpus}/${file}`, import.meta.url), 'utf8');
}

function lines(corpus: Corpus, file: string): string[] {
  return corpusText(corpus, file)
    .split('\n')
    .filter((line) => line.trim() !== '');
}

/** Each server's discovery document: mcp-ts-v2 has two servers, split in discovery.servers.json. */
function documents(corpus: Corpus): Record<string, unknown> {
  if (corpus === 'mcp-ts-v2') {
    return (JSON.parse(corpusText(corpus, 'discovery.servers.json')) as { servers: Record<string, unknown> }).servers;
  }
  const { server } = JSON.parse(corpusText(corpus, 'expected.json')) as { server: string[] };
  return { [server[0] as string]: JSON.parse(corpusText(corpus, 'discovery.json')) };
}

/**
 * Per server, the client log's failed requests (expected.json: any bucket but ok, and but pending, an input request
 * answered, which is no failure), sorted.
 */
function expectedFailures(corpus: Corpus): Map<string, string[]> {
  const expected = JSON.parse(corpusText(corpus, 'expected.json')) as { events: Record<string, { bucket: string }> };
  const failed = new Map<string, string[]>();
  for (const line of lines(corpus, 'client.ndjson')) {
    const { id, server } = JSON.parse(line) as { id: string; server: string };
    const bucket = expected.events[id]?.bucket;
    if (bucket === undefined || bucket === 'ok' || bucket === 'pending') continue;
    failed.set(server, [...(failed.get(server) ?? []), id].sort());
  }
  return failed;
}

/** The range the client log spans, as a query. */
function rangeOf(corpus: Corpus): string {
  const times = lines(corpus, 'client.ndjson').map((line) => Date.parse((JSON.parse(line) as { ts: string }).ts));
  return `from=${Math.min(...times) - 60_000}&to=${Math.max(...times) + 60_000}`;
}

async function ingest(app: TestApp, query: string, body: string[], type: string): Promise<void> {
  const res = await app.request(`/api/v1/ingest${query}`, {
    method: 'POST',
    headers: { 'content-type': type, host: '127.0.0.1:7700' },
    body: `${body.join('\n')}\n`,
  });
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ rejectedTotal: 0 });
  await analysed(app);
}

/**
 * The corpus's contracts and client log; with `proxy`, nginx's JSON log after it, under the one server it fronts
 * (`server=`, as the README ingests a server's log), or where it fronts two, each line under the server whose
 * contract declares its path.
 */
async function load(app: TestApp, corpus: Corpus, proxy: boolean): Promise<void> {
  const servers = Object.keys(documents(corpus));
  for (const [server, document] of Object.entries(documents(corpus))) {
    expect((await putJson(app, `/api/v1/servers/${server}/discovery`, document)).status).toBe(200);
  }
  await ingest(app, '', lines(corpus, 'client.ndjson'), 'application/x-ndjson');
  if (!proxy) return;
  const protocol = corpus === 'a2a-js' ? 'a2a' : 'mcp';
  const named = servers.length === 1 ? `&server=${servers[0]}` : '';
  const query = `?format=nginx-json&protocol=${protocol}${named}`;
  await ingest(app, query, lines(corpus, 'nginx-access.json.log'), 'text/plain');
}

async function page(app: TestApp, query: string): Promise<Page> {
  const res = await get(app, `/api/v1/events?${query}`);
  expect(res.status).toBe(200);
  return (await res.json()) as Page;
}

/** Every row of a list, a page of `limit` at a time, and the total its first page gave. */
async function walk(app: TestApp, query: string, limit = 1000): Promise<{ rows: Row[]; total: Page['total'] }> {
  const first = await page(app, `${query}&limit=${limit}`);
  const rows = [...first.events];
  for (let cursor = first.nextCursor; cursor !== null; ) {
    const next = await page(app, `${query}&limit=${limit}&cursor=${cursor}`);
    // The total is the first page's: a later page is read by a reader who has it.
    expect(next.total).toBeNull();
    rows.push(...next.events);
    cursor = next.nextCursor;
  }
  return { rows, total: first.total };
}

async function download(app: TestApp, query: string, format: 'csv' | 'ndjson'): Promise<string> {
  const res = await get(app, `/api/v1/events?${query}&format=${format}`);
  expect(res.status).toBe(200);
  return res.text();
}

function ndjsonRows(text: string): Row[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Row);
}

/** A CSV download read by Python's csv module, each record keyed by its header's columns. */
function csvRecords(text: string): Record<string, string | undefined>[] {
  const script = 'import csv, json, sys\nprint(json.dumps(list(csv.reader(sys.stdin, strict=True))))';
  const run = spawnSync('python3', ['-c', script], { input: text, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  const [header, ...records] = JSON.parse(run.stdout) as string[][];
  expect(header).toEqual([...EVENTS_TABLE.columns]);
  return records.map((record) => Object.fromEntries(EVENTS_TABLE.columns.map((column, i) => [column, record[i]])));
}

function csvIds(text: string): string[] {
  return csvRecords(text).map((record) => record.id as string);
}

/** What a request's row says of it, without which records stand behind it. */
function outcome(row: Row) {
  return { id: row.id, source: row.source, server: row.server, bucket: row.bucket, kind: row.kind, rule: row.rule };
}

/** The corpus's servers (the contracts name them) with the actionability screen's failure count of each. */
async function failuresPerServer(app: TestApp, corpus: Corpus, range: string): Promise<Map<string, number>> {
  const res = await get(app, `/api/v1/actionability?${range}`);
  expect(res.status).toBe(200);
  const answer = (await res.json()) as { servers: { server: string; control: { failures: number } }[] };
  const counts = new Map(answer.servers.map((s) => [s.server, s.control.failures]));
  return new Map(Object.keys(documents(corpus)).map((server) => [server, counts.get(server) ?? 0]));
}

describe('the list reads on SQLite, from their indexes', () => {
  let db: TestStore;
  beforeAll(async () => {
    db = await openTempSqlite();
  });
  afterAll(async () => db?.dispose());

  const plan = async (read: (runner: SqlRunner) => Promise<unknown>) =>
    (await queryPlan(db.store, read)).map((step) => step.detail).join('\n');
  const day = { from: 0, to: 86_400_000, records: 'counted' as const };

  // The index's own condition is all the rows are tested for: each row it names is one of the list's.
  it("walks a server's failed requests in time order, its page and its count", async () => {
    const failures = { ...day, server: 'docs', failed: true };
    expect(await plan((runner) => listEvents(runner, failures, null, 26))).toMatch(
      /SEARCH events USING INDEX events_failed_ts_idx \(server=\? AND ts>\? AND ts<\?\)/,
    );
    expect(await plan((runner) => countListed(runner, failures, 10_000))).toMatch(
      /SEARCH events USING INDEX events_failed_ts_idx \(server=\? AND ts>\? AND ts<\?\)/,
    );
  });

  it('walks the range, a server or a client in time order, and finds a page of partners by id', async () => {
    expect(await plan((runner) => listEvents(runner, day, null, 51))).toMatch(/USING INDEX events_ts_idx/);
    expect(await plan((runner) => listEvents(runner, { ...day, server: 'docs' }, null, 51))).toMatch(
      /USING INDEX events_server_ts_idx/,
    );
    expect(await plan((runner) => countListed(runner, { ...day, client: 'a' }, 10_000))).toMatch(
      /USING INDEX events_client_ts_server_idx/,
    );
    const page = [{ eventId: 'c1', partner: 'p1', ts: 0, server: 'docs' }];
    expect(await plan((runner) => partnerRecords(runner, page))).toMatch(
      /USING INDEX events_event_id_uq \(event_id=\?\)/,
    );
    // Nothing to look up: no query at all.
    expect(
      await plan((runner) => partnerRecords(runner, [{ eventId: 'c1', partner: null, ts: 0, server: 'docs' }])),
    ).toBe('');
  });
});

describe.each(STORE_KINDS)('one row per request on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    describe.each(CORPORA)('%s: client log and nginx JSON log', (corpus) => {
      let both: TestStore;
      let clientOnly: TestStore;
      let app: TestApp;
      let reference: TestApp;
      const range = rangeOf(corpus);
      const clientIds = lines(corpus, 'client.ndjson').map((line) => (JSON.parse(line) as { id: string }).id);

      beforeAll(async () => {
        [both, clientOnly] = await Promise.all([kind.open(), kind.open()]);
        app = createTestApp(both.store);
        reference = createTestApp(clientOnly.store);
        await load(app, corpus, true);
        await load(reference, corpus, false);
      });
      afterAll(async () => {
        await both?.dispose();
        await clientOnly?.dispose();
      });

      it("lists each request once, as the client's record with the proxy's behind it, totalled as requests", async () => {
        const { rows, total } = await walk(app, range, 25);
        const alone = await walk(reference, range);
        expect(rows.map((row) => row.id).sort()).toEqual([...clientIds].sort());
        expect(total).toEqual({ count: clientIds.length, capped: false });
        // The client log's own list, row for row: same order, same outcome.
        expect(rows.map(outcome)).toEqual(alone.rows.map(outcome));
        expect(alone.total).toEqual(total);
        for (const row of rows) {
          expect(row.counted, row.id).toBe(true);
          expect(row.partnerRecord, row.id).toMatchObject({ source: 'proxy', counted: false, partner: row.id });
          expect(row.partnerRecord?.id).toBe(row.partner);
          expect(row.partnerRecord?.partnerRecord, 'one level deep').toBeUndefined();
        }
      });

      it("lists each server's failures once, the client log's failures", async () => {
        const failedIn = expectedFailures(corpus);
        for (const server of Object.keys(documents(corpus))) {
          const query = `${range}&server=${encodeURIComponent(server)}&failed=true`;
          // The actionability screen reads 25 at a time.
          const { rows, total } = await walk(app, query, 25);
          const alone = await walk(reference, query);
          expect(rows.map(outcome), server).toEqual(alone.rows.map(outcome));
          expect(rows.map((row) => row.id).sort(), server).toEqual(failedIn.get(server) ?? []);
          expect(total, server).toEqual({ count: rows.length, capped: false });
          expect(rows.every((row) => row.partnerRecord?.source === 'proxy')).toBe(true);
        }
        if (corpus === 'mcp-python') {
          // The numbers: the Actionability screen counts 67 failures, which its list showed as 115 rows.
          const listed = failedIn.get('release-desk')?.length;
          expect(listed).toBeGreaterThan(0);
          expect((await failuresPerServer(app, corpus, range)).get('release-desk')).toBe(listed);
        }
      });

      it('downloads a row per request, the NDJSON rows as the list answers them', async () => {
        const { rows } = await walk(app, range);
        const ndjson = ndjsonRows(await download(app, range, 'ndjson'));
        expect(ndjson).toEqual(rows);
        // A CSV row is the request, with what the proxy's record saw beside the client's.
        const csv = csvRecords(await download(app, range, 'csv'));
        expect(csv.map((record) => record.id)).toEqual(rows.map((row) => row.id));
        expect(csv.map((record) => [record['http.status'], record['partnerRecord.http.status']])).toEqual(
          rows.map((row) =>
            [row.http.status, row.partnerRecord?.http.status].map((s) => (s === null ? '' : String(s))),
          ),
        );
        expect(new Set(csv.map((record) => record['partnerRecord.source']))).toEqual(new Set(['proxy']));
        const failures = `${range}&failed=true`;
        const failed = (await walk(app, failures)).rows.map((row) => row.id);
        expect(csvIds(await download(app, failures, 'csv'))).toEqual(failed);
        expect(failed.length).toBe([...expectedFailures(corpus).values()].flat().length);
      });

      it('lists both records of every request with records=all, in the list, its total and its downloads', async () => {
        const { rows, total } = await walk(app, `${range}&records=all`, 40);
        expect(rows).toHaveLength(2 * clientIds.length);
        expect(total).toEqual({ count: 2 * clientIds.length, capped: false });
        const clients = rows.filter((row) => row.source === 'client');
        const proxies = rows.filter((row) => row.source === 'proxy');
        expect(clients.map((row) => row.id).sort()).toEqual([...clientIds].sort());
        expect(proxies.map((row) => row.partner).sort()).toEqual([...clientIds].sort());
        expect(proxies.every((row) => !row.counted)).toBe(true);
        // A record is its own row: nothing is behind it.
        expect(rows.every((row) => row.partnerRecord === null)).toBe(true);
        expect(ndjsonRows(await download(app, `${range}&records=all`, 'ndjson'))).toEqual(rows);
        expect(csvIds(await download(app, `${range}&records=all`, 'csv'))).toHaveLength(rows.length);
        const failedRecords = await walk(app, `${range}&records=all&failed=true`);
        const failedRequests = await walk(app, `${range}&failed=true`);
        // A proxy logs 200 for an error in the body: records that failed are fewer than twice the failed requests.
        expect(failedRecords.rows.length).toBeGreaterThan(failedRequests.rows.length);
        expect(failedRecords.rows.length).toBeLessThanOrEqual(2 * failedRequests.rows.length);
      });
    });

    describe('edges', () => {
      let db: TestStore;
      let app: TestApp;
      beforeAll(async () => {
        db = await kind.open();
        app = createTestApp(db.store);
      });
      afterAll(async () => db?.dispose());

      it('answers an empty store with no rows and a total of 0', async () => {
        for (const records of ['counted', 'all']) {
          expect(await page(app, `records=${records}`)).toEqual({
            events: [],
            nextCursor: null,
            total: { count: 0, capped: false },
          });
        }
        expect(await download(app, 'from=0', 'ndjson')).toBe('');
      });

      it('counts only the lists an index holds in order; a bucket, kind or fleet of failures says no total', async () => {
        const server = `total-${uniqueId()}`;
        const ts = (s: number) => new Date(Date.parse('2026-11-02T08:00:00Z') + s * 1000).toISOString();
        await postNdjson(app, [
          clientEvent({ server, ts: ts(1) }),
          clientEvent({ server, ts: ts(2), response: rpcError(-32602, 'unknown tool') }),
          clientEvent({ server, ts: ts(3), http: { method: 'POST', path: '/mcp', status: 503 }, response: null }),
        ]);
        const totalOf = async (query: string) => (await page(app, `server=${server}&${query}`)).total;
        expect(await totalOf('limit=1')).toEqual({ count: 3, capped: false });
        expect(await totalOf('failed=true')).toEqual({ count: 2, capped: false });
        expect(await totalOf('client=agent-7')).toEqual({ count: 3, capped: false });
        for (const query of ['bucket=refusal', 'kind=timeout', 'profile=110000', 'failed=true&client=agent-7']) {
          const answer = await page(app, `server=${server}&${query}`);
          expect(answer.total, query).toBeNull();
          expect(answer.events.length, query).toBeLessThanOrEqual(2);
        }
        expect((await page(app, 'failed=true')).total).toBeNull();
        expect(await totalOf('failed=true&records=all')).toBeNull();
      });

      it("finds a request's other record however far apart in time a request id joined them", async () => {
        const server = `far-${uniqueId()}`;
        const requestId = uniqueId('rid');
        const client = clientEvent({
          server,
          ts: '2026-11-02T07:00:00.000Z',
          http: { method: 'POST', path: '/mcp', status: 200, requestId },
        });
        // The proxy's clock is off by hours: only the request id says it is the same request.
        const proxy = proxyEvent({
          server,
          ts: '2026-11-02T04:30:00.000Z',
          http: { method: 'POST', path: '/mcp', status: 200, requestId },
        });
        await postNdjson(app, [client]);
        await postNdjson(app, [proxy]);
        const list = await page(app, `server=${server}`);
        expect(list.events).toHaveLength(1);
        expect(list.events[0]).toMatchObject({ id: client.id, partnerRecord: { id: proxy.id, counted: false } });
      });

      it('refuses an unknown records value by name', async () => {
        const res = await get(app, '/api/v1/events?records=requests');
        expect(res.status).toBe(400);
        expect((await res.json()).error).toMatchObject({ code: 'invalid_request', field: 'records' });
      });

      it('joins Unicode ids, keeps a lone proxy record as its own request, and a malformed line changes nothing', async () => {
        const server = `bücher-${uniqueId('ü')}`;
        const ts = '2026-11-02T09:00:00.000Z';
        const client = clientEvent({
          id: `请求-${uniqueId('é')}`,
          client: 'agent-ø',
          server,
          ts,
          http: { method: 'POST', path: '/mcp', status: 200, requestId: 'req-ß-1' },
          response: rpcError(-32602, 'unknown tool'),
        });
        const proxy = proxyEvent({
          id: `прокси-${uniqueId('ж')}`,
          server,
          ts,
          http: { method: 'POST', path: '/mcp', status: 200, requestId: 'req-ß-1' },
          latencyMs: 3,
        });
        const lone = proxyEvent({
          server,
          ts: '2026-11-02T09:05:00.000Z',
          http: { method: 'GET', path: '/sse', status: 404, requestId: 'req-ß-2' },
        });
        const res = await postNdjson(app, [proxy, '{"ts": "not json', client, lone]);
        expect(await res.json()).toMatchObject({ accepted: 3, rejectedTotal: 1 });
        const list = await page(app, `server=${encodeURIComponent(server)}`);
        expect(list.total).toEqual({ count: 2, capped: false });
        expect(list.events.map((row) => [row.id, row.source, row.partnerRecord?.id ?? null])).toEqual([
          [lone.id, 'proxy', null],
          [client.id, 'client', proxy.id],
        ]);
        // The client's outcome: the proxy saw 200, the client a -32602 in the body.
        expect(list.events[1]).toMatchObject({ bucket: 'refusal', partnerRecord: { bucket: 'ok', latencyMs: 3 } });
        const failures = await page(app, `server=${encodeURIComponent(server)}&failed=true`);
        expect(failures.events.map((row) => row.id)).toEqual([lone.id, client.id]);
        const records = await page(app, `server=${encodeURIComponent(server)}&records=all`);
        expect(records.events.map((row) => row.id).sort()).toEqual([client.id, proxy.id, lone.id].sort());
      });
    });
  });
});
