import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lens, serverForSuite } from '../support/cli.ts';
import { hostLogPath } from '../support/corpus.ts';

/** `lens classify` on the recorded bridge logs, their format detected: every line read, the blind spots said. */
describe('host logs on the command line', () => {
  it.each([
    ['mcp-remote/recorded-3.log', { unknown: 14, refusal: 1, transient: 1 }],
    ['supergateway/recorded-1.log', { ok: 4, refusal: 1, ambiguous: 10, transient: 1 }],
    ['supergateway/recorded-3.log', { ok: 4, refusal: 6, ambiguous: 2, transient: 1 }],
  ])('classify %s: exit 0, each request once with the outcome its log shows', async (file, buckets) => {
    const { code, stdout, stderr } = await lens(['classify', '--server', 'tools-server', hostLogPath(file)]);
    expect(code).toBe(0);
    const events = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { bucket: string; kind: string; method: string | null; server: string });
    const requests = events.filter((e) => e.kind !== 'server_event');
    const counts: Record<string, number> = {};
    for (const e of requests) counts[e.bucket] = (counts[e.bucket] ?? 0) + 1;
    expect(counts).toEqual(buckets);
    expect(events.every((e) => e.server === 'tools-server')).toBe(true);
    expect(stderr).not.toMatch(/could not be read/);
    expect(stderr).toMatch(/writes no times|logs no outcome/);
  });

  it('--tz and --start are checked before anything is read', async () => {
    const zone = await lens(['classify', '--tz', 'Mars/Olympus', hostLogPath('mcp-remote/recorded-1.log')]);
    expect(zone.code).toBe(2);
    expect(zone.stderr).toContain('--tz must be an IANA time zone');
    const start = await lens(['classify', '--start', 'yesterday', hostLogPath('mcp-remote/recorded-1.log')]);
    expect(start.code).toBe(2);
  });
});

describe('lens ingest of a host log', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lens-hostlogs-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const server = serverForSuite(() => join(dir, 'data'));

  it('reads the log here, whole, ships native events in batches, and stores nothing twice on the next run', async () => {
    const args = [
      'ingest',
      hostLogPath('supergateway/recorded-2.log'),
      '--url',
      server.url(),
      '--server',
      'tools-server',
      '--start',
      '2026-12-06T01:30:00Z',
      '--state',
      join(dir, 'state.json'),
    ];
    // Batches far smaller than the log: the pairing is done before anything is sent.
    const first = await lens([...args, '--batch-lines', '5']);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/32 accepted, 0 duplicate, 0 rejected/);
    expect(first.stderr).toContain('writes no times');
    expect(await server.total('from=2026-12-06T00:00:00Z&to=2026-12-07T00:00:00Z')).toBe(16);
    const again = await lens(args);
    expect(again.stderr).toMatch(/0 accepted, 32 duplicate, 0 rejected/);
  });
});
