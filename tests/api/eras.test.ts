import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EraMix } from '../../api/services/analysis/eras.ts';
import { eraOf } from '../../shared/era.ts';
import { validateEvent } from '../../shared/event.ts';
import { isSentByServer } from '../../shared/frames.ts';
import { analysed, createTestApp, get, putJson, type TestApp } from '../support/app.ts';
import { ALL_CORPORA, type CorpusName, corpusText, discoveriesOf, expectedOf } from '../support/corpus.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';

const RANGE = 'from=2026-11-01T00:00:00Z&to=2027-01-01T00:00:00Z';

interface Round {
  call: string;
  rounds: string[];
  roundTrips: number;
  callNotInLog?: boolean;
}

/** What expected.json says of mcp-ts-v2's events beyond the common members: the era and the MRTR calls. */
interface ExpectedV2 {
  events: Record<string, { era: '2025' | '2026' | null; bucket: string }>;
  scenarios: Record<string, { server: string; mrtrCalls?: Round[] }>;
}

/** Each line's server, client and era: expected.json's `era` for mcp-ts-v2; the older corpora name none, so there the
 * era read from the line (shared/era.ts, whose own tests hold it to the protocol). */
function erasOfLines(corpus: CorpusName): { id: string; server: string; client: string; era: string | null }[] {
  const expected = expectedOf(corpus) as unknown as ExpectedV2;
  return corpusText(corpus, 'client.ndjson')
    .trim()
    .split('\n')
    .map((line) => {
      const parsed = validateEvent(JSON.parse(line));
      if (!parsed.ok) throw new Error(parsed.error.message);
      const { event } = parsed;
      const id = event.id ?? '';
      const era = corpus === 'mcp-ts-v2' ? (expected.events[id]?.era ?? null) : eraOf(event);
      // A request the server sent to the client (its sampling request) is its conduct: filed under no client.
      const method = typeof event.request?.method === 'string' ? event.request.method : null;
      return { id, server: event.server, client: isSentByServer(method) ? '' : (event.client ?? ''), era };
    });
}

/** Requests per era of each name, as an EraMix counts them. */
function requestsBy(lines: ReturnType<typeof erasOfLines>, side: 'server' | 'client') {
  const out: Record<string, Record<string, number>> = {};
  for (const line of lines) {
    if (line[side] === '') continue;
    const counts = out[line[side]] ?? { '2025': 0, '2026': 0, none: 0 };
    counts[line.era ?? 'none'] = (counts[line.era ?? 'none'] ?? 0) + 1;
    out[line[side]] = counts;
  }
  return out;
}

/** A store of its own holding one corpus as a user sends it: each server's discovery document, then the client log. */
function corpusStore(kind: (typeof STORE_KINDS)[number], corpus: CorpusName) {
  const world: { db?: TestStore; app?: TestApp } = {};
  beforeAll(async () => {
    world.db = await kind.open();
    const app = createTestApp(world.db.store);
    world.app = app;
    for (const [server, document] of Object.entries(discoveriesOf(corpus))) {
      expect((await putJson(app, `/api/v1/servers/${server}/discovery`, document)).status).toBe(200);
    }
    const res = await app.request('/api/v1/ingest', {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson', host: '127.0.0.1:7700' },
      body: corpusText(corpus, 'client.ndjson'),
    });
    expect(res.status).toBe(200);
    await analysed(app);
  });
  afterAll(async () => world.db?.dispose());
  const json = async (path: string) => {
    if (world.app === undefined) throw new Error('no app');
    return (await get(world.app, path)).json();
  };
  return {
    json,
    serverEras: async (server: string): Promise<EraMix> => (await json(`/api/v1/servers/${server}?${RANGE}`)).eras,
    clientEras: async (): Promise<Record<string, EraMix | null>> => {
      const { clients } = await json(`/api/v1/clients?${RANGE}`);
      for (const { client, requests, eras } of clients as { client: string; requests: number; eras: EraMix }[]) {
        // The eras split the very requests the client's conduct counts.
        const { '2025': old, '2026': now, none } = eras.requests;
        expect({ client, requests: old + now + none }).toEqual({ client, requests });
      }
      return Object.fromEntries(clients.map((c: { client: string; eras: EraMix | null }) => [c.client, c.eras]));
    },
  };
}

