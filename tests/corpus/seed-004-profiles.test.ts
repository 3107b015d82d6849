import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type Actionability, actionabilityOf, packViews } from '../../shared/actionability/index.ts';
import { countViews, incomparablePairs } from '../../shared/actionability/summary.ts';
import { validateEvent } from '../../shared/event.ts';

describe("seed 004's sample (section VI.B, Table I)", () => {
  const lines = readFileSync(new URL('../fixtures/actionability/seed-004.ndjson', import.meta.url), 'utf8')
    .trim()
    .split('\n');
  const read = new Map<string, Actionability>(
    lines.map((line) => {
      const parsed = validateEvent(JSON.parse(line));
      if (!parsed.ok) throw new Error(parsed.error.message);
      const reading = actionabilityOf(parsed.event);
      // All 21 are failures: the 3 success-shaped ones at HTTP 200 through their text only.
      if (reading === undefined) throw new Error(`${line} is no failure`);
      return [String(JSON.parse(line).id), reading];
    }),
  );
  const counts = countViews(
    [...read.values()].map((r) => ({
      packed: packViews(
        { control: r.control.profile, transport: r.transport.profile, content: r.content.profile },
        r.hidden,
      ),
      failures: 1,
    })),
  );

  it('gives the control profiles 110000 x 8, 100000 x 10, 000000 x 3 and the column D 18, P 8, the rest 0', () => {
    expect(counts.control).toEqual({
      failures: 21,
      D: 18,
      P: 8,
      C: 0,
      T: 0,
      E: 0,
      R: 0,
      profiles: { '100000': 10, '110000': 8, '000000': 3 },
    });
    // "Both sets happen to form chains, with 0 incomparable pairs."
    expect(incomparablePairs([...read.values()].map((r) => r.control.profile))).toBe(0);
    // With transport: all at HTTP 200, so the status adds nothing.
    expect(counts.transport.profiles).toEqual(counts.control.profiles);
  });

  it('gives the content-assisted profiles 111100 x 18, 111000 x 1, 100000 x 2 and the column D 21, P 19, C 19, T 18', () => {
    expect(counts.content).toEqual({
      failures: 21,
      D: 21,
      P: 19,
      C: 19,
      T: 18,
      E: 0,
      R: 0,
      profiles: { '111100': 18, '100000': 2, '111000': 1 },
    });
    expect(incomparablePairs([...read.values()].map((r) => r.content.profile))).toBe(0);
  });

  it('finds the three success-shaped errors as hidden failures, with the rule and text of each bit', () => {
    expect(counts.hidden).toEqual({ failures: 3, throttles: 0 });
    const text = (id: string) => read.get(id)?.content.text;
    expect(text('s004-21')).toEqual({
      D: { rule: 'error_prefix', span: 'Invalid symbol' },
      P: { rule: 'invalid_value', span: 'Invalid symbol' },
      C: { rule: 'invalid_value', span: 'Invalid symbol' },
    });
    expect(read.get('s004-19')?.content.evidence).toEqual({
      D: 'response.result.content[0].text',
      P: 'response.result.content[0].text',
      C: 'response.result.content[0].text',
      T: 'response.result.content[0].text',
    });
    expect(text('s004-19')?.T).toEqual({ rule: 'named_target', span: 'limit' });
    expect(text('s004-20')).toEqual({ D: { rule: 'error_prefix', span: "Error: no record found for symbol 'TEST'" } });
    // A typed failure keeps its field as the evidence of D and P; its text adds cause and target.
    expect(read.get('s004-01')?.content.evidence).toEqual({
      D: 'response.error',
      P: 'response.error.code',
      C: 'response.error.message',
      T: 'response.error.message',
    });
    expect(text('s004-01')).toEqual({
      C: { rule: 'unknown_tool', span: 'Unknown tool: nonexistent_tool_0' },
      T: { rule: 'named_target', span: 'nonexistent_tool_0' },
    });
  });
});
