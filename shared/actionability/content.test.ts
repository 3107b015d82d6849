import { describe, expect, it } from 'vitest';
import { event, rpcError, toolError } from '../classify/test-support.ts';
import type { LensEvent } from '../event.ts';
import { actionabilityOf, profileString } from './index.ts';

const answered = (text: string, fields: Partial<LensEvent> = {}) =>
  event({
    http: { method: 'POST', path: '/mcp', status: 200 },
    request: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'quote', arguments: {} } },
    response: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }] } },
    ...fields,
  });

const content = (e: LensEvent) => {
  const read = actionabilityOf(e);
  if (read === undefined) throw new Error('not a failure');
  return { profile: profileString(read.content.profile), text: read.content.text, hidden: read.hidden };
};

describe('content view', () => {
  it('a success whose text mentions an error is no failure, hidden or not', () => {
    for (const text of ['No errors found.', 'Error handling improved.', '{"status":"ok"}', 'Rate limits: 100/min']) {
      expect(actionabilityOf(answered(text)), text).toBeUndefined();
    }
  });

  it('a hidden throttle earns D, P, C and, with the delay its text names, R', () => {
    expect(content(answered('Rate limit exceeded, retry after 30 s'))).toEqual({
      profile: '111001',
      text: {
        D: { rule: 'rate_limit_sentence', span: 'Rate limit exceeded, retry after 30 s' },
        P: { rule: 'rate_limit', span: 'Rate limit' },
        C: { rule: 'rate_limit', span: 'Rate limit' },
        R: { rule: 'rate_limit_delay', span: 'retry after 30 s' },
      },
      hidden: { failure: true, throttle: true },
    });
    expect(actionabilityOf(answered('Rate limit exceeded, retry after 30 s'))?.hiddenWaitMs).toBe(30_000);
    expect(content(answered('You have been rate limited.')).profile).toBe('111000');
    expect(actionabilityOf(answered('You have been rate limited.'))?.hiddenWaitMs).toBeNull();
  });

  it("reads a typed failure's text for cause and target; the typed fields keep their evidence", () => {
    const read = actionabilityOf(rpcError(-32602, undefined, 200));
    expect(read?.content.profile).toBe(read?.control.profile);
    const unknown = toolError('MCP error -32602: Tool lookup not found');
    expect(content(unknown)).toEqual({
      profile: '111100',
      text: {
        P: { rule: 'unknown_tool', span: 'Tool lookup not found' },
        C: { rule: 'unknown_tool', span: 'Tool lookup not found' },
        T: { rule: 'named_target', span: 'lookup' },
      },
      hidden: { failure: false, throttle: false },
    });
  });

  it('an isError result saying it is rate limited is a throttle in its text, but no hidden one: isError shows it', () => {
    expect(content(toolError('rate limited, retry after 5')).hidden).toEqual({ failure: false, throttle: false });
    expect(content(toolError('rate limited, retry after 5')).profile).toBe('111001');
  });
});
