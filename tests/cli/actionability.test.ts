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
    expect(actionability.transport.profiles).toEqual({ '100000': 10, '110000': 11 });
    expect(Object.keys(actionability.byServer)).toHaveLength(10);
    const s01 = actionability.byServer['paper-s01'];
    expect(s01.control.profiles).toEqual({ '110000': 2 });
    expect(s01.dominates.control).toContain('paper-s10');
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
    expect(profile['s004-21']).toBe('000000');
    const ok = await lens([
      'classify',
      fileURLToPath(new URL('../fixtures/corpus/mcp-python/client.ndjson', import.meta.url)),
    ]);
    const first = JSON.parse(ok.stdout.split('\n')[0] ?? '{}');
    expect(first.bucket).toBe('ok');
    expect(first).not.toHaveProperty('profile');
  });
});
