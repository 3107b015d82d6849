import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppConfig } from '../../api/env.ts';
import { analysed, createTestApp, get, postNdjson, putJson, type TestApp } from '../support/app.ts';
import { corpusText } from '../support/corpus.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';

/**
 * Access logs through POST /api/v1/ingest?format=…: the readers' refusals and warnings in our report, the server a
 * line belongs to, and the client and proxy records of one request joined whichever batch commits first.
 */

const LINES = corpusText('mcp-python', 'nginx-access.json.log')
  .split('\n')
  .filter((line) => line.trim() !== '');
const CLIENT = corpusText('mcp-python', 'client.ndjson')
  .split('\n')
  .filter((line) => line.trim() !== '');
const RANGE = 'from=2026-12-01T00:00:00Z&to=2026-12-03T00:00:00Z';

/** One line of the corpus's nginx JSON log with some variables changed. */
function nginxLine(changes: Record<string, unknown>): string {
  return JSON.stringify({ ...JSON.parse(LINES[0] as string), ...changes });
}

describe.each(STORE_KINDS)('access logs through ingest on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeEach(async () => {
      db = await kind.open();
      app = createTestApp(db.store);
    });
    afterEach(async () => db.dispose());

    async function postLog(query: string, lines: readonly string[], target = app, type = 'text/plain') {
      const response = await target.request(`/api/v1/ingest?${query}`, {
        method: 'POST',
        headers: { 'content-type': type, host: '127.0.0.1:7700' },
        body: lines.join('\n'),
      });
      await analysed(target);
      return response;
    }

    async function events(query = '') {
      return (await (await get(app, `/api/v1/events?records=all&limit=1000&${query}`)).json()).events as {
        id: string;
        server: string;
        client: string | null;
        source: string;
        partner: string | null;
        counted: boolean;
      }[];
    }

    it('refuses a format it has no reader for, and an access log sent as a JSON array, saying what to send', async () => {
      const unknown = await postLog('format=apache', LINES);
      expect(unknown.status).toBe(400);
      expect((await unknown.json()).error).toMatchObject({
        code: 'invalid_request',
        field: 'format',
        retryable: false,
      });
      const asJson = await postLog('format=nginx-json', LINES, app, 'application/json');
      expect(asJson.status).toBe(415);
      expect((await asJson.json()).error.fix).toContain('text/plain');
      expect((await (await get(app, `/api/v1/summary?${RANGE}`)).json()).overall.total).toBe(0);
    });

    it('keeps every line of the format, refuses the others by line number, and stores nothing twice', async () => {
      const body = [LINES[0] as string, 'GET / HTTP/1.1 not a JSON line', '', LINES[1] as string, '{"msec":"x"}'];
      const res = await postLog('format=nginx-json&server=release-desk', body);
      expect(res.status).toBe(200);
      const report = await res.json();
      expect(report).toMatchObject({ accepted: 2, duplicates: 0, rejectedTotal: 2 });
      expect(report.rejected).toEqual([
        expect.objectContaining({ line: 2, code: 'not_the_format' }),
        expect.objectContaining({ line: 5, code: 'no_timestamp' }),
      ]);
      const again = await (await postLog('format=nginx-json&server=release-desk', LINES.slice(0, 2))).json();
      expect(again).toMatchObject({ accepted: 0, duplicates: 2 });
    });

    it('names each line by the discovery document that declares its path, else by its host, with a warning', async () => {
      const declared = await putJson(app, '/api/v1/servers/release-desk/discovery', {
        endpoints: [{ method: 'POST', path: '/mcp' }],
      });
      expect(declared.status).toBe(200);
      const report = await (
        await postLog('format=nginx-json', [
          nginxLine({ request_uri: '/mcp?x=1' }),
          nginxLine({ request_uri: '/sse', request_id: 'r-2', http_host: 'desk.example:8443' }),
          nginxLine({ request_uri: '/sse', request_id: 'r-3' }),
        ])
      ).json();
      expect(report).toMatchObject({ accepted: 3, warningsTotal: 2 });
      expect(report.warnings.map((w: { line: number; field: string }) => [w.line, w.field])).toEqual([
        [2, 'server'],
        [3, 'server'],
      ]);
      const servers = (await events()).map((e) => e.server).sort();
      expect(servers).toEqual(['desk.example:8443', 'release-desk', 'unknown']);
    });

    it("names lines by the operator's routes first (--proxy-map): the host, then the longest prefix", async () => {
      const routes: AppConfig['proxyRoutes'] = [
        { pathPrefix: '/', server: 'catch-all' },
        { pathPrefix: '/a2a/', server: 'relay-agent', protocol: 'a2a' },
        { host: 'desk.example', server: 'release-desk' },
      ];
      const routed = createTestApp(db.store, { proxyRoutes: routes });
      const res = await postLog(
        'format=nginx-json',
        [
          nginxLine({ request_uri: '/a2a/jsonrpc', request_id: 'a' }),
          nginxLine({ request_uri: '/mcp', http_host: 'desk.example:443', request_id: 'b' }),
          nginxLine({ request_uri: '/other', request_id: 'c' }),
        ],
        routed,
      );
      expect((await res.json()).warningsTotal).toBe(0);
      const byServer = Object.fromEntries((await events()).map((e) => [e.server, e]));
      expect(Object.keys(byServer).sort()).toEqual(['catch-all', 'relay-agent', 'release-desk']);
    });

    it('takes names from logs as data: a user agent "__proto__" is a client like any other', async () => {
      const res = await postLog('format=nginx-json&server=constructor', [nginxLine({ http_user_agent: '__proto__' })]);
      expect((await res.json()).accepted).toBe(1);
      const { clients } = await (await get(app, `/api/v1/clients?${RANGE}`)).json();
      expect(clients.map((c: { client: string }) => c.client)).toEqual(['__proto__']);
      expect((await get(app, `/api/v1/servers/constructor?${RANGE}`)).status).toBe(200);
    });

    it('joins the two records of a request sent in concurrent batches, whichever commits first', async () => {
      // Client and proxy batches of the same requests at once, in several rounds: on PostgreSQL they are separate
      // transactions, and each must see the other's rows committed (the join lock), or a request counts twice.
      const rounds = 4;
      const size = Math.ceil(CLIENT.length / rounds);
      const requests = Array.from({ length: rounds }, (_, round) => [
        postNdjson(app, CLIENT.slice(round * size, (round + 1) * size)),
        postLog('format=nginx-json&server=release-desk', LINES.slice(round * size, (round + 1) * size)),
      ]).flat();
      for (const res of await Promise.all(requests)) expect(res.status).toBe(200);
      const stored = await events();
      expect(stored).toHaveLength(CLIENT.length + LINES.length);
      expect(stored.filter((e) => e.counted)).toHaveLength(CLIENT.length);
      expect(stored.filter((e) => e.partner !== null)).toHaveLength(CLIENT.length * 2);
      expect((await (await get(app, `/api/v1/summary?${RANGE}`)).json()).overall.total).toBe(CLIENT.length);
    });
  });
});
