/**
 * The demo federation: a day of traffic over several servers and clients, laid over the 24 hours before `now`.
 * Each scenario is one story an operator should find on the dashboard. Deterministic for a given `now`.
 */
type Frame = Record<string, unknown>;
export type DemoEvent = Record<string, unknown> & { id: string; ts: number };

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const DEMO_DISCOVERY: Record<string, unknown> = {
  'release-notes': { endpoints: [{ method: 'POST', path: '/mcp' }], methods: ['tools/call', 'sampling/createMessage'] },
  docs: { endpoints: [{ method: 'POST', path: '/mcp' }], methods: ['tools/call', 'initialize'] },
  files: { endpoints: [{ method: 'POST', path: '/mcp' }], methods: ['tools/call'] },
  search: { remotes: [{ type: 'streamable-http', url: 'https://search.internal/mcp' }] },
  billing: { endpoints: [{ method: 'POST', path: '/mcp' }], methods: ['tools/call'] },
  summarizer: { endpoints: [{ method: 'POST', path: '/mcp' }], methods: ['sampling/createMessage'] },
  planner: { name: 'planner', url: 'https://planner.internal/a2a/v1', supportedInterfaces: [] },
  'atlas-notes': { endpoints: [{ method: 'POST', path: '/mcp' }], methods: ['server/discover', 'tools/call'] },
};

/** A small seeded generator, so the demo is the same every time for the same `now`. */
export function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

export class DemoWriter {
  readonly events: DemoEvent[] = [];
  private counter = 0;
  private rpcId = 1;

  constructor(
    readonly now: number,
    private readonly prefix: string,
  ) {}

  /** A time `ago` ms before now. */
  at(ago: number): number {
    return this.now - ago;
  }

  add(event: Omit<DemoEvent, 'id'> & { ts: number }): void {
    this.events.push({ id: `${this.prefix}-${++this.counter}`, ...event, ts: Math.round(event.ts) });
  }

  call(ts: number, client: string, server: string, request: Frame, response: Frame | null, extra: Frame = {}): void {
    // `http: undefined` in `extra`: a record from a log that has no HTTP (a host's or a bridge's).
    const http = 'http' in extra ? (extra.http as Frame | undefined) : { method: 'POST', path: '/mcp', status: 200 };
    const { http: _http, ...rest } = extra;
    this.add({
      ts,
      source: 'client',
      client,
      server,
      session: `${client}@${server}`,
      protocol: 'mcp',
      http,
      request,
      ...(response ? { response } : {}),
      latencyMs: 20,
      discoveryRead: true,
      ...rest,
    });
  }

  request(method: string, params: Frame): Frame {
    return { jsonrpc: '2.0', id: this.rpcId++, method, params };
  }
}

export function ok(request: Frame, result: Frame = { content: [{ type: 'text', text: 'done' }] }): Frame {
  return { jsonrpc: '2.0', id: request.id, result };
}

export function failure(request: Frame, code: number, message: string, data?: Frame): Frame {
  return { jsonrpc: '2.0', id: request.id, error: { code, message, ...(data ? { data } : {}) } };
}

/** Healthy tool calls from eight agents across the day, busier in working hours. */
export function healthyTraffic(w: DemoWriter, rand: () => number): void {
  const servers = ['release-notes', 'docs', 'files', 'search', 'billing'];
  for (let t = DAY; t > 0; t -= 4_000 + rand() * 8_000) {
    const hour = new Date(w.at(t)).getUTCHours();
    if ((hour < 7 || hour > 19) && rand() < 0.6) continue;
    const client = `agent-${1 + Math.floor(rand() * 8)}`;
    const server = servers[Math.floor(rand() * servers.length)] ?? 'docs';
    const request = w.request('tools/call', {
      name: `${server}.lookup`,
      arguments: { q: `topic ${Math.floor(rand() * 500)}` },
    });
    // A few tool errors in prose only: nothing typed says what went wrong, so they stay ambiguous.
    const response =
      rand() < 0.03
        ? ok(request, { isError: true, content: [{ type: 'text', text: 'upstream said no' }] })
        : ok(request);
    w.call(w.at(t), client, server, request, response, { latencyMs: 15 + Math.floor(rand() * 120) });
  }
}

/** Seed 000's prober: 22 requests against three undeclared paths (and a 405 on GET), several times a day. */
export function seedProber(w: DemoWriter): void {
  const paths = ['/mcp/mcp', '/mcp/sse', '/mcp/a2a/'];
  for (const start of [20 * HOUR, 9 * HOUR, 25 * MINUTE]) {
    for (let i = 0; i < 22; i++) {
      w.add({
        ts: w.at(start - i * 7_000),
        source: 'client',
        client: 'prober-9',
        server: 'docs',
        http: { method: 'POST', path: paths[i % 3], status: 404 },
        latencyMs: 3,
        discoveryRead: false,
      });
    }
    w.add({
      ts: w.at(start - 23 * 7_000),
      source: 'client',
      client: 'prober-9',
      server: 'docs',
      http: { method: 'GET', path: '/mcp', status: 405 },
      latencyMs: 2,
      discoveryRead: false,
    });
  }
}

/** Seed 000's third client: a tools/call on a missing slug, sent three times. */
export function missingSlugRetrier(w: DemoWriter): void {
  for (const start of [15 * HOUR, 2 * HOUR]) {
    const init = w.request('initialize', { protocolVersion: '2026-07-28' });
    w.call(w.at(start), 'agent-3', 'docs', init, ok(init, {}));
    for (let i = 1; i <= 3; i++) {
      const call = w.request('tools/call', { name: 'docs.get', arguments: { slug: 'release-2026-13' } });
      w.call(
        w.at(start - i * 2_000),
        'agent-3',
        'docs',
        call,
        failure(call, -32602, 'Unknown record: release-2026-13'),
      );
    }
  }
}

/** An SSE reconnect loop after 405s: GET /mcp every few seconds for hours, still running now. */
export function reconnectStorm(w: DemoWriter): void {
  for (let t = 10 * HOUR; t > 0; t -= 3_000) {
    w.add({
      ts: w.at(t),
      source: 'proxy',
      client: 'ide-host',
      server: 'files',
      http: { method: 'GET', path: '/mcp', status: 405 },
      latencyMs: 1,
    });
  }
  for (let t = 10 * HOUR; t > 0; t -= 6 * MINUTE) {
    const call = w.request('tools/call', { name: 'files.read', arguments: { path: `/src/${t % 97}.ts` } });
    w.call(w.at(t), 'ide-host', 'files', call, ok(call));
  }
}
