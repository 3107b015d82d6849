import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyRetention } from '../../api/services/retention.ts';
import { type AnalysisRow, analysisColumns, analysisEventOfRow } from '../../db/queries/analysis.ts';
import { denialAuditReads } from '../../db/queries/denial-audit.ts';
import type { Store } from '../../db/runner.ts';
import { identityText } from '../../db/stored-identity.ts';
import { auditDenials } from '../../shared/analysis/denials.ts';
import { HOUR_MS } from '../../shared/analysis/time-buckets.ts';
import { createTestApp, get, putJson, type TestApp } from '../support/app.ts';
import { BASE_TS, clientEvent, proxyEvent, rpcError } from '../support/events.ts';
import { ingestFolded } from '../support/ingest.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';

/**
 * The denial audit's checkpoints (ADR 15, db/queries/denial-audit.ts): whatever order events arrive in, late ones before
 * a checkpoint, shadowed or reclassified ones among them, the stored audit is the audit of the stored events; and a
 * refused identity re-presented all day is read an hour or two at a fold, not whole.
 */

const SERVER = 'release-notes';

function call(tool: string) {
  return { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: {} } };
}

/** Seed 002's denial: -32003 `policy.budget_exhausted`, lapsing at `resetsAt` when given. */
function denial(ts: number, tool: string, session: string, client: string, resetsAt?: number) {
  const data = {
    reason: 'policy.budget_exhausted',
    retryable: false,
    ...(resetsAt === undefined ? {} : { resetsAt: new Date(resetsAt).toISOString() }),
  };
  return clientEvent({
    ts: new Date(ts).toISOString(),
    session,
    client,
    request: call(tool),
    response: rpcError(-32003, 'Sampling denied: budget exhausted', data),
  });
}

function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * `count` events over `hours` on three tools and two clients: denials (some lapsing), successes, other refusals,
 * transient failures, and proxy records of successes that a client record arriving later shadows.
 */
function traffic(seed: number, count: number, hours: number): Record<string, unknown>[] {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const events: Record<string, unknown>[] = [];
  for (let n = 0; n < count; n++) {
    const ts = BASE_TS + Math.floor(next() * hours * HOUR_MS);
    const tool = pick(['a', 'b', 'c']);
    const session = pick(['s1', 's2', 's3']);
    const client = pick(['agent-7', 'agent-8']);
    const shape = next();
    const at = new Date(ts).toISOString();
    if (shape < 0.5) {
      events.push(denial(ts, tool, session, client, next() < 0.2 ? ts + Math.floor(next() * 2 * HOUR_MS) : undefined));
    } else if (shape < 0.6) {
      events.push(clientEvent({ ts: at, session, client, request: call(tool), response: rpcError(-32602, 'Bad') }));
    } else if (shape < 0.7) {
      events.push(
        clientEvent({
          ts: at,
          session,
          client,
          request: call(tool),
          http: { method: 'POST', path: '/mcp', status: 503 },
          response: undefined,
        }),
      );
    } else if (shape < 0.8) {
      // Seen by a proxy too: the proxy record counts until the client's is folded, then it is shadowed.
      events.push(proxyEvent({ ts: at, client, request: call(tool) }));
      events.push(clientEvent({ ts: at, session, client, request: call(tool) }));
    } else {
      events.push(clientEvent({ ts: at, session, client, request: call(tool) }));
    }
  }
  return events;
}

/** Mostly in time order, as ingest sees them; one in `lateShare` held back and sent a random while later. */
function arrivalOrder(events: Record<string, unknown>[], seed: number, lateShare: number) {
  const next = random(seed * 7 + 1);
  const sorted = [...events].sort((a, b) => String(a.ts).localeCompare(String(b.ts)));
  const order: Record<string, unknown>[] = [];
  const held: Record<string, unknown>[] = [];
  for (const e of sorted) {
    if (e.source === 'proxy' || next() >= lateShare) order.push(e);
    else held.push(e);
    // Held events come in at random later points, hours late for some.
    while (held.length > 0 && next() < 0.08) order.push(held.splice(Math.floor(next() * held.length), 1)[0] as never);
  }
  return [...order, ...held];
}

