import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { analysed, createTestApp, get, putJson, type TestApp } from '../support/app.ts';
import { CORPORA, type CorpusName, corpusText, expectedOf, ruleNumber } from '../support/corpus.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';

/**
 * One request, counted once (DOMAIN.md section 2), on the recorded corpus: the client logs and the access logs
 * nginx wrote for the same requests, with correlation.json saying which line is which request.
 */

interface StoredEvent {
  id: string;
  ts: string;
  source: 'client' | 'proxy';
  client: string | null;
  counted: boolean;
  partner: string | null;
  http: { method: string | null; path: string | null; status: number | null; requestId: string | null };
  proxy: { userAgent?: string } | null;
  bucket: string;
  rule: string;
}

const RANGE = 'from=2026-12-01T00:00:00Z&to=2026-12-03T00:00:00Z';
const JSON_LOG = 'nginx-access.json.log';
const COMBINED_LOG = 'nginx-access.combined.log';

function lines(corpus: CorpusName, file: string): string[] {
  return corpusText(corpus, file)
    .split('\n')
    .filter((line) => line.trim() !== '');
}

/** Client event id → nginx `$request_id` of its line: correlation.json, and the one request joined by traceparent. */
function truthOf(corpus: CorpusName): Map<string, string> {
  const expected = JSON.parse(corpusText(corpus, 'expected.json')) as {
    stats: { joinedByTraceparent: Record<string, string> };
  };
  const correlation = JSON.parse(corpusText(corpus, 'correlation.json')) as Record<string, string>;
  return new Map(Object.entries({ ...correlation, ...expected.stats.joinedByTraceparent }));
}

