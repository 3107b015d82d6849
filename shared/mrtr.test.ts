import { describe, expect, it } from 'vitest';
import { corpusText, expectedOf } from '../tests/support/corpus.ts';
import { answeredContextOf, inputRequestsOf } from './mrtr.ts';

/** The MCP TypeScript SDK v2's recorded rounds (tests/fixtures/corpus/mcp-ts-v2) and what expected.json reads there. */
const events = corpusText('mcp-ts-v2', 'client.ndjson')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as { id: string; server: string; request?: never; response?: never });
const expected = expectedOf('mcp-ts-v2') as unknown as {
  events: Record<string, { inputRequests?: unknown[] }>;
  scenarios: Record<string, { contextGap?: { event: string; requested: string; applied: string; reason: string }[] }>;
};

describe('input requests inside MRTR rounds (DOMAIN.md section 10)', () => {
  it('lists every request a result makes of the client with its section 5 identity, as expected.json does', () => {
    for (const event of events) {
      const listed = inputRequestsOf(event.server, event);
      expect(listed, event.id).toEqual(expected.events[event.id]?.inputRequests ?? []);
    }
    expect(events.filter((event) => inputRequestsOf(event.server, event).length > 0)).toHaveLength(5);
  });

  it('reads the context gap of a sampling answer from the round that carries it, and of no other round', () => {
    const records = Object.values(expected.scenarios).flatMap((scenario) => scenario.contextGap ?? []);
    expect(records).toHaveLength(1);
    for (const event of events) {
      const record = records.find((r) => r.event === event.id);
      const read = answeredContextOf(event);
      expect(read, event.id).toEqual(
        record === undefined ? null : { requested: record.requested, applied: record.applied, reason: record.reason },
      );
    }
  });

  it('takes a result that is not input_required, or an answer that does not restate its scope, as nothing', () => {
    const asked = { method: 'sampling/createMessage', params: { messages: [], includeContext: 'allServers' } };
    expect(inputRequestsOf('s', { response: { result: { inputRequests: { a: asked } } } })).toEqual([]);
    expect(
      inputRequestsOf('s', { response: { result: { resultType: 'input_required', inputRequests: { a: asked } } } }),
    ).toMatchObject([{ key: 'a', method: 'sampling/createMessage', sender: 'server', includeContext: 'allServers' }]);
    const unstated = { inputResponses: { a: { role: 'assistant', _meta: { context: { applied: 'none' } } } } };
    expect(answeredContextOf({ request: { params: unstated } })).toBeNull();
    const odd = { inputResponses: { constructor: { _meta: { context: { requested: 'none', applied: 'none' } } } } };
    expect(answeredContextOf({ request: { params: odd } })).toEqual({
      requested: 'none',
      applied: 'none',
      reason: null,
    });
  });
});
