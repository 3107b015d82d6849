import { describe, expect, it } from 'vitest';
import { hostLogText } from '../../tests/support/corpus.ts';
import { splitNdjson } from '../batch.ts';
import { classify } from '../classify/index.ts';
import { NO_POLICY } from '../classify/types.ts';
import { validateEvent } from '../event.ts';
import { detectFormat } from '../proxy-logs/detect.ts';
import { type HostFormat, type HostRead, readHostLog } from './index.ts';

/**
 * The recorded bridge logs (tests/fixtures/hostlogs, copied from ../shared/corpus/hostlogs): every request of the
 * host's transcript found with its outcome as far as the log shows it, what it cannot show read as unknown (never as
 * success), and no line refused.
 */
interface ExpectedRequest {
  id: number;
  method: string;
  outcome: 'result' | 'isError' | 'error' | 'no_answer';
  error_code?: number;
  late_answer?: { outcome: string };
}
const EXPECTED = JSON.parse(hostLogText('expected.json')).files as Record<string, { requests: ExpectedRequest[] }>;

/** What a record says of its request, in the words the table below uses. */
function seen(read: HostRead): string {
  if ('refused' in read) return `refused ${read.refused.code}`;
  const parsed = validateEvent(read.value);
  if (!parsed.ok) return `invalid ${parsed.error.code}`;
  const { bucket, kind } = classify(parsed.event, NO_POLICY);
  const { response, timeout } = parsed.event;
  if (bucket === 'unknown') return kind === 'outcome_unknown' ? 'unknown' : 'server event';
  if (timeout === true) return response === undefined ? 'timeout' : 'timeout, answered late';
  const error = response?.error as { code?: number } | undefined;
  if (error !== undefined) return `error ${error.code}`;
  const result = response?.result as { isError?: boolean } | undefined;
  return result?.isError === true ? `isError (${bucket})` : bucket;
}

/** The transcript's outcome of a request, as a log that shows everything would show it. */
function truth(request: ExpectedRequest): string {
  if (request.outcome === 'result') return 'ok';
  if (request.outcome === 'error') return `error ${request.error_code}`;
  if (request.outcome === 'no_answer') return request.late_answer ? 'timeout, answered late' : 'timeout';
  return 'isError';
}

function read(file: string, format: HostFormat) {
  const lines = splitNdjson(hostLogText(file));
  return readHostLog(format, lines, { server: 'tools-server', client: 'hostlogs-driver', start: 0 });
}

/** The records of requests, by the request's id (the host's, where the log shows requests). */
function byRequestId(reads: HostRead[]): Map<unknown, string> {
  const found = new Map<unknown, string>();
  for (const r of reads) {
    if ('value' in r && r.value.request !== undefined) found.set((r.value.request as { id: unknown }).id, seen(r));
  }
  return found;
}

describe('detection from the first lines', () => {
  it.each([
    ['mcp-remote/recorded-1.log', 'mcp-remote'],
    ['mcp-remote/recorded-2.log', 'mcp-remote'],
    ['mcp-remote/recorded-3.log', 'mcp-remote'],
    ['supergateway/recorded-1.log', 'supergateway'],
    ['supergateway/recorded-3.log', 'supergateway'],
    ['supergateway/recorded-3.stderr.log', 'supergateway'],
    ['mcp-proxy/recorded-1.log', 'mcp-proxy'],
  ])('%s is %s', (file, format) => {
    const first = hostLogText(file).split('\n').slice(0, 20);
    expect(detectFormat(first)).toBe(format);
  });
});

describe('mcp-remote: requests seen, outcomes hidden', () => {
  it.each(['mcp-remote/recorded-1.log', 'mcp-remote/recorded-2.log', 'mcp-remote/recorded-3.log'])(
    '%s: every request found; only a JSON-RPC error in the debug objects and the host’s cancel are outcomes',
    (file) => {
      const { reads, notes } = read(file, 'mcp-remote');
      expect(reads.filter((r) => 'refused' in r)).toEqual([]);
      const debug = !file.endsWith('recorded-1.log');
      const expected = new Map(
        EXPECTED[file]?.requests.map((request) => {
          const outcome = truth(request);
          if (request.outcome === 'no_answer') return [request.id, outcome];
          // --debug shows error objects; results are "result-present" and mcp-remote's own answer (id 14) no line.
          const shown = debug && request.outcome === 'error' && request.id !== 14;
          return [request.id, shown ? outcome : 'unknown'];
        }),
      );
      expect(byRequestId(reads)).toEqual(expected);
      expect(notes.join('\n')).toContain('mcp-remote logs no outcome');
    },
  );

  it('stamps a log without times in line order and says so; --debug copies give their times and latencies', () => {
    const plain = read('mcp-remote/recorded-1.log', 'mcp-remote');
    expect(plain.notes.join('\n')).toContain('writes no times');
    const debug = read('mcp-remote/recorded-2.log', 'mcp-remote');
    const error = debug.reads.find((r) => 'value' in r && (r.value.response as { error?: unknown })?.error);
    expect(error).toMatchObject({ value: { ts: '2026-12-06T01:30:23.616Z', latencyMs: 11 } });
    expect(debug.notes.join('\n')).not.toContain('writes no times');
  });

  it('keeps the bridge’s own lines (connects, errors, the re-initialized session) as server events', () => {
    const { reads } = read('mcp-remote/recorded-1.log', 'mcp-remote');
    const texts = reads.flatMap((r) =>
      'value' in r && r.value.record === 'server_event' ? [(r.value.hostlog as { text: string }).text] : [],
    );
    expect(texts).toContain('Remote session expired, re-initializing');
    expect(texts.filter((text) => text.startsWith('Error from remote server:'))).toHaveLength(10);
  });
});

