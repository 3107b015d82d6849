import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lens, serverForSuite } from '../support/cli.ts';
import { CORPORA, type CorpusName, corpusPath, corpusText, expectedOf } from '../support/corpus.ts';

/** The command line on the corpus's access logs: offline (`classify`, `report`) and shipped (`ingest`). */

const JSON_LOG = 'nginx-access.json.log';
const COMBINED_LOG = 'nginx-access.combined.log';

/** Every recorded corpus, with each discovery file it has: a new corpus is held to the same join. */
const CORPUS_ROOT = new URL('../fixtures/corpus/', import.meta.url).pathname;
const DISCOVERY_FILES = ['discovery.json', 'discovery.servers.json'];
const EVERY_CORPUS = readdirSync(CORPUS_ROOT, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap(({ name }) =>
    DISCOVERY_FILES.filter((file) => existsSync(join(CORPUS_ROOT, name, file))).map((file) => [name, file] as const),
  );

/** A report's numbers without `seq`, which is an event's place in the merged stream: more lines, later places. */
function withoutSeq(report: unknown): unknown {
  return JSON.parse(JSON.stringify(report), (key, value) => (key === 'seq' ? undefined : value));
}

/** A combined log's line without the bytes sent, which no client record holds. */
function withoutBytes(line: string | undefined): string | undefined {
  return line?.replace(/" (\d{3}) \d+ "/, '" $1 "');
}

function lineCount(corpus: CorpusName, file: string): number {
  return corpusText(corpus, file)
    .split('\n')
    .filter((line) => line.trim() !== '').length;
}

describe('access logs on the command line', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lens-access-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The corpus's discovery document under its server's name: what names an access log's lines by their paths. */
  function discoveryFile(corpus: CorpusName): string {
    const server = expectedOf(corpus).server[0] as string;
    const path = join(dir, `${corpus}-discovery.json`);
    writeFileSync(path, JSON.stringify({ servers: { [server]: JSON.parse(corpusText(corpus, 'discovery.json')) } }));
    return path;
  }

  describe.each(CORPORA)('the recorded %s corpus', (corpus) => {
    const server = expectedOf(corpus).server[0] as string;
    const protocol = corpus === 'a2a-js' ? 'a2a' : 'mcp';

    it('classifies a JSON access log, detected: every line an event, the undeclared paths refused', async () => {
      const args = ['--discovery', discoveryFile(corpus), '--server', server, '--protocol', protocol];
      const { code, stdout, stderr } = await lens(['classify', ...args, corpusPath(corpus, JSON_LOG)]);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      const events = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(events).toHaveLength(lineCount(corpus, JSON_LOG));
      expect(events.every((e) => e.id.startsWith('px:'))).toBe(true);
      // A 404 on a path the server's discovery document does not declare needs no body to be a refusal.
      const undeclared = Object.values(expectedOf(corpus).events).filter((e) => e.kind === 'not_declared');
      expect(events.filter((e) => e.kind === 'not_declared')).toHaveLength(undeclared.length);
    });

    it.each([JSON_LOG, COMBINED_LOG])('reports the client log with %s as the client log alone', async (log) => {
      const discovery = ['--discovery', discoveryFile(corpus)];
      const alone = await lens(['report', '--json', ...discovery, corpusPath(corpus, 'client.ndjson')]);
      const both = await lens([
        'report',
        '--json',
        ...discovery,
        '--server',
        server,
        '--protocol',
        protocol,
        corpusPath(corpus, 'client.ndjson'),
        corpusPath(corpus, log),
      ]);
      expect(both.stderr).toBe('');
      expect(both.code).toBe(0);
      // Each request counted once, with the client's view: the numbers are the client log's.
      const { events, buckets, avoidable, denialsNotHeld } = JSON.parse(both.stdout);
      const expected = JSON.parse(alone.stdout);
      expect({ events, buckets, byServer: avoidable.byServer, denialsNotHeld }).toEqual({
        events: expected.events,
        buckets: expected.buckets,
        byServer: expected.avoidable.byServer,
        denialsNotHeld: expected.denialsNotHeld,
      });
    });

    it('reports the denials that did not hold of expected.json, each across a new session', async () => {
      const { stdout, code } = await lens([
        'report',
        '--json',
        '--discovery',
        discoveryFile(corpus),
        corpusPath(corpus, 'client.ndjson'),
      ]);
      expect(code).toBe(0);
      const { denialsNotHeld } = JSON.parse(stdout);
      const scenarios = Object.values(expectedOf(corpus).scenarios) as { denialsThatDidNotHold?: unknown[] }[];
      const expected = scenarios.flatMap((s) => s.denialsThatDidNotHold ?? []);
      const found = denialsNotHeld.items.map(
        (d: { identity: string; refusal: { id: string }; answer: { id: string }; newSession: boolean }) => ({
          identity: d.identity,
          refused: d.refusal.id,
          laterAnswered: d.answer.id,
          newSessionInBetween: d.newSession,
        }),
      );
      expect(found).toEqual(expect.arrayContaining(expected));
      expect(denialsNotHeld.total).toBe(expected.length);
      expect(Object.values(denialsNotHeld.byServer).reduce((a: number, b) => a + (b as number), 0)).toBe(
        expected.length,
      );
    });
  });

  describe.each(EVERY_CORPUS)("the README's `report` line on %s with %s, no --server", (corpus, discovery) => {
    const path = (file: string) => join(CORPUS_ROOT, corpus, file);
    let alone: { code: number; stdout: string; stderr: string };
    beforeAll(async () => {
      alone = await lens(['report', '--json', '--discovery', path(discovery), path('client.ndjson')]);
    });

    it.each([JSON_LOG, COMBINED_LOG])('counts the client log with %s as the client log alone', async (log) => {
      expect(alone.code, alone.stderr).toBe(0);
      // Each proxy line takes the server of the client record of the same request (request id, traceparent, or
      // method, path and time): it joins that record and counts once, with the client's view.
      const both = await lens(['report', '--json', '--discovery', path(discovery), path('client.ndjson'), path(log)]);
      expect(both.stderr).toBe('');
      expect(both.code).toBe(0);
      const clientLog = JSON.parse(alone.stdout);
      const joined = JSON.parse(both.stdout);
      expect(joined.events).toBe(readFileSync(path('client.ndjson'), 'utf8').trim().split('\n').length);
      expect(Object.keys(joined.avoidable.byClient).sort()).toEqual(Object.keys(clientLog.avoidable.byClient).sort());
      expect(withoutSeq(joined)).toEqual(withoutSeq(clientLog));
    });

    it.each([JSON_LOG, COMBINED_LOG])(
      "classifies each line of %s as its true request's: its client record's server, and that record as partner",
      async (log) => {
        const { code, stdout } = await lens([
          'classify',
          '--discovery',
          path(discovery),
          path('client.ndjson'),
          path(log),
        ]);
        expect(code).toBe(0);
        const byId = new Map(
          stdout
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line))
            .map((line) => [line.id, line]),
        );
        // nginx wrote both logs at once, so line i of one is line i of the other; correlation.json says which
        // client request got which $request_id (a request the client gave up on before the answer has none).
        const requestIdOf: Record<string, string> = JSON.parse(readFileSync(path('correlation.json'), 'utf8'));
        const clientOf = new Map(Object.entries(requestIdOf).map(([id, requestId]) => [requestId, id]));
        const jsonLines = readFileSync(path(JSON_LOG), 'utf8').trim().split('\n');
        const lineOf = new Map(jsonLines.map((text, i) => [clientOf.get(JSON.parse(text).request_id), i]));
        const logLines = readFileSync(path(log), 'utf8').trim().split('\n');
        const servers = new Map(
          readFileSync(path('client.ndjson'), 'utf8')
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line))
            .map((e) => [e.id, e.server]),
        );
        expect(byId.size).toBe(servers.size + logLines.length);
        const copies = new Map<string, number>();
        let known = 0;
        for (const [i, text] of logLines.entries()) {
          const digest = createHash('sha256').update(text).digest('hex').slice(0, 32);
          const copy = copies.get(digest) ?? 0;
          copies.set(digest, copy + 1);
          const line = byId.get(copy === 0 ? `px:${digest}` : `px:${digest}#${copy}`);
          expect(line, text).toMatchObject({ source: 'proxy', server: servers.get(line?.partner) });
          const truth = clientOf.get(JSON.parse(jsonLines[i] as string).request_id);
          if (truth === undefined) continue;
          known++;
          // The true partner, or for a combined log one it cannot tell from it: the same second, request, status
          // and user agent (whole seconds and no request id leave alike lines alike).
          const partnerLine = logLines[lineOf.get(line?.partner) ?? -1];
          expect(log === JSON_LOG ? line?.partner : withoutBytes(partnerLine), text).toBe(
            log === JSON_LOG ? truth : withoutBytes(text),
          );
        }
        expect(known).toBeGreaterThan(logLines.length - 3);
      },
    );

    it('names a line by the client records alone when the proxy log comes first, and keeps a line no one sent', async () => {
      const stray = JSON.stringify({
        msec: '1796179999.000',
        request_method: 'GET',
        request_uri: '/nobody/sent/this',
        status: 404,
        request_time: 0.001,
        http_user_agent: 'scanner/1.0',
      });
      const strayLog = join(dir, `${corpus}-${discovery}-stray.json.log`);
      writeFileSync(strayLog, `${readFileSync(path(JSON_LOG), 'utf8')}${stray}\n`);
      const both = await lens(['report', '--json', '--discovery', path(discovery), strayLog, path('client.ndjson')]);
      expect(both.code).toBe(0);
      const joined = JSON.parse(both.stdout);
      expect(joined.events).toBe(JSON.parse(alone.stdout).events + 1);
      // The one line no client record is the request of stays under no server, and says so.
      expect(joined.avoidable.byClient['scanner/1.0']).toMatchObject({ requests: 1 });
      expect(joined.avoidable.byServer.unknown).toMatchObject({ requests: 1 });
      expect(both.stderr).toBe(
        'lens report: 1 access-log line(s) named no server and matched no client record, so they are counted under ' +
          `their host or "unknown" (the first: ${strayLog}:${lineCount(corpus as CorpusName, JSON_LOG) + 1}: no ` +
          'server configured for no host, path "/nobody/sent/this": named "unknown"); name their server with ' +
          '--server NAME, --proxy-map FILE, or a --discovery file of {"servers":{"NAME":DOCUMENT}} declaring their paths\n',
      );
    });
  });

  describe('ingest against a running server', () => {
    const server = serverForSuite(() => join(dir, 'data'));
    const total = () => server.total('from=2026-12-01T00:00:00Z&to=2026-12-03T00:00:00Z');

    it('ships a rotated, gzipped access log, detected, and ships nothing twice on the next run', async () => {
      const log = join(dir, 'access.log.2.gz');
      writeFileSync(log, gzipSync(readFileSync(corpusPath('mcp-python', JSON_LOG))));
      const state = join(dir, 'state.json');
      const args = ['ingest', log, '--url', server.url(), '--server', 'release-desk', '--state', state];
      const first = await lens([...args, '--batch-lines', '50']);
      expect(first.stderr).toMatch(/120 accepted, 0 duplicate, 0 rejected/);
      expect(first.code).toBe(0);
      expect(await total()).toBe(lineCount('mcp-python', JSON_LOG));
      const second = await lens(args);
      expect(second.code).toBe(0);
      expect(second.stderr).toBe(
        `${log}: already sent to ${server.url()} (up to line 120), nothing new since; --restart sends it again\n`,
      );
      const again = await lens([...args, '--restart']);
      expect(again.stderr).toMatch(/0 accepted, 120 duplicate, 0 rejected/);
      expect(await total()).toBe(lineCount('mcp-python', JSON_LOG));
    });

    it('refuses a format it has no reader for, before sending anything', async () => {
      const { code, stderr } = await lens([
        'ingest',
        corpusPath('mcp-python', JSON_LOG),
        '--url',
        server.url(),
        '--format',
        'apache',
      ]);
      expect(code).toBe(2);
      expect(stderr).toContain('--format must be auto or one of native, nginx-json');
    });
  });
});