describe.each(STORE_KINDS.flatMap((kind) => ALL_CORPORA.map((corpus) => ({ ...kind, corpus }))))(
  'eras of $corpus through the API on $name',
  (kind) => {
    describe.skipIf(kind.unavailable !== null)('', () => {
      const lines = erasOfLines(kind.corpus);
      const corpus = corpusStore(kind, kind.corpus);

      it('count each server’s and each client’s requests by the era of each event', async () => {
        const servers = requestsBy(lines, 'server');
        for (const [server, requests] of Object.entries(servers)) {
          expect({ server, requests: (await corpus.serverEras(server)).requests }).toEqual({ server, requests });
        }
        const clients = await corpus.clientEras();
        expect(Object.fromEntries(Object.entries(clients).map(([name, mix]) => [name, mix?.requests]))).toEqual(
          requestsBy(lines, 'client'),
        );
        // A2A has no MCP era; the MCP corpora have both.
        const known = Object.values(clients).reduce((n, mix) => n + (mix?.requests['2025'] ?? 0), 0);
        expect(known === 0).toBe(kind.corpus === 'a2a-js');
      });
    });
  },
);

describe.each(STORE_KINDS)('MCP 2026-07-28 rounds and eras of mcp-ts-v2 through the API on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    const lines = erasOfLines('mcp-ts-v2');
    const corpus = corpusStore(kind, 'mcp-ts-v2');
    const expected = expectedOf('mcp-ts-v2') as unknown as ExpectedV2;
    const calls = Object.values(expected.scenarios).flatMap((s) => s.mrtrCalls ?? []);

    it('say ledger-legacy answers only 2025 and classic-client speaks only 2025', async () => {
      expect(await corpus.serverEras('ledger-legacy')).toMatchObject({ speaks: ['2025'], legacyProbes: 2 });
      expect((await corpus.serverEras('atlas-notes')).speaks).toEqual(['2025', '2026']);
      const clients = await corpus.clientEras();
      expect(clients['classic-client']?.speaks).toEqual(['2025']);
      expect(clients['harbor-agent']?.speaks).toEqual(['2026']);
      // It probed in 2026 and was answered as a 2025-only server answers: it went on in 2025.
      expect(clients['bridge-agent']).toMatchObject({ speaks: ['2025', '2026'], legacyProbes: 2 });
    });

    it('count the input requests of atlas-notes as expected.json’s MRTR calls give them', async () => {
      const asked = calls.filter((call) => expected.events[call.rounds[0] ?? '']?.bucket === 'pending');
      const events = Object.values(expected.events);
      const roundsOf = (list: Round[]) => list.reduce((n, call) => n + call.roundTrips, 0);
      expect((await corpus.serverEras('atlas-notes')).inputRequests).toEqual({
        pending: events.filter((e) => e.bucket === 'pending').length,
        continuations: calls.flatMap((call) => call.rounds.filter((_, i) => i > 0 || call.callNotInLog)).length,
        calls: asked.length,
        rounds: roundsOf(asked),
        roundsPerCall: roundsOf(asked) / asked.length,
      });
      expect((await corpus.serverEras('ledger-legacy')).inputRequests).toMatchObject({
        pending: 0,
        roundsPerCall: null,
      });
    });

    it('show on each event its era and, for an MRTR round, every round of its call', async () => {
      const callOf = new Map(calls.flatMap((call) => call.rounds.map((id) => [id, call] as const)));
      expect(callOf.size).toBeGreaterThan(8);
      for (const line of lines) {
        const event = await corpus.json(`/api/v1/events/${line.id}`);
        const call = callOf.get(line.id);
        const want =
          call === undefined
            ? null
            : { rounds: call.rounds, round: call.rounds.indexOf(line.id) + 1, firstInLog: !call.callNotInLog };
        const got =
          event.call === null
            ? null
            : {
                rounds: event.call.rounds.map((r: { id: string }) => r.id),
                round: event.call.round,
                firstInLog: event.call.firstInLog,
              };
        expect({ id: line.id, era: event.era, call: got }).toEqual({ id: line.id, era: line.era, call: want });
      }
    });
  });
});