describe.each(STORE_KINDS)('client and proxy records of the corpus on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeEach(async () => {
      db = await kind.open();
      app = createTestApp(db.store);
    });
    afterEach(async () => db.dispose());

    async function declare(corpus: CorpusName) {
      const server = expectedOf(corpus).server[0] as string;
      const res = await putJson(
        app,
        `/api/v1/servers/${server}/discovery`,
        JSON.parse(corpusText(corpus, 'discovery.json')),
      );
      expect(res.status).toBe(200);
      return server;
    }

    async function post(query: string, body: string[], type: string) {
      const res = await app.request(`/api/v1/ingest${query}`, {
        method: 'POST',
        headers: { 'content-type': type, host: '127.0.0.1:7700' },
        body: `${body.join('\n')}\n`,
      });
      expect(res.status).toBe(200);
      await analysed(app);
      const report = await res.json();
      expect(report).toMatchObject({ rejectedTotal: 0 });
      return report as { accepted: number; duplicates: number; warningsTotal: number };
    }

    const postClient = (body: string[]) => post('', body, 'application/x-ndjson');

    function postLog(corpus: CorpusName, format: string, body: string[], server?: string) {
      const protocol = corpus === 'a2a-js' ? 'a2a' : 'mcp';
      const named = server === undefined ? '' : `&server=${server}`;
      return post(`?format=${format}${named}&protocol=${protocol}`, body, 'text/plain');
    }

    async function stored(): Promise<StoredEvent[]> {
      const page = await (await get(app, '/api/v1/events?records=all&limit=1000')).json();
      return page.events as StoredEvent[];
    }

    async function summary() {
      return (await (await get(app, `/api/v1/summary?${RANGE}`)).json()).overall as {
        total: number;
        avoidable: number;
        buckets: Record<string, number>;
      };
    }

    function expectJoinedToTruth(events: readonly StoredEvent[], corpus: CorpusName) {
      const truth = truthOf(corpus);
      const byId = new Map(events.map((e) => [e.id, e]));
      const clients = events.filter((e) => e.source === 'client');
      expect(clients).toHaveLength(truth.size);
      for (const client of clients) {
        const proxy = client.partner === null ? undefined : byId.get(client.partner);
        expect(proxy?.http.requestId, client.id).toBe(truth.get(client.id));
        expect(proxy?.partner, client.id).toBe(client.id);
        expect(proxy?.counted, client.id).toBe(false);
      }
    }

    it.each(CORPORA)('%s: client log + JSON access log, each request joined to its true partner', async (corpus) => {
      const server = await declare(corpus);
      await postClient(lines(corpus, 'client.ndjson'));
      const clientOnly = await summary();
      const report = await postLog(corpus, 'nginx-json', lines(corpus, JSON_LOG), server);
      expect(report).toMatchObject({ accepted: lines(corpus, JSON_LOG).length, duplicates: 0, warningsTotal: 0 });

      expectJoinedToTruth(await stored(), corpus);
      // The client's view wins: the numbers are the client log's, as if no proxy had logged anything.
      expect(await summary()).toEqual(clientOnly);
    });

    it.each(CORPORA)(
      '%s: the same pairs and counts with the access log first, in small mixed batches',
      async (corpus) => {
        const server = await declare(corpus);
        const client = lines(corpus, 'client.ndjson');
        const proxy = lines(corpus, JSON_LOG);
        // Proxy lines run ahead: each client batch finds some partners stored, others arrive after it.
        for (let i = 0, j = 0; i < client.length || j < proxy.length; i += 13, j += 17) {
          if (j < proxy.length) await postLog(corpus, 'nginx-json', proxy.slice(j, j + 17), server);
          if (i < client.length) await postClient(client.slice(i, i + 13));
        }
        expectJoinedToTruth(await stored(), corpus);
        const mixed = await summary();

        const alone = await kind.open();
        try {
          const other = createTestApp(alone.store);
          await putJson(other, `/api/v1/servers/${server}/discovery`, JSON.parse(corpusText(corpus, 'discovery.json')));
          await other.request('/api/v1/ingest', {
            method: 'POST',
            headers: { 'content-type': 'application/x-ndjson', host: '127.0.0.1:7700' },
            body: corpusText(corpus, 'client.ndjson'),
          });
          await analysed(other);
          expect(mixed).toEqual((await (await get(other, `/api/v1/summary?${RANGE}`)).json()).overall);
        } finally {
          await alone.dispose();
        }
      },
    );

    it.each(CORPORA)(
      '%s: a combined log (whole seconds, no request id) never counts a request twice',
      async (corpus) => {
        const server = await declare(corpus);
        await postClient(lines(corpus, 'client.ndjson'));
        const clientOnly = await summary();
        const combined = lines(corpus, COMBINED_LOG);
        const report = await postLog(corpus, 'nginx-combined', combined, server);
        // Two alike requests within one second are two equal lines, and two events.
        expect(report).toMatchObject({ accepted: combined.length, duplicates: 0 });
        expect(await summary()).toEqual(clientOnly);

        // nginx writes both logs at the same moment, so line i of one is line i of the other. A pair is right when
        // the proxy record joined is the true line, or a line no access log could tell from it (same second, method,
        // path, status and user agent).
        const events = await stored();
        const truth = truthOf(corpus);
        const requestIds = lines(corpus, JSON_LOG).map(
          (line) => (JSON.parse(line) as { request_id: string }).request_id,
        );
        const lineOfRequest = new Map(requestIds.map((id, index) => [id, combined[index] as string]));
        const byId = new Map(events.map((e) => [e.id, e]));
        let right = 0;
        for (const client of events.filter((e) => e.source === 'client')) {
          const partner = client.partner === null ? undefined : byId.get(client.partner);
          const trueLine = lineOfRequest.get(truth.get(client.id) as string) as string;
          if (partner !== undefined && sameLine(partner, trueLine)) right++;
        }
        // Measured on the corpus: every request of both joins right (README, "One request, counted once").
        expect(right).toBe(truth.size);
      },
    );

    it.each(CORPORA)(
      "%s: the access log alone decides what a status can, and shows the prober's storm",
      async (corpus) => {
        const server = await declare(corpus);
        await postLog(corpus, 'nginx-json', lines(corpus, JSON_LOG), server);
        const expected = expectedOf(corpus).events;
        const clientOf = new Map([...truthOf(corpus)].map(([event, requestId]) => [requestId, event]));
        let decided = 0;
        for (const event of await stored()) {
          const want = expected[clientOf.get(event.http.requestId as string) as string];
          // A success status may carry a JSON-RPC error or a tool error in its body, which no access log shows;
          // a 404 on a declared path may be a method the body refused. Every other status speaks for itself.
          if ((event.http.status ?? 0) < 300 || event.rule === 'http.404.declared_path') continue;
          decided++;
          expect({ bucket: event.bucket, rule: ruleNumber(event.rule) }, event.id).toEqual({
            bucket: want?.bucket,
            rule: want?.rule,
          });
        }
        expect(decided).toBeGreaterThan(0);

        // The client of an access-log line is its user agent: the prober's probes are a storm from the log alone.
        const prober = corpus === 'mcp-python' ? 'prober' : 'card-prober';
        const agentOf = new Map(
          (await stored()).map((e) => [clientOf.get(e.http.requestId as string), e.proxy?.userAgent]),
        );
        const agent = agentOf.get(`${prober}-001`);
        const { storms } = await (await get(app, `/api/v1/storms?${RANGE}`)).json();
        expect(storms.find((s: { client: string; kind: string }) => s.client === agent)?.kind).toBe('probe_storm');
        const { clients } = await (await get(app, `/api/v1/clients?${RANGE}`)).json();
        const avoidable = Object.entries(expected).filter(([id, e]) => id.startsWith(`${prober}-`) && e.avoidable);
        expect(clients.find((c: { client: string }) => c.client === agent)?.avoidable).toBe(avoidable.length);
      },
    );
  });
});

/** Whether a stored proxy record is, as far as a combined log can tell, this line. */
function sameLine(event: StoredEvent, line: string): boolean {
  const match = /\[([^\]]+)\] "(\S+) (\S+) [^"]*" (\d{3}) \S+ "[^"]*" "([^"]*)"/.exec(line);
  if (match === null) return false;
  const [, time, method, path, status, agent] = match;
  const second = Date.parse(
    (time as string).replace(/^(\d+)\/(\w+)\/(\d+):(\d+:\d+:\d+) ([+-]\d{4})$/, '$2 $1 $3 $4 GMT$5'),
  );
  return (
    Date.parse(event.ts) === second &&
    event.http.method === method &&
    event.http.path === path &&
    event.http.status === Number(status) &&
    event.proxy?.userAgent === agent
  );
}
