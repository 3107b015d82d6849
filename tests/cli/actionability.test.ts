import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { lens } from '../support/cli.ts';

const PAPER = fileURLToPath(new URL('../fixtures/actionability/seed-004.ndjson', import.meta.url));

describe("seed 004's sample offline", () => {
  it('`lens report` gives Table I: control 110000 x 8, 100000 x 10, 000000 x 3; D 18, P 8, nothing else', async () => {
    const { code, stdout } = await lens(['report', '--json', PAPER]);
    expect(code).toBe(0);
    const { actionability } = JSON.parse(stdout);
    expect(actionability.control).toEqual({
      failures: 21,
      D: 18,
      P: 8,
      C: 0,
      T: 0,
      E: 0,
      R: 0,
      profiles: { '100000': 10, '110000': 8, '000000': 3 },
    });
    // All at HTTP 200: the status adds nothing.
    expect(actionability.transport.profiles).toEqual(actionability.control.profiles);
    expect(actionability.content).toEqual({
      failures: 21,
      D: 21,
      P: 19,
      C: 19,
      T: 18,
      E: 0,
      R: 0,
      profiles: { '111100': 18, '100000': 2, '111000': 1 },
    });
    expect(actionability.hidden).toEqual({ failures: 3, throttles: 0 });
    expect(Object.keys(actionability.byServer)).toHaveLength(10);
    const s01 = actionability.byServer['paper-s01'];
    expect(s01.control.profiles).toEqual({ '110000': 2 });
    expect(s01.dominates.control).toContain('paper-s10');
    expect(actionability.byServer['paper-s09'].hidden).toEqual({ failures: 1, throttles: 0 });
    expect(actionability.hiddenFailures).toEqual([
      {
        id: 's004-19',
        ts: '2026-08-20T10:19:00.000Z',
        server: 'paper-s04',
        client: 'probe',
        tool: 'search',
        rule: 'json_error_object',
        text: `{"status":"error","message":"'limit' must be a number"}`,
        field: 'response.result.content[0].text',
        throttle: false,
        waitMs: null,
      },
      expect.objectContaining({
        id: 's004-20',
        rule: 'error_prefix',
        text: "Error: no record found for symbol 'TEST'",
      }),
      expect.objectContaining({ id: 's004-21', rule: 'error_prefix', text: 'Invalid symbol' }),
    ]);
    // The success-shaped errors keep their bucket.
    expect(JSON.parse(stdout).buckets.ok).toBe(3);
  });

  it('`lens report` lists the hidden failures with their text', async () => {
    const { code, stdout } = await lens(['report', PAPER]);
    expect(code).toBe(0);
    expect(stdout).toContain('Hidden failures: 3 answers look successful but their text says the call failed');
    expect(stdout).toMatch(/2026-08-20 10:21:00 +paper-s09 +quote +"Invalid symbol"/);
    expect(stdout).toContain('Once their text is read, of 21 failures: 100.0% detected');
  });

  it('`lens classify` names the control profile of each failed event, and none of a success', async () => {
    const { code, stdout } = await lens(['classify', PAPER]);
    expect(code).toBe(0);
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; profile?: string });
    const profile = Object.fromEntries(lines.map((l) => [l.id, l.profile]));
    expect(profile['s004-01']).toBe('110000');
    expect(profile['s004-09']).toBe('100000');
    // A hidden failure keeps its bucket (ok), has its control profile, and says what shows it.
    expect(profile['s004-21']).toBe('000000');
    const shaped = lines.find((l) => l.id === 's004-21') as Record<string, unknown> | undefined;
    expect(shaped?.bucket).toBe('ok');
    expect(shaped?.hidden).toEqual({
      rule: 'error_prefix',
      text: 'Invalid symbol',
      field: 'response.result.content[0].text',
      throttle: false,
      waitMs: null,
    });
    const ok = await lens([
      'classify',
      fileURLToPath(new URL('../fixtures/corpus/mcp-python/client.ndjson', import.meta.url)),
    ]);
    const first = JSON.parse(ok.stdout.split('\n')[0] ?? '{}');
    expect(first.bucket).toBe('ok');
    expect(first).not.toHaveProperty('profile');
  });
});
