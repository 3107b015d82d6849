import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OfflineRun } from '../../api/cli/offline.ts';
import { startServer } from '../../api/server.ts';
import { syntheticLines } from '../../bench/generate.ts';
import type { HiddenFinding } from '../../shared/actionability/index.ts';
import { actionabilityReport } from '../../shared/actionability/summary.ts';
import { clientConduct } from '../../shared/analysis/conduct.ts';
import { contextGapByServer, gapSummary } from '../../shared/analysis/context-gap.ts';
import { auditDenials, denialSummary, replaysPerClient } from '../../shared/analysis/denials.ts';
import { replayGate } from '../../shared/analysis/gate.ts';
import { topIdentities } from '../../shared/analysis/identities.ts';
import { detectStorms, summariseAvoidable } from '../../shared/analysis/storms.ts';
import type { AnalysisEvent } from '../../shared/analysis/types.ts';
import { BUCKETS } from '../../shared/classify/types.ts';
import { isSentByServer } from '../../shared/frames.ts';
import { type JoinFacts, pairRecords } from '../../shared/request-join.ts';
import { lens, serverForSuite } from '../support/cli.ts';
import { CORPORA, corpusPath, corpusText, type Expected, expectedOf } from '../support/corpus.ts';
import { clientEvent, proxyEvent } from '../support/events.ts';

function avoidableFlags(stdout: string): (boolean | null)[] {
  return stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l).avoidable);
}

/**
 * The report as it was computed before it streamed: every event of the logs in memory, ids and proxy records
 * de-duplicated over the whole log, and the array functions over them. Storms lose their timelines, which the
 * streamed report does not keep.
 */
async function arrayReport(args: string[]) {
  const byId = new Map<string, AnalysisEvent>();
  const sides: Record<JoinFacts['source'], JoinFacts[]> = { client: [], proxy: [] };
  const profiles = new Map<string, number | null>();
  const hidden = new Map<string, HiddenFinding>();
  for await (const { analysis, join, profile, hidden: finding } of (
    await OfflineRun.fromArgs('report', args)
  ).events()) {
    analysis.counted = true;
    if (byId.has(analysis.id)) continue;
    byId.set(analysis.id, analysis);
    profiles.set(analysis.id, profile);
    if (finding !== null) hidden.set(analysis.id, finding);
    sides[analysis.source].push(join);
  }
  for (const { proxy } of pairRecords(sides.client, sides.proxy))
    (byId.get(proxy.eventId) as AnalysisEvent).counted = false;
  const events = [...byId.values()];
  const counted = events.filter((e) => e.counted);
  const verdicts = replayGate(events);
  const avoidable = summariseAvoidable(events, verdicts);
  const audit = auditDenials(events);
  const bucketsOf = (some: AnalysisEvent[]) =>
    Object.fromEntries(BUCKETS.map((b) => [b, some.filter((e) => e.bucket === b).length]));
  const times = counted.map((e) => e.ts);
  const report = {
    events: counted.length,
    span:
      counted.length === 0
        ? null
        : { first: new Date(Math.min(...times)).toISOString(), last: new Date(Math.max(...times)).toISOString() },
    buckets: bucketsOf(counted),
    bucketsByServer: Object.fromEntries(
      avoidable.byServer.map(({ server }) => [server, bucketsOf(counted.filter((e) => e.server === server))]),
    ),
    avoidable: {
      byClient: Object.fromEntries(avoidable.byClient.map(({ client, ...rest }) => [client, rest])),
      byServer: Object.fromEntries(avoidable.byServer.map(({ server, ...rest }) => [server, rest])),
    },
    storms: detectStorms(events, verdicts).map(({ timeline, ...storm }) => ({
      ...storm,
      attemptIds: timeline.map((a) => a.id),
      avoidableIds: timeline.filter((a) => a.avoidable).map((a) => a.id),
    })),
    identities: topIdentities(events, 20),
    contextGap: Object.fromEntries([...contextGapByServer(events)].map(([server, gap]) => [server, gapSummary(gap)])),
    conduct: Object.fromEntries(clientConduct(events, verdicts).map(({ client, ...rest }) => [client, rest])),
    denialsNotHeld: denialSummary(audit.notHeld, replaysPerClient(audit.replayed)),
    actionability: {
      ...actionabilityReport(
        counted.flatMap((e) => {
          const packed = profiles.get(e.id) ?? null;
          return packed === null ? [] : [{ server: e.server, packed, failures: 1 }];
        }),
      ),
      hiddenFailures: [...counted]
        .sort((a, b) => a.ts - b.ts || a.seq - b.seq)
        .flatMap((e) => {
          const finding = hidden.get(e.id);
          if (finding === undefined) return [];
          const at = new Date(e.ts).toISOString();
          return [{ id: e.id, ts: at, server: e.server, client: e.client, tool: e.rpcName, ...finding }];
        }),
    },
  };
  return JSON.parse(JSON.stringify(report));
}

