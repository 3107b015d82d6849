import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { LensEvent } from '../../shared/event.ts';
import { readAnswerText } from '../../shared/result-text/read.ts';
import { causeOf, errorPrefix, jsonErrorObject, rateLimitSentence } from '../../shared/result-text/rules.ts';
import { ALL_CORPORA, corpusText, expectedOf } from '../support/corpus.ts';

/** Every string anywhere in a value: tool descriptions, A2A message parts, resource texts, not only text blocks. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(strings);
  return [];
}

/** The successful answers of every corpus: the recorded logs' `ok` events and the host transcripts' results. */
function successes(): { where: string; response: Record<string, unknown> }[] {
  const found: { where: string; response: Record<string, unknown> }[] = [];
  for (const corpus of ALL_CORPORA) {
    const expected = expectedOf(corpus).events;
    for (const line of corpusText(corpus, 'client.ndjson').trim().split('\n')) {
      const event = JSON.parse(line) as { id: string; response?: Record<string, unknown> | null };
      if (expected[event.id]?.bucket === 'ok' && event.response) {
        found.push({ where: `${corpus} ${event.id}`, response: event.response });
      }
    }
  }
  const hostlogs = new URL('../fixtures/corpus/hostlogs/', import.meta.url);
  for (const bridge of readdirSync(hostlogs).filter((name) => !name.includes('.'))) {
    for (const file of readdirSync(new URL(`${bridge}/`, hostlogs))) {
      const lines = readFileSync(new URL(`${bridge}/${file}`, hostlogs), 'utf8')
        .trim()
        .split('\n');
      lines.forEach((line, i) => {
        const frame = (JSON.parse(line) as { dir?: string; frame?: Record<string, unknown> }).frame;
        const result = frame?.result as { isError?: unknown } | undefined;
        if (frame !== undefined && typeof result === 'object' && result !== null && result.isError !== true) {
          found.push({ where: `${bridge}/${file}:${i + 1}`, response: frame });
        }
      });
    }
  }
  return found;
}

describe('the lexical rules on the real successes of every corpus', () => {
  const ok = successes();

  it('read enough of them to mean something', () => {
    // The `ok` events with an answer in the three corpora and the results in the host transcripts.
    expect(ok.length).toBe(102);
  });

  it('find no hidden failure and no hidden throttle in any successful answer (0 false positives)', () => {
    const hits = ok.flatMap(({ where, response }) => {
      const reading = readAnswerText({ response } as unknown as LensEvent, false);
      return reading.failure === null && reading.throttle === null && reading.cause === null ? [] : [where];
    });
    expect(hits).toEqual([]);
  });

  it('fire on no string anywhere in them, text blocks or not', () => {
    const texts = ok.flatMap(({ response }) => strings(response.result));
    expect(texts.length).toBe(1105);
    const hits = texts.filter((text) => errorPrefix(text) ?? jsonErrorObject(text) ?? rateLimitSentence(text) ?? null);
    expect(hits).toEqual([]);
  });

  it('would name no cause in them either, were one of them a failure', () => {
    // The cause rules are read on failures only, and never decide whether a call failed; still none fires here.
    const causes = ok.flatMap(({ response }) => strings(response.result)).filter((text) => causeOf(text) !== null);
    expect(causes).toEqual([]);
  });
});
