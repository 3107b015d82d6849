import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { analysed, createTestApp, get, type TestApp } from '../support/app.ts';
import { hostLogText } from '../support/corpus.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';

/**
 * Bridge logs through POST /api/v1/ingest?format=… on both stores (issue 37): every request of the recorded run
 * counted once with the outcome its log shows, what the log cannot show counted as unknown (never ok), the bridge's
 * own lines stored as server events that count as no request, and what the reader says of the log in the answer.
 */
const START = '2026-12-06T01:30:00.000Z';
const RANGE = 'from=2026-12-06T00:00:00Z&to=2026-12-07T00:00:00Z';

describe.each(STORE_KINDS)('host logs through ingest on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeEach(async () => {
      db = await kind.open();
      app = createTestApp(db.store);
    });
    afterEach(async () => db.dispose());

    async function postLog(query: string, file: string) {
      const response = await app.request(`/api/v1/ingest?${query}`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', host: '127.0.0.1:7700' },
        body: hostLogText(file),
      });
      await analysed(app);
      return response;
    }

    async function summary() {
      return (await (await get(app, `/api/v1/summary?${RANGE}`)).json()).overall as {
        total: number;
        buckets: Record<string, number>;
        kinds: Record<string, Record<string, number>>;
      };
    }

    it('supergateway: 16 requests with their outcomes, no line refused, the blind spots stated in the answer', async () => {
      const res = await postLog(
        `format=supergateway&server=tools-server&start=${START}`,
        'supergateway/recorded-2.log',
      );
      expect(res.status).toBe(200);
      const report = await res.json();
      expect(report).toMatchObject({ accepted: 32, duplicates: 0, rejectedTotal: 0 });
      const said = report.warnings.filter((w: { field: string }) => w.field === 'format');
      expect(said.map((w: { message: string }) => w.message).join('\n')).toMatch(/writes no times[\s\S]*Request error/);
      const overall = await summary();
      // Server events (the bridge's start, its errors, stdin closed) are stored but count as no request.
      expect(overall.total).toBe(16);
      expect(overall.buckets).toMatchObject({ ok: 4, refusal: 6, ambiguous: 5, transient: 1, unknown: 0 });
      expect(overall.kinds.transient).toEqual({ timeout: 1 });

      // The refused tools/call sent again twice is a retry loop; its timeline says each attempt was answered, as
      // the frames show, though no HTTP status was logged.
      const { storms } = await (await get(app, `/api/v1/storms?${RANGE}`)).json();
      expect(storms.map((s: { kind: string }) => s.kind)).toEqual(['retry_loop']);
      const storm = await (await get(app, `/api/v1/storms/${encodeURIComponent(storms[0].id)}`)).json();
      expect(storm.timeline.map((a: { status: number | null; answered: boolean }) => [a.status, a.answered])).toEqual([
        [null, true],
        [null, true],
        [null, true],
      ]);

      const again = await (
        await postLog(`format=supergateway&server=tools-server&start=${START}`, 'supergateway/recorded-2.log')
      ).json();
      expect(again).toMatchObject({ accepted: 0, duplicates: 32 });
    });

    it('mcp-remote: answered requests whose outcome it never logs are unknown, not ok; the cancelled one a timeout', async () => {
      const report = await (
        await postLog(`format=mcp-remote&server=tools-server&start=${START}`, 'mcp-remote/recorded-1.log')
      ).json();
      expect(report.rejectedTotal).toBe(0);
      const overall = await summary();
      expect(overall.total).toBe(16);
      expect(overall.buckets).toMatchObject({ ok: 0, unknown: 15, transient: 1 });
      expect(overall.kinds.unknown).toEqual({ outcome_unknown: 15 });

      const listed = await (await get(app, `/api/v1/events?records=all&limit=1000&${RANGE}&bucket=unknown`)).json();
      const kinds = listed.events.map((e: { kind: string; counted: boolean }) => `${e.kind}:${e.counted}`);
      expect(kinds.filter((k: string) => k === 'server_event:false').length).toBe(report.accepted - 16);
      expect(kinds.filter((k: string) => k === 'outcome_unknown:true').length).toBe(15);
    });

    it('Claude Desktop: the server page says where its records came from; the event view which lines and what they show', async () => {
      const report = await (
        await postLog(
          'format=claude-desktop&file=mcp-server-tools-server.log',
          'claude-desktop/mcp-server-tools-server.log',
        )
      ).json();
      expect(report).toMatchObject({ rejectedTotal: 0 });
      await postLog(`format=mcp-remote&server=tools-server&start=${START}`, 'mcp-remote/recorded-1.log');
      const detail = await (await get(app, `/api/v1/servers/tools-server?${RANGE}`)).json();
      const sources = Object.fromEntries(
        detail.sources.formats.map(
          (row: { format: string; records: number; withFrames: number; note: string | null }) => [row.format, row],
        ),
      );
      // The two processes' initialize, the restarted connection's 14 calls and the server's sampling request carry
      // frames; the lifecycle and stderr lines do not.
      expect(sources['claude-desktop']).toMatchObject({ records: report.accepted, withFrames: 17, note: null });
      // mcp-remote's 16 requests carry the request as it logs it (method, id), none an answer: the note says why.
      expect(sources['mcp-remote'].withFrames).toBe(16);
      expect(sources['mcp-remote'].note).toContain('never logs an outcome');

      const listed = await (await get(app, `/api/v1/events?records=all&limit=1000&${RANGE}&bucket=transient`)).json();
      const cancelled = listed.events.find(
        (e: { origin: { format: string; facts: { cancelled?: string } | null } }) =>
          e.origin.format === 'claude-desktop' && e.origin.facts?.cancelled !== undefined,
      );
      const view = await (await get(app, `/api/v1/events/${encodeURIComponent(cancelled.id)}`)).json();
      expect(view.origin).toMatchObject({
        format: 'claude-desktop',
        label: 'Claude Desktop log',
        note: null,
        facts: { line: 39, answerLine: 47, cancelled: 'MCP error -32001: Request timed out', late: true },
      });
    });

    it('Claude Code: a server restarted in a loop is its failures and a reconnect loop of the host (ADR 19)', async () => {
      const report = await (await postLog('format=claude-code', 'claude-code/crash-loop.log')).json();
      expect(report).toMatchObject({ accepted: 20, rejectedTotal: 0 });
      const overall = await summary();
      // 7 starts counted (6 not connected, 1 connected); the stderr and exit lines stay server events.
      expect(overall.total).toBe(7);
      expect(overall.buckets).toMatchObject({ transient: 6, ok: 1 });
      const { storms } = await (await get(app, `/api/v1/storms?${RANGE}`)).json();
      expect(storms).toHaveLength(1);
      expect(storms[0]).toMatchObject({ kind: 'reconnect_loop', client: 'claude-code', server: 'tools-server' });
      expect(storms[0]).toMatchObject({ attempts: 7, avoidable: 3 });
      const storm = await (await get(app, `/api/v1/storms/${encodeURIComponent(storms[0].id)}`)).json();
      expect(storm.timeline.map((a: { bucket: string; avoidable: boolean }) => `${a.bucket}:${a.avoidable}`)).toEqual([
        ...Array(4).fill('transient:false'),
        ...Array(2).fill('transient:true'),
        'ok:true',
      ]);
      expect(storm.timeline.every((a: { rule: string; answered: boolean }) => a.rule === 'record.connection')).toBe(
        true,
      );
    });

    it('LibreChat: what it sent counted as unknown, never ok; its cancel a timeout; a cut frame kept; zone stated', async () => {
      const res = await postLog('format=librechat&tz=Europe/Berlin', 'librechat/librechat.compose.log');
      const report = await res.json();
      // 16 requests; the line not about MCP is left out, not refused.
      expect(report).toMatchObject({ accepted: 16, duplicates: 0, rejectedTotal: 0 });
      const said = report.warnings.filter((w: { field: string }) => w.field === 'format');
      expect(said.map((w: { message: string }) => w.message)).toContain('local times read in the zone Europe/Berlin');
      const overall = await summary();
      expect(overall.total).toBe(16);
      expect(overall.buckets).toMatchObject({ ok: 0, unknown: 15, transient: 1 });
      expect(overall.kinds.unknown).toEqual({ outcome_unknown: 15 });

      const listed = await (await get(app, `/api/v1/events?records=all&limit=1000&${RANGE}`)).json();
      const cut = listed.events.find(
        (e: { origin: { facts: { truncated?: boolean } | null } }) => e.origin.facts?.truncated === true,
      );
      const view = await (await get(app, `/api/v1/events/${encodeURIComponent(cut.id)}`)).json();
      expect(view.origin).toMatchObject({ format: 'librechat', label: 'LibreChat log', facts: { line: 2 } });
      expect(view.origin.note).toContain('only the frames it sends');
    });

    it('refuses a zone it does not know, saying what to send', async () => {
      const res = await postLog('format=mcp-remote&tz=Mars/Olympus', 'mcp-remote/recorded-1.log');
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatchObject({ code: 'invalid_request', field: 'tz', retryable: false });
    });
  });
});