describe('supergateway', () => {
  it.each(['supergateway/recorded-1.log', 'supergateway/recorded-2.log'])(
    '%s (client side): every request with its outcome; errors rebuilt from "Request error" lines',
    (file) => {
      const { reads, notes } = read(file, 'supergateway');
      expect(reads.filter((r) => 'refused' in r)).toEqual([]);
      const found = byRequestId(reads);
      for (const request of EXPECTED[file]?.requests ?? []) {
        expect([request.id, (found.get(request.id) ?? '').replace(/ \(.*\)$/, '')]).toEqual([
          request.id,
          truth(request),
        ]);
      }
      expect(found.size).toBe(EXPECTED[file]?.requests.length);
      expect(notes.join('\n')).toContain('rebuilt from "Request error" lines');
    },
  );

  it('cut frames keep isError but not the text: a tool error the SDK prefix would have refused stays ambiguous', () => {
    const cut = byRequestId(read('supergateway/recorded-1.log', 'supergateway').reads);
    const whole = byRequestId(read('supergateway/recorded-2.log', 'supergateway').reads);
    expect(cut.get(4)).toBe('isError (ambiguous)');
    expect(whole.get(4)).toBe('isError (refusal)');
  });

  it('server side: whole frames per session; the cancelled call is a timeout; stderr and exit are server events', () => {
    const { reads } = read('supergateway/recorded-3.log', 'supergateway');
    expect(reads.filter((r) => 'refused' in r)).toEqual([]);
    const found = byRequestId(reads);
    for (const request of EXPECTED['supergateway/recorded-3.log']?.requests ?? []) {
      expect([request.id, (found.get(request.id) ?? '').replace(/ \(.*\)$/, '')]).toEqual([request.id, truth(request)]);
    }
    const sessions = new Set(reads.flatMap((r) => ('value' in r && r.value.request ? [r.value.session] : [])));
    expect(sessions).toEqual(new Set(['7024316b-7397-46f4-b01c-5b9fd602399d']));
    const stderr = read('supergateway/recorded-3.stderr.log', 'supergateway').reads;
    expect(stderr.map((r) => 'value' in r && r.value.hostlog)).toEqual([
      expect.objectContaining({ stderr: 'tools-server: stdio ready' }),
      expect.objectContaining({ exit: { code: null, signal: 'SIGTERM' } }),
      expect.objectContaining({ text: expect.stringContaining('Failed to send child failure') }),
    ]);
    expect(stderr.every((r) => 'value' in r && r.value.record === 'server_event')).toBe(true);
  });
});

describe('mcp-proxy: answers only, its own ids', () => {
  it('every answer the upstream gave, in order, with its outcome; the unanswered id a blind spot; pings leave none', () => {
    const { reads, notes } = read('mcp-proxy/recorded-1.log', 'mcp-proxy');
    expect(reads.filter((r) => 'refused' in r)).toEqual([]);
    const answers = reads.flatMap((r) =>
      'value' in r && r.value.record !== 'server_event' ? [[(r.value.response as { id?: number })?.id, seen(r)]] : [],
    );
    // mcp-proxy's own initialize (upstream id 0), then host ids 2..8 as upstream 1..7; host 9 (resources/list) and
    // 13 (ping) never reach the upstream; host 10 (slow, upstream 8) is never answered; host 11, 12 are 9, 10.
    const hostIds = [2, 3, 4, 5, 6, 7, 8, 11, 12];
    const transcript = EXPECTED['mcp-proxy/recorded-1.log']?.requests ?? [];
    const outcomes = hostIds.map((id) => truth(transcript.find((r) => r.id === id) as ExpectedRequest));
    expect(answers.map(([, outcome]) => String(outcome).replace(/ \(.*\)$/, ''))).toEqual([
      'ok',
      ...outcomes.slice(0, 7),
      'unknown',
      ...outcomes.slice(7),
    ]);
    expect(answers.map(([id]) => id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, undefined, 9, 10]);
    expect(notes.join('\n')).toContain('requests are not logged');
  });
});

describe('bounds', () => {
  it('refuses a line past the bound by number, and reads on', () => {
    const long = `[supergateway] Child stderr: ${'x'.repeat(4 * 1024 * 1024 + 1)}`;
    const { reads } = readHostLog(
      'supergateway',
      [
        { line: 1, text: long },
        { line: 2, text: '[supergateway] Child stderr: after' },
      ],
      { server: 's', start: 0 },
    );
    expect(
      reads.map((r) => ('refused' in r ? r.refused.code : (r.value.hostlog as { stderr: string }).stderr)),
    ).toEqual(['line_too_long', 'after']);
  });

  it('keeps the first lines of a huge block and counts the rest', () => {
    const lines = [
      { line: 1, text: '[1] Error from remote server: Error: boom' },
      ...Array.from({ length: 1000 }, (_, i) => ({ line: i + 2, text: `    at frame ${i}` })),
    ];
    const { reads } = readHostLog('mcp-remote', lines, { server: 's', start: 0 });
    expect(reads).toHaveLength(1);
    expect(reads[0]).toMatchObject({ value: { hostlog: { lines: 400, cutLines: 601 } } });
  });
});
