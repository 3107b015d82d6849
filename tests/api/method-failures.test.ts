import { readdirSync, readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverDetail } from '../../api/services/analysis/server-detail.ts';
import { setOverrides } from '../../api/services/server-config.ts';
import { methodFailures } from '../../db/counters/codes.ts';
import { METHOD_FAILURE_COUNTS } from '../../db/counters/families.ts';
import { rebuildStatement } from '../../db/counters/family.ts';
import type { SqlRunner } from '../../db/runner.ts';
import { BASE_TS } from '../support/events.ts';
import { ingestFolded } from '../support/ingest.ts';
import { replayMigration } from '../support/migrations.ts';
import { STORE_KINDS, skipOnCitus, type TestStore } from '../support/stores.ts';
import { mixedTraffic } from '../support/traffic.ts';

/** The reference: one server's counted failures per method over [from, to), grouped from the events. */
async function rawMethodFailures(db: SqlRunner, scope: { server: string; from: number; to: number }) {
  const rows = await db.all<{ method: string; failures: number }>(sql`SELECT coalesce(rpc_method, '') AS method,
      count(*) AS failures FROM events
    WHERE server = ${scope.server} AND ts >= ${scope.from} AND ts < ${scope.to} AND counted = 1
      AND bucket NOT IN ('ok', 'pending', 'unknown')
    GROUP BY 1`);
  return rows.sort((a, b) => b.failures - a.failures || (a.method < b.method ? -1 : a.method > b.method ? 1 : 0));
}

describe.each(STORE_KINDS)('failures per method on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    beforeAll(async () => {
      db = await kind.open();
      const events = mixedTraffic(1200, 5);
      for (let i = 0; i < events.length; i += 300) {
        await ingestFolded(
          db.store,
          events.slice(i, i + 300).map((value, n) => ({ line: n + 1, value })),
        );
      }
      // Moves s2's 503s from transient to refusal: their method's failures move with them, once.
      await setOverrides({
        ctx: { db: db.store, now: BASE_TS },
        input: {
          server: 's2',
          overrides: [{ match: { httpStatus: 503 }, bucket: 'refusal', kind: 'gone' }],
        },
      });
    });
    afterAll(async () => db.dispose());

    it('count what the events count, over any range', async () => {
      let rows = 0;
      for (const server of ['s0', 's1', 's2']) {
        for (const range of [
          { from: BASE_TS - 3_600_000, to: BASE_TS + 4 * 3_600_000 },
          { from: BASE_TS + 12_345, to: BASE_TS + 2 * 3_600_000 + 7_777 },
          { from: BASE_TS + 3_600_000 - 60_000, to: BASE_TS + 3_600_000 + 90_500 },
        ]) {
          const scope = { ...range, server };
          const kept = await methodFailures(db.store, { ...scope, eventsFrom: null });
          expect(kept, JSON.stringify(scope)).toEqual(await rawMethodFailures(db.store, scope));
          rows += kept.length;
        }
      }
      expect(rows).toBeGreaterThan(5);
    });

    it("are on the server page's data", async () => {
      const scope = { server: 's1', from: BASE_TS, to: BASE_TS + 4 * 3_600_000, eventsFrom: null };
      const detail = await serverDetail(db.store, scope, BASE_TS);
      expect(detail?.failuresByMethod).toEqual(await rawMethodFailures(db.store, scope));
      expect(detail?.failuresByMethod.length).toBeGreaterThan(0);
    });

    it('are filled by their migration from the stored events, as the fold counted them', async ({ skip }) => {
      skipOnCitus(
        skip,
        kind,
        "replays migration method_failures's INSERT ... SELECT on a placed store, which no Citus store goes through (lens citus-setup places a store after its migrations): it reads events beside the coordinator-local fold_queue (a correlated NOT EXISTS), a join Citus refuses",
      );
      const scope = { server: 's2', from: 0, to: BASE_TS + 4 * 3_600_000, eventsFrom: null };
      const before = await methodFailures(db.store, scope);
      await db.store.run(sql`DELETE FROM method_failure_minute`);
      await db.store.run(sql`DELETE FROM method_failure_hour`);
      await replayMigration(db.store, kind.name, 'method_failures', 'INSERT');
      expect(await methodFailures(db.store, scope)).toEqual(before);
    });
  });
});

describe('the migration that added the failures per method', () => {
  it.each([
    ['pg', new PgDialect()],
    ['sqlite', new SQLiteSyncDialect()],
  ] as const)('fills each level with the statement the declaration renders, on %s', (folder, dialect) => {
    const dir = new URL(`../../db/migrations/${folder}/`, import.meta.url);
    const file = readdirSync(dir).find((name) => name.endsWith('_method_failures.sql')) ?? '';
    const statements = readFileSync(new URL(file, dir), 'utf8')
      .split('--> statement-breakpoint')
      .map((statement) => statement.trim().replace(/;$/, ''));
    for (const level of METHOD_FAILURE_COUNTS.levels) {
      expect(statements).toContain(
        dialect.sqlToQuery(rebuildStatement(METHOD_FAILURE_COUNTS, level).inlineParams()).sql,
      );
    }
  });
});