/** The stored audit, as rows: breaches (identity, refusal, answer, new session) and replays per identity, client, hour. */
async function storedAudit(store: Store) {
  const breaches = await store.all<{ identity: string; refusal: string; answer: string; newSession: number }>(sql`
    SELECT ${identityText(store)} AS identity, refusal, answer, new_session AS "newSession" FROM denial_breach`);
  const replays = await store.all<{ identity: string; client: string; start: number | string; replayed: number }>(
    sql`SELECT ${identityText(store)} AS identity, client, start, replayed FROM denial_replay_hour`,
  );
  const counted = async (table: string, keeps: string) => {
    const rows = await store.all<Record<string, number | string>>(sql`SELECT start, ${sql.raw(keeps)}, breaches,
        replayed FROM ${sql.raw(table)} WHERE breaches <> 0 OR replayed <> 0`);
    const names = keeps.split(', ');
    return rows.map((h) => [Number(h.start), ...names.map((name) => h[name]), h.breaches, h.replayed].join(' ')).sort();
  };
  return {
    hours: await counted('denial_hour', 'server, client'),
    clientHours: await counted('denial_client_hour', 'client'),
    serverHours: await counted('denial_server_hour', 'server'),
    breaches: breaches
      .map((b) => {
        const [refusal, answer] = [JSON.parse(b.refusal), JSON.parse(b.answer)];
        return `${b.identity} ${refusal.id} ${answer.id} ${answer.ts} ${b.newSession}`;
      })
      .sort(),
    replays: replays.map((r) => `${r.identity} ${r.client} ${Number(r.start)} ${Number(r.replayed)}`).sort(),
  };
}

/** The hour counts as the audit's rows add up: what `denial_hour` must hold (the migration fills it so). */
async function hoursOfRows(store: Store) {
  const rows = await store.all<Record<string, number | string>>(sql`SELECT start, server, client,
      sum(breaches) AS breaches, sum(replayed) AS replayed FROM (
      SELECT answer_ts - answer_ts % ${HOUR_MS} AS start, server, client, 1 AS breaches, 0 AS replayed
      FROM denial_breach
      UNION ALL SELECT start, server, client, 0 AS breaches, replayed FROM denial_replay_hour) AS parts
    GROUP BY start, server, client`);
  return rows.map((h) => `${Number(h.start)} ${h.server} ${h.client} ${h.breaches} ${h.replayed}`).sort();
}

/** The audit of every counted event stored now, in one pass (shared/analysis/denials.ts), as the same rows. */
async function expectedAudit(store: Store) {
  const rows = await store.all<AnalysisRow & { seq: number | string }>(
    sql`SELECT ${analysisColumns(store)}, events.seq AS seq FROM events WHERE counted = 1`,
  );
  const audit = auditDenials(rows.map((row) => ({ ...analysisEventOfRow(row), seq: Number(row.seq) })));
  const hours = new Map<string, number>();
  const perHour = new Map<string, [number, number]>();
  const add = (e: { server: string; client: string; ts: number }, breaches: number, replayed: number) => {
    const id = `${e.ts - (e.ts % HOUR_MS)} ${e.server} ${e.client}`;
    const [b, r] = perHour.get(id) ?? [0, 0];
    perHour.set(id, [b + breaches, r + replayed]);
  };
  for (const r of audit.replayed) {
    const id = `${r.identity} ${r.client} ${r.ts - (r.ts % HOUR_MS)}`;
    hours.set(id, (hours.get(id) ?? 0) + 1);
    add(r, 0, 1);
  }
  for (const d of audit.notHeld) add({ ...d, ts: d.answer.ts }, 1, 0);
  // The per-client and per-server hours: the pairs' summed.
  const summed = (keep: (start: string, server: string, client: string) => string) => {
    const sums = new Map<string, [number, number]>();
    for (const [id, [b, r]] of perHour) {
      const [start = '', server = '', client = ''] = id.split(' ');
      const key = keep(start, server, client);
      const [sb, sr] = sums.get(key) ?? [0, 0];
      sums.set(key, [sb + b, sr + r]);
    }
    return [...sums].map(([id, [b, r]]) => `${id} ${b} ${r}`).sort();
  };
  return {
    hours: [...perHour].map(([id, [b, r]]) => `${id} ${b} ${r}`).sort(),
    clientHours: summed((start, _server, client) => `${start} ${client}`),
    serverHours: summed((start, server) => `${start} ${server}`),
    breaches: audit.notHeld
      .map((d) => `${d.identity} ${d.refusal.id} ${d.answer.id} ${d.answer.ts} ${d.newSession ? 1 : 0}`)
      .sort(),
    replays: [...hours].map(([id, n]) => `${id} ${n}`).sort(),
  };
}

async function reclassify(app: TestApp, overrides: unknown[]) {
  expect((await putJson(app, `/api/v1/servers/${SERVER}/overrides`, { overrides })).status).toBe(200);
}

