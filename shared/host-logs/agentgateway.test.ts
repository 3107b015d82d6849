import { describe, expect, it } from 'vitest';
import { hostLogText } from '../../tests/support/corpus.ts';
import { classify } from '../classify/index.ts';
import { NO_POLICY } from '../classify/types.ts';
import { validateEvent } from '../event.ts';
import { rpcMethodOf, rpcNameOf } from '../frames.ts';
import { detectFormat } from '../proxy-logs/detect.ts';
import { readHostLog } from './index.ts';

/**
 * agentgateway's access log: tests/fixtures/hostlogs/agentgateway, reconstructed lines in FORMATS.md's grammar
 * around the recorded HTTP session of supergateway's server side (methods, tools, statuses, times, durations).
 */
const LOG = hostLogText('agentgateway/recorded-3.access.log')
  .split('\n')
  .filter((line) => line !== '');

function read(lines: string[], options = {}) {
  const { reads, notes } = readHostLog(
    'agentgateway',
    lines.map((text, i) => ({ line: i + 1, text })),
    options,
  );
  return { values: reads.flatMap((r) => ('value' in r ? [r.value] : [])), notes, reads };
}

function event(value: Record<string, unknown>) {
  const parsed = validateEvent(value);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.event;
}

describe('agentgateway access log', () => {
  it('is detected from its first lines', () => {
    expect(detectFormat(LOG.slice(0, 5))).toBe('agentgateway');
  });

  it('one proxy record per MCP request line: its method, tool, status and duration, its server the MCP target', () => {
    const { values, reads } = read(LOG);
    expect(reads.filter((r) => 'refused' in r)).toEqual([]);
    expect(values).toHaveLength(LOG.length);
    const events = values.map(event);
    expect(events.every((e) => e.source === 'proxy' && e.client === '127.0.0.1' && e.server === 'tools-server')).toBe(
      true,
    );
    expect(events.map((e) => rpcMethodOf(e))).toContain('resources/list');
    expect(events.filter((e) => rpcNameOf(e) === 'no_such_tool')).toHaveLength(3);
    expect(events[0]).toMatchObject({ latencyMs: 699, http: { method: 'POST', path: '/mcp', status: 200 } });
  });

  it('claims no outcome below 400: a tool error or a JSON-RPC error inside a 200 is invisible to it', () => {
    const { values, notes } = read(LOG);
    const buckets = values.map((v) => classify(event(v), NO_POLICY).bucket);
    expect(new Set(buckets)).toEqual(new Set(['unknown']));
    expect(values.every((v) => (v.hostlog as { answered?: boolean }).answered === true)).toBe(true);
    expect(notes[0]).toMatch(/unknown outcome/);
  });

  it('reads a failing status as the transport failure it is, and leaves out the lines of no MCP request', () => {
    const first = LOG[0] as string;
    const failed = first.replace('http.status=200', 'http.status=503').replace('duration=699ms', 'duration=1.5s');
    // The same line on an LLM route, and a line of the gateway's own: neither is about an MCP server.
    const llm = first.replace(/protocol=mcp.*duration/, 'protocol=llm duration');
    const own = first.replace(/\trequest .*/, '\tstate_manager loaded 3 routes');
    const { values, notes } = read([own, failed, llm], { client: 'ide-7' });
    expect(values).toHaveLength(1);
    const one = event(values[0] as Record<string, unknown>);
    expect(one).toMatchObject({ client: 'ide-7', latencyMs: 1500 });
    expect(classify(one, NO_POLICY)).toMatchObject({ bucket: 'transient', kind: 'unavailable' });
    expect(notes).toContain("2 lines about no MCP request (the gateway's own, LLM or HTTP routes) left out");
  });
});
