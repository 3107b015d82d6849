import { describe, expect, it } from 'vitest';
import { lens } from '../support/cli.ts';
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