describe.each(STORE_KINDS)('the denial audit from checkpoints on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeEach(async () => {
      db = await kind.open();
      app = createTestApp(db.store);
    });
    afterEach(async () => db.dispose());

    async function send(events: readonly Record<string, unknown>[]) {
      const report = await ingestFolded(
        db.store,
        events.map((value, n) => ({ line: n + 1, value })),
      );
      expect(report).toMatchObject({ rejectedTotal: 0, accepted: events.length });
    }

    for (const seed of kind.name === 'sqlite' ? [1, 2, 3] : [1, 2]) {
      it(`stores what one pass over the stored events finds, in any arrival (seed ${seed})`, async () => {
        const events = arrivalOrder(traffic(seed, 260, 7), seed, 0.12);
        const next = random(seed * 13);
        const before = { ...denialAuditReads };
        let sent = 0;
        let step = 0;
        while (sent < events.length) {
          const size = 5 + Math.floor(next() * 40);
          await send(events.slice(sent, sent + size));
          sent += size;
          step++;
          // A reclassification re-files old events (back to the start), and undoing it re-files them again.
          if (step === 3) await reclassify(app, [{ rpcCode: -32003, bucket: 'transient', kind: 'retryable_denial' }]);
          if (step === 5) await reclassify(app, []);
          if (step % 3 === 0) expect(await storedAudit(db.store)).toEqual(await expectedAudit(db.store));
        }
        const expected = await expectedAudit(db.store);
        expect(await storedAudit(db.store)).toEqual(expected);
        expect(expected.breaches.length).toBeGreaterThan(0);
        expect(expected.replays.length).toBeGreaterThan(0);
        // Both ways were taken: resumed at checkpoints, and back to the start for late or re-filed events.
        expect(denialAuditReads.resumed).toBeGreaterThan(before.resumed);
        expect(denialAuditReads.full).toBeGreaterThan(before.full);
        const shadowed = await db.store.all<{ n: number | string }>(
          sql`SELECT count(*) AS n FROM events WHERE counted = 0`,
        );
        expect(Number(shadowed[0]?.n)).toBeGreaterThan(0);
      });
    }

    it('counts a window from its whole hours and its edges as from the audit rows themselves', async () => {
      await send(arrivalOrder(traffic(4, 400, 7), 4, 0.1));
      const windows = [
        [BASE_TS, BASE_TS + 7 * HOUR_MS],
        [BASE_TS + 17 * 60_000, BASE_TS + 5 * HOUR_MS + 3 * 60_000],
        [BASE_TS + 2 * HOUR_MS + 5 * 60_000, BASE_TS + 2 * HOUR_MS + 40 * 60_000],
      ];
      let counted = 0;
      for (const [from, to] of windows as [number, number][]) {
        for (const narrowed of ['', '&client=agent-8', `&server=${SERVER}`]) {
          const res = await get(app, `/api/v1/denials?from=${from}&to=${to}${narrowed}`);
          expect(res.status).toBe(200);
          const answer = await res.json();
          const client = narrowed.startsWith('&client=') ? sql` AND client = 'agent-8'` : sql``;
          const breaches = await db.store.all<{ client: string; n: number | string }>(sql`SELECT client,
              count(*) AS n FROM denial_breach WHERE answer_ts >= ${from} AND answer_ts < ${to}${client}
            GROUP BY client`);
          const replays = await db.store.all<{ client: string; n: number | string }>(sql`SELECT client,
              sum(replayed) AS n FROM denial_replay_hour
            WHERE start >= ${from - (from % HOUR_MS)} AND start < ${to}${client} GROUP BY client`);
          const byClient = Object.fromEntries(breaches.map((row) => [row.client, Number(row.n)]));
          expect(answer.byClient).toEqual(byClient);
          expect(answer.total).toBe(Object.values(byClient).reduce((a, b) => a + b, 0));
          const replayed = Object.fromEntries(replays.map((row) => [row.client, Number(row.n)]));
          for (const row of answer.representedRefusals) expect(row.replayed).toBe(replayed[row.client] ?? 0);
          counted += answer.total;
        }
      }
      expect(counted).toBeGreaterThan(0);
      expect((await storedAudit(db.store)).hours).toEqual(await hoursOfRows(db.store));
    });

    it('reads an hour or two of a storm identity at a fold, not all its sends', async () => {
      const perHour = 60;
      const hours = 20;
      const storm = Array.from({ length: perHour * hours }, (_, n) =>
        denial(BASE_TS + Math.floor((n * HOUR_MS) / perHour), 'storm', `s${n % 50}`, 'agent-7'),
      );
      const batch = 50;
      const reads: number[] = [];
      for (let i = 0; i < storm.length; i += batch) {
        const before = denialAuditReads.events;
        await send(storm.slice(i, i + batch));
        reads.push(denialAuditReads.events - before);
      }
      // A fold re-reads the events from the hour before its newest one's: at most two hours and its own.
      expect(Math.max(...reads)).toBeLessThanOrEqual(2 * perHour + batch);
      // Before checkpoints a fold read all sends so far: the last one all of them.
      expect(reads.reduce((a, b) => a + b, 0)).toBeLessThan((storm.length * 4) / 1);
      const audit = await storedAudit(db.store);
      expect(audit).toEqual(await expectedAudit(db.store));
      expect(audit.replays.reduce((sum, row) => sum + Number(row.split(' ').at(-1)), 0)).toBe(storm.length - 1);
      // A late send, before the checkpoint: the audit goes back to the start once, and is still exact.
      const full = denialAuditReads.full;
      const before = denialAuditReads.events;
      await send([denial(BASE_TS + 30_000, 'storm', 's-late', 'agent-8')]);
      expect(denialAuditReads.full).toBe(full + 1);
      expect(denialAuditReads.events - before).toBe(storm.length + 1);
      expect(await storedAudit(db.store)).toEqual(await expectedAudit(db.store));
    });

    it('re-bases no audit in a retention pass with no event before its horizon', async () => {
      await send(arrivalOrder(traffic(5, 120, 7), 5, 0.1));
      const audited = await db.store.all<{ n: number | string }>(sql`SELECT count(*) AS n FROM denial_identity`);
      expect(Number(audited[0]?.n)).toBeGreaterThan(0);
      const before = await storedAudit(db.store);
      // A horizon a day before the first event: nothing to delete, so no base to move up.
      await applyRetention(db.store, { eventsMs: 30 * 24 * HOUR_MS, countsMs: 400 * 24 * HOUR_MS }, BASE_TS);
      const based = await db.store.all<{ n: number | string }>(
        sql`SELECT count(*) AS n FROM denial_identity WHERE base_at IS NOT NULL`,
      );
      expect(Number(based[0]?.n)).toBe(0);
      expect(await storedAudit(db.store)).toEqual(before);
    });

    it('keeps, past retention, the decisions the deleted events made', async () => {
      const day = 24 * HOUR_MS;
      const start = BASE_TS - (BASE_TS % day);
      const success = (ts: number, session: string) =>
        clientEvent({ ts: new Date(ts).toISOString(), session, request: call('kept') });
      // A breach on the first day, then a new decision that never lapses, and the next day, a success breaking it.
      await send([
        denial(start + HOUR_MS, 'kept', 's1', 'agent-7'),
        success(start + 2 * HOUR_MS, 's2'),
        denial(start + 3 * HOUR_MS, 'kept', 's2', 'agent-7'),
        success(start + day + 5 * HOUR_MS, 's3'),
      ]);
      const whole = await expectedAudit(db.store);
      expect(whole.breaches).toHaveLength(2);
      expect(await storedAudit(db.store)).toEqual(whole);
      // Events kept from the second day: the first day's go, with the refusals that decided.
      await applyRetention(db.store, { eventsMs: day, countsMs: 400 * day }, start + 2 * day);
      const left = await db.store.all<{ n: number | string }>(sql`SELECT count(*) AS n FROM events`);
      expect(Number(left[0]?.n)).toBe(1);
      // A late replay of the decision, after the horizon and before the checkpoint: the audit starts again from the
      // decisions standing at the horizon, and reads only the events kept.
      const [full, read] = [denialAuditReads.full, denialAuditReads.events];
      await send([denial(start + day + 60_000, 'kept', 's2', 'agent-7')]);
      expect(denialAuditReads.full).toBe(full + 1);
      expect(denialAuditReads.events - read).toBe(2);
      const after = await storedAudit(db.store);
      // Both breaches kept: the first day's (final, before the horizon), and the second day's, whose decision only
      // the base remembers; and the late answer is the decision replayed.
      expect(after.breaches).toEqual(whole.breaches);
      const identity = after.breaches[0]?.split(' ')[0];
      expect(after.replays).toEqual([...whole.replays, `${identity} agent-7 ${start + day} 1`].sort());
      expect(after.hours).toEqual(await hoursOfRows(db.store));
    });
  });
});
