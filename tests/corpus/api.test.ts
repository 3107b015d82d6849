import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { analysed, createTestApp, get, putJson, type TestApp } from '../support/app.ts';
import { ALL_CORPORA, corpusText, discoveriesOf, expectedOf, firmView, identityGroups } from '../support/corpus.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';

interface StoredEvent {
  id: string;
  client: string;
  method: string | null;
  bucket: string;
  kind: string;
  rule: string;
  avoidable: boolean;
  identity: string | null;
}

/** What a client's scenario in expected.json lists of the requests its server made inside MRTR rounds. */
interface ServerRequests {
  serverRequests?: {
    requests: { event: string; inputKey: string; method: string; identity: string }[];
    represented: Record<string, number>;
  };
}

/** A context-gap record of expected.json (every one of the corpora's is trimmed, with a reason). */
interface ExpectedContext {
  event: string;
  reason: string;
}

describe.each(STORE_KINDS)('the recorded corpus through the API on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeEach(async () => {
      db = await kind.open();
      app = createTestApp(db.store);
    });
    afterEach(async () => db.dispose());

    async function ingestCorpus(corpus: (typeof ALL_CORPORA)[number], body: string) {
      for (const [server, document] of Object.entries(discoveriesOf(corpus))) {
        expect((await putJson(app, `/api/v1/servers/${server}/discovery`, document)).status).toBe(200);
      }
      const res = await app.request('/api/v1/ingest', {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson', host: '127.0.0.1:7700' },
        body,
      });
      expect(res.status).toBe(200);
      await analysed(app);
      return res.json();
    }

    async function storedEvents(): Promise<StoredEvent[]> {
      const page = await (await get(app, '/api/v1/events?limit=1000')).json();
      return page.events as StoredEvent[];
    }

    it.each(ALL_CORPORA)(
      'accepts every event of %s as the software wrote it, and classifies each as expected',
      async (corpus) => {
        const expected = expectedOf(corpus);
        const report = await ingestCorpus(corpus, corpusText(corpus, 'client.ndjson'));
        const total = Object.keys(expected.events).length;
        expect(report).toMatchObject({ accepted: total, duplicates: 0, rejected: [], rejectedTotal: 0 });
        const stored = await storedEvents();
        expect(stored).toHaveLength(total);
        const got = Object.fromEntries(stored.map((e) => [e.id, firmView(e)]));
        const want = Object.fromEntries(Object.entries(expected.events).map(([id, e]) => [id, firmView(e)]));
        expect(got).toEqual(want);
        // Where DOMAIN.md names the kind (rule 1's kinds are the frame's own reasons, ours are their family), ours is it.
        const named = Object.entries(expected.events).filter(([, e]) => e.kindFrom === 'DOMAIN.md' && e.rule !== 1);
        expect(named.length).toBeGreaterThan(0);
        const kinds = new Map(stored.map((e) => [e.id, e.kind]));
        for (const [id, e] of named) expect({ id, kind: kinds.get(id) }).toEqual({ id, kind: e.kind });
      },
    );

    it.each(ALL_CORPORA)('gives %s the identities of expected.json, and the same groups per client', async (corpus) => {
      const expected = expectedOf(corpus);
      await ingestCorpus(corpus, corpusText(corpus, 'client.ndjson'));
      const stored = await storedEvents();
      expect(Object.fromEntries(stored.map((e) => [e.id, e.identity]))).toEqual(
        Object.fromEntries(Object.entries(expected.events).map(([id, e]) => [id, e.identity])),
      );
      for (const [client, scenario] of Object.entries(expected.scenarios)) {
        expect(identityGroups(stored.filter((e) => e.client === client))).toEqual(
          Object.fromEntries(Object.entries(scenario.identityGroups).map(([k, ids]) => [k, [...ids].sort()])),
        );
      }
    });

    it.each(ALL_CORPORA)(
      "counts %s's re-presentations per client as expected.json, continuations left out",
      async (corpus) => {
        await ingestCorpus(corpus, corpusText(corpus, 'client.ndjson'));
        const range = `from=0&to=${Date.UTC(2100, 0)}&limit=50`;
        for (const [client, scenario] of Object.entries(expectedOf(corpus).scenarios)) {
          const { identities } = (await (await get(app, `/api/v1/identities?${range}&client=${client}`)).json()) as {
            identities: { identity: string; represented: number }[];
          };
          const represented = Object.fromEntries(
            identities.filter((i) => i.represented > 0).map((i) => [i.identity, i.represented]),
          );
          // A client's log holds what its servers asked of it too: in 2025 as events of their own (in `represented`),
          // in MCP 2026-07-28 inside the rounds' answers (`serverRequests`, DOMAIN.md section 10).
          const asked = (scenario as ServerRequests).serverRequests?.represented ?? {};
          expect({ client, represented }).toEqual({ client, represented: { ...scenario.represented, ...asked } });
        }
      },
    );

    it("counts the requests mcp-ts-v2's server made inside MRTR rounds as sends of their identities, and as its conduct", async () => {
      await ingestCorpus('mcp-ts-v2', corpusText('mcp-ts-v2', 'client.ndjson'));
      const range = `from=0&to=${Date.UTC(2100, 0)}`;
      const asked = Object.entries(expectedOf('mcp-ts-v2').scenarios).flatMap(([client, scenario]) =>
        ((scenario as ServerRequests).serverRequests?.requests ?? []).map((request) => ({ client, ...request })),
      );
      expect(asked.length).toBeGreaterThan(0);
      // Each identity's sends are the requests expected.json lists for it, at the rounds that asked.
      const byIdentity = groupBy(asked, (request) => `${request.client} ${request.identity}`);
      for (const [key, requests] of byIdentity) {
        const [client, identity] = key.split(' ') as [string, string];
        const res = await get(app, `/api/v1/identities/${encodeURIComponent(identity)}?${range}&client=${client}`);
        expect(res.status, key).toBe(200);
        const view = (await res.json()) as { sends: number; method: string; last: { id: string; bucket: string } };
        const last = requests.at(-1);
        expect({ key, sends: view.sends, method: view.method, last: view.last.id, bucket: view.last.bucket }).toEqual({
          key,
          sends: requests.length,
          method: last?.method,
          last: last?.event,
          bucket: 'pending',
        });
      }
      // The server's conduct: what it asked of its clients, per method, and how many of those it had asked before.
      const detail = await (await get(app, `/api/v1/servers/atlas-notes?${range}`)).json();
      const methods = groupBy(asked, (request) => request.method);
      expect(detail.sentByServer.inRounds).toEqual({
        requests: asked.length,
        again: asked.length - new Set(asked.map((request) => request.identity)).size,
        byMethod: Object.fromEntries([...methods].sort().map(([method, requests]) => [method, requests.length])),
      });
    });

    it.each(ALL_CORPORA)(
      "gives %s the context gap of expected.json, MRTR's sampling answers included",
      async (corpus) => {
        await ingestCorpus(corpus, corpusText(corpus, 'client.ndjson'));
        const records = Object.values(expectedOf(corpus).scenarios).flatMap(
          (scenario) => (scenario as { contextGap?: ExpectedContext[] }).contextGap ?? [],
        );
        const want = new Map<string, { trimmed: number; reasons: Record<string, number> }>();
        for (const record of records) {
          const server = (await (await get(app, `/api/v1/events/${record.event}`)).json()).server as string;
          const gap = want.get(server) ?? { trimmed: 0, reasons: {} };
          gap.trimmed += 1;
          gap.reasons[record.reason] = (gap.reasons[record.reason] ?? 0) + 1;
          want.set(server, gap);
        }
        const { servers } = (await (await get(app, `/api/v1/context-gap?from=0&to=${Date.UTC(2100, 0)}`)).json()) as {
          servers: { server: string; reported: number; trimmed: number; reasons: Record<string, number> }[];
        };
        const got = new Map(servers.map((s) => [s.server, { trimmed: s.trimmed, reasons: s.reasons }]));
        expect(got).toEqual(want);
        for (const s of servers) expect(s.reported, s.server).toBe(s.trimmed);
      },
    );

    it.each(ALL_CORPORA)('gives %s the same verdicts in any batching and order', async (corpus) => {
      const lines = corpusText(corpus, 'client.ndjson').trim().split('\n').reverse();
      for (let start = 0; start < lines.length; start += 17) {
        await ingestCorpus(corpus, `${lines.slice(start, start + 17).join('\n')}\n`);
      }
      const stored = await storedEvents();
      const expected = expectedOf(corpus);
      expect(Object.fromEntries(stored.map((e) => [e.id, e.avoidable]))).toEqual(
        Object.fromEntries(Object.entries(expected.events).map(([id, e]) => [id, e.avoidable])),
      );
    });

    it("counts a server's re-sent sampling requests for the server, never for the client", async () => {
      await ingestCorpus('mcp-python', corpusText('mcp-python', 'client.ndjson'));
      const expected = expectedOf('mcp-python').events;
      const range = 'from=2026-12-01T00:00:00Z&to=2026-12-03T00:00:00Z';
      const stored = await storedEvents();
      const serverSent = stored.filter((e) => e.method === 'sampling/createMessage' && e.avoidable);
      // represent-006..010 (the server asked again after the denial) and represent-016 (on the new session).
      expect(serverSent.map((e) => e.id).sort()).toEqual([
        'represent-006',
        'represent-007',
        'represent-008',
        'represent-009',
        'represent-010',
        'represent-016',
      ]);
      const avoidableOf = (client: string) =>
        Object.entries(expected).filter(([id, e]) => id.startsWith(`${client}-`) && e.avoidable).length;
      const { clients } = (await (await get(app, `/api/v1/clients?${range}`)).json()) as {
        clients: { client: string; avoidable: number }[];
      };
      const represent = clients.find((c) => c.client === 'represent');
      expect(represent?.avoidable).toBe(avoidableOf('represent') - serverSent.length);
      const detail = await (await get(app, `/api/v1/servers/release-desk?${range}`)).json();
      // Its 2025 requests are events of their own; it asked nothing inside MCP 2026-07-28 rounds.
      const inRounds = { requests: 0, again: 0, byMethod: {} };
      expect(detail.sentByServer).toEqual({ avoidable: serverSent.length, inRounds });
      const total = Object.values(expected).filter((e) => e.avoidable).length;
      expect(detail.counts.avoidable).toBe(total);
    });

    it.each(ALL_CORPORA)(
      "finds %s's storms as DOMAIN.md section 6 defines them: expected.json's, attempt for attempt",
      async (corpus) => {
        await ingestCorpus(corpus, corpusText(corpus, 'client.ndjson'));
        const expected = expectedOf(corpus).storms;
        expect(expected.length).toBeGreaterThan(0);
        const { storms } = await (await get(app, `/api/v1/storms?from=0&to=${Date.UTC(2100, 0)}&limit=1000`)).json();
        const found = [];
        for (const storm of storms) {
          const detail = await (await get(app, `/api/v1/storms/${storm.id}`)).json();
          const attempts = detail.timeline.map((a: { id: string }) => a.id);
          const avoidable = detail.timeline
            .filter((a: { avoidable: boolean }) => a.avoidable)
            .map((a: { id: string }) => a.id);
          expect(attempts).toHaveLength(storm.attempts);
          found.push({
            kind: storm.kind,
            actor: storm.actor,
            counterpart: storm.counterpart,
            server: storm.server,
            attempts,
            avoidable,
            title: storm.title,
          });
        }
        expect(found).toEqual(expected);
      },
    );

    it("shows on the prober's storm timeline which block each avoidable attempt hit", async () => {
      await ingestCorpus('a2a-js', corpusText('a2a-js', 'client.ndjson'));
      const range = 'from=2026-12-01T00:00:00Z&to=2026-12-03T00:00:00Z';
      const { storms } = await (await get(app, `/api/v1/storms?${range}`)).json();
      const probe = storms.find((s: { kind: string; client: string }) => s.client === 'card-prober');
      expect(probe?.kind).toBe('probe_storm');
      const detail = await (await get(app, `/api/v1/storms/${probe.id}`)).json();
      const blocks = detail.timeline.map((a: { avoidable: boolean; blockedBy: string | null }) => a.blockedBy);
      expect(blocks.filter((b: string | null) => b === 'endpoint')).toHaveLength(15);
      expect(detail.timeline.find((a: { blockedBy: string | null }) => a.blockedBy === 'endpoint').gate).toMatch(
        /^not sent: the endpoint POST \/\S* was refused \(not_declared\) at .*, whatever the body$/,
      );
    });
  });
});

/** Node 20 has no Map.groupBy. */
function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(keyOf(item), [...(groups.get(keyOf(item)) ?? []), item]);
  return groups;
}
