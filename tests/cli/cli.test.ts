import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../api/server.ts';
import { clientEvent, proxyEvent } from '../support/events.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

function lens(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'api/cli/main.ts'), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
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
    expect(Object.keys(lines[0]).sort()).toEqual(['avoidable', 'bucket', 'evidence', 'id', 'identity', 'kind', 'rule']);
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
    // Out of time order on purpose: the report sorts each client's traffic first.
    const lines = [...retries.reverse(), ...probes.reverse()].map((e) => JSON.stringify(e));
    const log = write('seed.ndjson', `${lines.join('\n')}\n`);
    const { code, stdout } = await lens(['report', '--discovery', discovery, log]);
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
      'buckets',
      'avoidable',
      'storms',
      'identities',
      'contextGap',
      'conduct',
    ]);

    // classify streams: in time order its avoidable verdicts match; out of order it says null rather than guess.
    const sorted = write(
      'sorted.ndjson',
      `${[...probes]
        .reverse()
        .map((e) => JSON.stringify(e))
        .join('\n')}\n`,
    );
    const classified = await lens(['classify', '--discovery', discovery, sorted]);
    const flags = classified.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).avoidable);
    expect(flags.filter((f: boolean) => f)).toHaveLength(19);
    const unsorted = await lens(['classify', '--discovery', discovery, log]);
    expect(unsorted.stderr).toContain('out of time order');
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
    let server: RunningServer;
    beforeAll(async () => {
      server = await startServer({ host: '127.0.0.1', port: 0, dataDir: join(dir, 'data') });
    });
    afterAll(async () => server.close());

    async function total() {
      return (await (await fetch(`${server.url}/api/v1/summary`)).json()).overall.total as number;
    }

    it('ships files in batches, reports rejects with file line numbers, and resumes where it stopped', async () => {
      const events = Array.from({ length: 25 }, (_, i) => JSON.stringify(clientEvent({ id: `cli-${i}` })));
      const log = write(
        'ship.ndjson',
        `${events.slice(0, 10).join('\n')}\n{broken\n${events.slice(10, 20).join('\n')}\n`,
      );
      const state = join(dir, 'state.json');
      const first = await lens(['ingest', log, '--url', server.url, '--batch-lines', '4', '--state', state]);
      expect(first.code).toBe(1);
      expect(first.stderr).toContain(`${log.split('/').pop()}:11: invalid_json`);
      expect(await total()).toBe(20);

      // The log grows; a second run ships only the new lines.
      writeFileSync(log, `${events.slice(0, 10).join('\n')}\n{broken\n${events.slice(10).join('\n')}\n`);
      const second = await lens(['ingest', log, '--url', server.url, '--batch-lines', '4', '--state', state]);
      expect(second.code).toBe(0);
      expect(second.stderr).toMatch(/5 accepted, 0 duplicate, 0 rejected/);
      expect(await total()).toBe(25);
    });

    it('leaves a line still being written for the next run', async () => {
      const [a, b] = [clientEvent({ id: 'grow-a' }), clientEvent({ id: 'grow-b' })].map((e) => JSON.stringify(e));
      const log = write('growing.ndjson', `${a}\n${(b as string).slice(0, 40)}`);
      const state = join(dir, 'grow-state.json');
      const first = await lens(['ingest', log, '--url', server.url, '--state', state]);
      expect(first.code).toBe(0);
      expect(first.stderr).toMatch(/1 accepted, 0 duplicate, 0 rejected/);
      writeFileSync(log, `${a}\n${b}`); // the writer finished the line (no newline yet: it is whole JSON)
      const second = await lens(['ingest', log, '--url', server.url, '--state', state]);
      expect(second.code).toBe(0);
      expect(second.stderr).toMatch(/1 accepted, 0 duplicate, 0 rejected/);
    });

    it('stops at a refusal instead of retrying it, saying why', async () => {
      const log = write('ok.ndjson', `${JSON.stringify(clientEvent())}\n`);
      const wrongUrl = await lens(['ingest', log, '--url', `${server.url}/nope`, '--state', join(dir, 's3.json')]);
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