describe('the command line', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lens-cli-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('classifies a log offline with a per-server discovery file, one JSON line per event', async () => {
    const discovery = write(
      'discovery.json',
      JSON.stringify({ servers: { notes: { endpoints: [{ path: '/mcp' }] } } }),
    );
    const undeclared = proxyEvent({ server: 'notes', http: { method: 'POST', path: '/mcp/sse', status: 404 } });
    const unknown = proxyEvent({ server: 'elsewhere', http: { method: 'POST', path: '/mcp/sse', status: 404 } });
    const log = write(
      'a.ndjson',
      `${JSON.stringify(undeclared)}\n${JSON.stringify(clientEvent({ id: 'c-1' }))}\n${JSON.stringify(unknown)}\n`,
    );
    const { code, stdout } = await lens(['classify', '--discovery', discovery, log]);
    expect(code).toBe(0);
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({
      id: undeclared.id,
      bucket: 'refusal',
      kind: 'not_declared',
      evidence: 'http_status',
    });
    expect(Object.keys(lines[0])).toEqual([
      'id',
      'ts',
      'source',
      'client',
      'server',
      'method',
      'http',
      'status',
      'code',
      'bucket',
      'kind',
      'rule',
      'evidence',
      'outcome',
      'continuation',
      'era',
      'identity',
      'avoidable',
      'profile',
    ]);
    expect(lines[0]).toMatchObject({
      ts: new Date(undeclared.ts as string).toISOString(),
      source: 'proxy',
      server: 'notes',
      http: 'POST /mcp/sse',
      status: 404,
      code: null,
    });
    expect(lines[0].profile).toBe('000000');
    expect(lines[1]).toMatchObject({ id: 'c-1', bucket: 'ok' });
    expect(lines[1].identity).toMatch(/^release-notes:[0-9a-f]{32}$/);
    expect(lines[2]).toMatchObject({ bucket: 'ambiguous', kind: 'unclassifiable_no_discovery' });
  });

  it("reports seed 000's numbers offline: 19 of the prober's 22 requests and 2 of the retrier's 3 avoidable", async () => {
    const discovery = write('seed.json', JSON.stringify({ endpoints: [{ method: 'POST', path: '/mcp' }] }));
    const paths = ['/mcp/mcp', '/mcp/sse', '/mcp/a2a/'];
    const t0 = Date.parse('2026-11-02T10:00:00Z');
    const probes = Array.from({ length: 22 }, (_, i) =>
      proxyEvent({
        source: 'client',
        client: 'prober',
        server: 'mcp',
        ts: t0 + i * 1000,
        http: { method: 'POST', path: paths[i % 3], status: 404 },
      }),
    );
    const call = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get', arguments: { slug: 'missing' } },
    };
    const retries = [0, 1, 2].map((i) =>
      clientEvent({
        client: 'third',
        server: 'mcp',
        ts: t0 + i * 1000,
        request: { ...call, id: i + 2 },
        response: { jsonrpc: '2.0', id: i + 2, error: { code: -32602, message: 'Unknown record' } },
      }),
    );
    // Out of time order on purpose (by 22 s at most): both commands read through a 60 s reorder buffer.
    const lines = [...retries.reverse(), ...probes.reverse()].map((e) => JSON.stringify(e));
    const log = write('seed.ndjson', `${lines.join('\n')}\n`);
    const { code, stdout } = await lens(['report', '--json', '--discovery', discovery, log]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.events).toBe(25);
    expect(report.avoidable.byClient.prober).toMatchObject({ requests: 22, avoidable: 19 });
    expect(report.avoidable.byClient.third).toMatchObject({ requests: 3, avoidable: 2 });
    expect(report.storms.find((s: { kind: string }) => s.kind === 'probe_storm')).toMatchObject({
      client: 'prober',
      attempts: 22,
      avoidable: 19,
    });
    expect(report.conduct.prober.retriedAfterRefusal).toBe(19);
    expect(Object.keys(report)).toEqual([
      'events',
      'span',
      'buckets',
      'bucketsByServer',
      'avoidable',
      'storms',
      'identities',
      'contextGap',
      'conduct',
      'denialsNotHeld',
      'actionability',
    ]);
    const classified = await lens(['classify', '--discovery', discovery, log]);
    expect(avoidableFlags(classified.stdout).filter((f) => f)).toHaveLength(21);
    expect(classified.stderr).toBe('');

    // A line later than the buffer can wait for is not judged: classify says null rather than guess, report counts it.
    const late = proxyEvent({ ...probes[0], id: 'late-probe', ts: t0 + 10_500 });
    const after = clientEvent({ client: 'third', server: 'mcp', ts: t0 + 200_000 });
    const straggling = write(
      'late.ndjson',
      `${[...[...probes].reverse(), after, late].map((e) => JSON.stringify(e)).join('\n')}\n`,
    );
    const judged = await lens(['classify', '--discovery', discovery, straggling]);
    expect(judged.code).toBe(0);
    const verdicts = judged.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(verdicts.find((v) => v.id === 'late-probe')).toMatchObject({ avoidable: null });
    expect(judged.stderr).toBe(
      'lens classify: 1 event(s) out of time order beyond the 60 s reorder window: their "avoidable" is null\n',
    );
    const counted = await lens(['report', '--json', '--discovery', discovery, straggling]);
    expect(JSON.parse(counted.stdout).avoidable.byClient.prober).toMatchObject({ requests: 23, avoidable: 19 });
    expect(counted.stderr).toContain(
      '1 event(s) out of time order beyond the 60 s reorder window: counted, not judged',
    );
  });

  it('classifies without a discovery file: a 404 is unclassifiable_no_discovery, noted once on stderr', async () => {
    const probe = (path: string) => proxyEvent({ client: 'prober', http: { method: 'POST', path, status: 404 } });
    const log = write(
      'no-discovery.ndjson',
      `${[probe('/mcp/sse'), clientEvent(), probe('/a2a')].map((e) => JSON.stringify(e)).join('\n')}\n`,
    );
    const { code, stdout, stderr } = await lens(['classify', log]);
    expect(code).toBe(0);
    const kinds = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).kind);
    expect(kinds).toEqual(['unclassifiable_no_discovery', 'ok', 'unclassifiable_no_discovery']);
    expect(stderr).toBe(
      'lens classify: no --discovery file: 2 404 answer(s) read as unclassifiable_no_discovery; ' +
        'a discovery document would decide them\n',
    );
    const report = await lens(['report', '--json', log]);
    expect(report.code).toBe(0);
    expect(JSON.parse(report.stdout).buckets).toMatchObject({ ok: 1, ambiguous: 2 });
    expect(report.stderr.match(/no --discovery file/g)).toHaveLength(1);
  });

  it('reads a log split over two files as the whole log, merged in time order', async () => {
    const discovery = write('split.json', JSON.stringify({ endpoints: [{ method: 'POST', path: '/mcp' }] }));
    // 2000 lines over 200 s, rotated into two files that overlap a little, named newest first (as `ls app.log*` lists
    // them): read one after the other, the older file would come minutes too late for the gate.
    const lines = [...syntheticLines(2000, 7, Date.parse('2026-11-02T00:00:00Z'), 100)];
    const whole = write('whole.ndjson', `${lines.join('\n')}\n`);
    const older = write('app.log.1', `${[...lines.slice(0, 1000), lines[1100]].join('\n')}\n`);
    const newer = write('app.log', `${[...lines.slice(1000, 1100), ...lines.slice(1101)].join('\n')}\n`);
    for (const command of ['classify', 'report']) {
      const one = await lens([command, '--discovery', discovery, whole]);
      const two = await lens([command, '--discovery', discovery, newer, older]);
      expect(one.code).toBe(0);
      expect(two.code).toBe(0);
      expect(two.stdout).toBe(one.stdout);
      expect(two.stderr).toBe(one.stderr);
    }
  });

  it('lists the first 20 dropped members as FILE:LINE: field: message, then their total', async () => {
    const odd = Array.from({ length: 25 }, () => JSON.stringify(clientEvent({ latencyMs: 'fast' })));
    const log = write('odd.ndjson', `${odd.join('\n')}\n`);
    const { code, stdout, stderr } = await lens(['classify', '--discovery', write('d.json', '{"endpoints":[]}'), log]);
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toHaveLength(25);
    const notes = stderr.trim().split('\n');
    expect(notes).toHaveLength(21);
    expect(notes[0]).toBe(`${log}:1: latencyMs: dropped: must be a non-negative number of milliseconds`);
    expect(notes[19]).toMatch(new RegExp(`^${log}:20: latencyMs: `));
    expect(notes[20]).toBe(
      'lens classify: 25 member(s) dropped with a warning (the first 20 are listed above); their events were kept',
    );
  });

  describe.each(CORPORA)('the recorded %s corpus', (corpus) => {
    const expected = expectedOf(corpus) as Expected & {
      scenarios: Record<string, { avoidable: number; avoidableEvents: string[] }>;
    };
    const args = ['--discovery', corpusPath(corpus, 'discovery.json'), corpusPath(corpus, 'client.ndjson')];

    it('reports every line, with the avoidable requests of expected.json per client and in all', async () => {
      const { code, stdout, stderr } = await lens(['report', '--json', ...args]);
      expect(code).toBe(0);
      expect(stderr).toBe('');
      const report = JSON.parse(stdout);
      expect(report.events).toBe(Object.keys(expected.events).length);
      const avoidableOf = (rows: Record<string, { avoidable: number }>) =>
        Object.fromEntries(Object.entries(rows).map(([name, row]) => [name, row.avoidable]));
      // A request the server sent (sampling/createMessage) is the server's conduct: its server's row, not the client's.
      const methods = new Map(
        corpusText(corpus, 'client.ndjson')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l))
          .map((e) => [e.id, e.request?.method]),
      );
      const scenarios = Object.entries(expected.scenarios);
      const clientsOwn = scenarios.map(([client, { avoidableEvents }]) => [
        client,
        avoidableEvents.filter((id) => !isSentByServer(methods.get(id))).length,
      ]);
      expect(avoidableOf(report.avoidable.byClient)).toEqual(Object.fromEntries(clientsOwn));
      const total = scenarios.reduce((sum, [, scenario]) => sum + scenario.avoidable, 0);
      expect(avoidableOf(report.avoidable.byServer)).toEqual({ [expected.server[0] as string]: total });
      expect(total).toBe(Object.values(expected.events).filter((e) => e.avoidable).length);
    });

    it('says of each event when, who to whom, its method, HTTP request, status and code', async () => {
      const { code, stdout } = await lens(['classify', ...args]);
      expect(code).toBe(0);
      const got = stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const sent = corpusText(corpus, 'client.ndjson')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const byId = new Map(got.map((line) => [line.id, line]));
      for (const e of sent) {
        expect(byId.get(e.id), e.id).toMatchObject({
          ts: new Date(e.ts).toISOString(),
          source: 'client',
          client: e.client,
          server: e.server,
          method: e.request?.method ?? null,
          http: `${e.http.method} ${e.http.path}`,
          status: e.http.status ?? null,
          code: e.response?.error?.code ?? null,
        });
      }
      expect(got.filter((line) => line.code !== null).length).toBeGreaterThan(0);
    });

    it("classifies each event with expected.json's avoidable verdict", async () => {
      const { code, stdout } = await lens(['classify', ...args]);
      expect(code).toBe(0);
      const got = stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .map(({ id, avoidable }) => [id, avoidable]);
      expect(Object.fromEntries(got)).toEqual(
        Object.fromEntries(Object.entries(expected.events).map(([id, e]) => [id, e.avoidable])),
      );
    });
  });

  it('streams the report the array functions give over the same events', async () => {
    const discovery = write('array.json', JSON.stringify({ endpoints: [{ method: 'POST', path: '/mcp' }] }));
    // A request seen by its client and by a proxy that names the client counts once; a re-sent line counts once.
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get', arguments: {} } };
    const seen = clientEvent({ client: 'agent-0', server: 'server-0', session: 's-1', request: call });
    const proxied = proxyEvent({ ...seen, id: 'proxied', source: 'proxy', ts: Date.parse('2026-11-02T00:00:02Z') });
    const extra = [JSON.stringify({ ...seen, ts: '2026-11-02T00:00:01Z' }), JSON.stringify(proxied)];
    const lines = [...syntheticLines(3000, 3)];
    const log = write(
      'array.ndjson',
      `${[...lines.slice(0, 5), ...extra, ...lines.slice(5), lines[100]].join('\n')}\n`,
    );
    const logs = [log, ...CORPORA.map((corpus) => corpusPath(corpus, 'client.ndjson'))];
    for (const path of logs) {
      const { stdout } = await lens(['report', '--json', '--discovery', discovery, path]);
      expect(JSON.parse(stdout), path).toEqual(await arrayReport(['--discovery', discovery, path]));
    }
  });

  it('reports bad lines on stderr with their numbers and exits 1 after the rest', async () => {
    const discovery = write('one.json', JSON.stringify({ endpoints: [{ path: '/mcp' }] }));
    const log = write('bad.ndjson', `${JSON.stringify(clientEvent())}\n{oops\n${JSON.stringify(clientEvent())}\n`);
    const { code, stdout, stderr } = await lens(['classify', '--discovery', discovery, log]);
    expect(code).toBe(1);
    expect(stdout.trim().split('\n')).toHaveLength(2);
    expect(stderr).toContain(`${log}:2: invalid_json`);
  });

  it('exits non-zero with a clear message on unreadable input', async () => {
    const discovery = write('ok.json', JSON.stringify({ endpoints: [] }));
    const missing = await lens(['classify', '--discovery', discovery, join(dir, 'missing.ndjson')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/cannot read .*missing\.ndjson/);
    const binary = write('bin.ndjson', Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]).toString('latin1'));
    writeFileSync(binary, Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]));
    const notUtf8 = await lens(['classify', '--discovery', discovery, binary]);
    expect(notUtf8.code).toBe(1);
    expect(notUtf8.stderr).toContain('not valid UTF-8');
    const badDoc = write('bad-doc.json', JSON.stringify({ what: 1 }));
    const invalid = await lens(['classify', '--discovery', badDoc, binary]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('not an A2A Agent Card');
  });

  describe('ingest against a running server', () => {
    const server = serverForSuite(() => join(dir, 'data'));
    const total = () => server.total();

    it('ships files in batches, reports rejects with file line numbers, and resumes where it stopped', async () => {
      const events = Array.from({ length: 25 }, (_, i) => JSON.stringify(clientEvent({ id: `cli-${i}` })));
      const log = write(
        'ship.ndjson',
        `${events.slice(0, 10).join('\n')}\n{broken\n${events.slice(10, 20).join('\n')}\n`,
      );
      const state = join(dir, 'state.json');
      const first = await lens(['ingest', log, '--url', server.url(), '--batch-lines', '4', '--state', state]);
      expect(first.code).toBe(1);
      expect(first.stderr).toContain(`${log.split('/').pop()}:11: invalid_json`);
      expect(await total()).toBe(20);

      // The log grows; a second run ships only the new lines.
      writeFileSync(log, `${events.slice(0, 10).join('\n')}\n{broken\n${events.slice(10).join('\n')}\n`);
      const second = await lens(['ingest', log, '--url', server.url(), '--batch-lines', '4', '--state', state]);
      expect(second.code).toBe(0);
      expect(second.stderr).toMatch(/5 accepted, 0 duplicate, 0 rejected/);
      expect(await total()).toBe(25);
    });

    it('stops at bytes that are not UTF-8, or ships past them with --skip-bad-lines, never silently', async () => {
      const events = Array.from({ length: 6 }, (_, i) => `${JSON.stringify(clientEvent({ id: `utf-${i}` }))}\n`);
      const log = join(dir, 'not-utf8.ndjson');
      writeFileSync(
        log,
        Buffer.concat([
          Buffer.from(events.slice(0, 3).join('')),
          Buffer.from([0x7b, 0xff, 0x7d, 0x0a]),
          Buffer.from(events.slice(3).join('')),
        ]),
      );
      const before = await total();
      const state = join(dir, 'utf-state.json');
      const stopped = await lens(['ingest', log, '--url', server.url(), '--state', state]);
      expect(stopped.code).toBe(1);
      expect(stopped.stderr).toContain('not-utf8.ndjson:4: not valid UTF-8');
      expect(stopped.stderr).toContain('--skip-bad-lines');
      expect(await total()).toBe(before + 3);
      const skipped = await lens(['ingest', log, '--url', server.url(), '--state', state, '--skip-bad-lines']);
      expect(skipped.stderr).toContain('not-utf8.ndjson:4: invalid_encoding');
      expect(await total()).toBe(before + 6);
      // classify reads every other line and says which one it could not.
      const classified = await lens(['classify', log]);
      expect(classified.code).toBe(1);
      expect(classified.stdout.trim().split('\n')).toHaveLength(6);
      expect(classified.stderr).toContain(':4: invalid_encoding');
    });

    it('leaves a line still being written for the next run', async () => {
      const [a, b] = [clientEvent({ id: 'grow-a' }), clientEvent({ id: 'grow-b' })].map((e) => JSON.stringify(e));
      const log = write('growing.ndjson', `${a}\n${(b as string).slice(0, 40)}`);
      const state = join(dir, 'grow-state.json');
      const first = await lens(['ingest', log, '--url', server.url(), '--state', state]);
      expect(first.code).toBe(0);
      expect(first.stderr).toMatch(/1 accepted, 0 duplicate, 0 rejected/);
      writeFileSync(log, `${a}\n${b}`); // the writer finished the line (no newline yet: it is whole JSON)
      const second = await lens(['ingest', log, '--url', server.url(), '--state', state]);
      expect(second.code).toBe(0);
      expect(second.stderr).toMatch(/1 accepted, 0 duplicate, 0 rejected/);
    });

    it('stops at a refusal instead of retrying it, saying why', async () => {
      const log = write('ok.ndjson', `${JSON.stringify(clientEvent())}\n`);
      const wrongUrl = await lens(['ingest', log, '--url', `${server.url()}/nope`, '--state', join(dir, 's3.json')]);
      expect(wrongUrl.code).toBe(1);
      expect(wrongUrl.stderr).toContain('404 not_found');
      const locked = await startServer({ host: '127.0.0.1', port: 0, dataDir: join(dir, 'locked'), token: 'tok-123' });
      try {
        const denied = await lens(['ingest', log, '--url', locked.url, '--state', join(dir, 's4.json')]);
        expect(denied.code).toBe(1);
        expect(denied.stderr).toContain('401 unauthenticated');
        const allowed = await lens(['ingest', log, '--url', locked.url, '--state', join(dir, 's4.json')], {
          LENS_TOKEN: 'tok-123',
        });
        expect(allowed.code).toBe(0);
      } finally {
        await locked.close();
      }
    });
  });
});
