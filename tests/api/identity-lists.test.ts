import { SQL, StringChunk, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rankIdentities } from '../../api/services/analysis/identity-ranking.ts';
import { applyIdentityDeltas, hourListCuts, listContenders } from '../../db/counters/identities.ts';
import { eventDay } from '../../db/event-days.ts';
import { topIdentityRows } from '../../db/queries/analysis.ts';
import { ensureEventDays } from '../../db/queries/day-partitions.ts';
import type { SqlRunner, Store } from '../../db/runner.ts';
import { hourCaps, splitHours } from '../../shared/analysis/identity-ranking.ts';
import { HOUR_MS } from '../../shared/analysis/time-buckets.ts';
import { readCatalog } from '../support/catalog.ts';
import { BASE_TS, clientEvent } from '../support/events.ts';
import { ingestFolded } from '../support/ingest.ts';
import { asBeforeIdentityListsCovered, catalogBefore } from '../support/migrations.ts';
import { STORE_KINDS, skipOnCitus, type TestStore } from '../support/stores.ts';

const H = HOUR_MS;
const T = 500_000 * H;

/** Three hours of per-hour sends; s2 holds the same sends as s1, of identities with the same digests. */
const SENDS: [hour: number, name: string, sends: number][] = [
  [0, 'a', 10],
  [0, 'b', 6],
  [0, 'c', 3],
  [0, 'd', 2],
  [1, 'a', 8],
  [1, 'b', 7],
  [1, 'e', 4],
  [2, 'c', 9],
  [2, 'f', 2],
];

/** An identity of `server` whose digest is the hex digit `name` repeated: names a-f sort as their digests do. */
function identityOf(server: string, name: string): string {
  return `${server}:${name.repeat(32)}`;
}

function nameOf(identity: string): string {
  return identity.slice(-1);
}

describe.each(STORE_KINDS)('the hour lists on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    beforeAll(async () => {
      db = await kind.open();
      // Written here without an ingest, which would have made the day's partitions first (PostgreSQL keeps the hour
      // counts in month partitions, docs/adr/0009-retention.md).
      await ensureEventDays(db.store, [eventDay(T)]);
      await applyIdentityDeltas(
        db.store,
        ['s1', 's2'].flatMap((server) =>
          SENDS.map(([hour, name, sends]) => ({
            ts: T + hour * H + 1,
            server,
            identity: identityOf(server, name),
            sends,
          })),
        ),
      );
    });
    afterAll(async () => db?.dispose());

    /** The identities that can take one of the `n` places, with lists cut at `depth`. */
    async function contenders(window: { from: number; to: number }, depth: number, n: number, server = 's1') {
      const split = splitHours(window.from, window.to);
      const cuts = await hourListCuts(db.store, { ...split, server }, () => depth);
      const { hours, unlisted } = hourCaps(cuts, split);
      const rows = await listContenders(db.store, hours, { server, n, unlisted });
      return { unlisted, cuts, rows, names: [...new Set(rows.map((row) => nameOf(row.identity)))].sort() };
    }

    it('cut each list at its depth-th place, of the one server asked for', async () => {
      const { cuts, unlisted } = await contenders({ from: T, to: T + 3 * H }, 3, 1);
      // Hour 0's third place sent 3, hour 1's 4; hour 2 lists two, so it is whole and caps at one send.
      expect([...cuts].sort()).toEqual([
        [T, 3],
        [T + H, 4],
      ]);
      expect(unlisted).toBe(3 + 4 + 1);
      const both = await hourListCuts(db.store, splitHours(T, T + 3 * H), () => 3);
      expect(both.get(T)).toBe(6);
    });

    it('keep every identity whose most reaches the n-th surely sent, ties included', async () => {
      const day = { from: T, to: T + 3 * H, eventsFrom: null };
      // Listed (over the caps 3, 4, 1): a 10+8 (most 8+7+4), b 6+7 (8+3+3), c 9 (8+8), f 2 (8+1).
      expect((await contenders(day, 3, 1)).names).toEqual(['a']);
      expect((await contenders(day, 3, 2)).names).toEqual(['a', 'b', 'c']);
      // The third surely sent 9: f may reach 9, and tie.
      expect((await contenders(day, 3, 3)).names).toEqual(['a', 'b', 'c', 'f']);
      // Fewer candidates than places: every one that can have been sent twice.
      expect((await contenders(day, 3, 9)).names).toEqual(['a', 'b', 'c', 'f']);
    });

    it("give a contender's list rows, whole hours summed, and count a part-hour's list toward its most only", async () => {
      const { rows } = await contenders({ from: T, to: T + 3 * H }, 3, 1);
      // a's 10 and 8 over the caps 3 and 4.
      expect(rows).toEqual([{ identity: identityOf('s1', 'a'), listed: 18, listedHours: 2, overCaps: 11, parts: [] }]);
      // Hour 0 is a part-hour: its list counts toward the most, not toward what was surely sent in the window. The
      // first place surely sent is then c's 9, not a's 18, and every candidate's most reaches it.
      const late = await contenders({ from: T + H / 2, to: T + 3 * H }, 3, 1);
      expect(late.names).toEqual(['a', 'b', 'c', 'f']);
      // Its row of the part-hour with its sends per slot (all at the hour's start here), which bound it there.
      expect(late.rows).toContainEqual({
        identity: identityOf('s1', 'a'),
        listed: 8,
        listedHours: 1,
        overCaps: 8 - 4,
        parts: [{ start: T, identity: identityOf('s1', 'a'), sends: 10, slots: [10, 0, 0, 0, 0, 0] }],
      });
    });

    it('find no contender in hours without lists, or for no place', async () => {
      expect((await contenders({ from: T + 5 * H, to: T + 7 * H }, 3, 2)).rows).toEqual([]);
      expect((await contenders({ from: T, to: T + 3 * H }, 3, 0)).rows).toEqual([]);
      const count = await db.store.all<{ n: number }>(sql`SELECT count(*) AS n FROM identity_hour`);
      expect(Number(count[0]?.n)).toBe(2 * SENDS.length);
    });

    // The migration is PostgreSQL's alone: SQLite's partial index, of a WITHOUT ROWID table, holds the key already.
    if (kind.name === 'postgres') {
      it('give the same contenders after migration identity_lists_covered, from a store made before it', async ({
        skip,
      }) => {
        skipOnCitus(
          skip,
          kind,
          'undoes a migration on a placed store, which no Citus store goes through (lens citus-setup places a store after its migrations)',
        );
        const read = () => Promise.all([T, T + H / 2].map((from) => contenders({ from, to: T + 3 * H }, 3, 2)));
        const before = await read();
        await asBeforeIdentityListsCovered(db.store);
        expect(await readCatalog(db.store)).toEqual(await catalogBefore('postgres', 'identity_lists_covered'));
        await db.reopen();
        const lists = (await readCatalog(db.store)).identity_hour?.indexes.identity_hour_sends_idx;
        expect(lists?.included).toEqual(['server', 'identity']);
        expect(await read()).toEqual(before);
      });
    }
  });
});

describe.each(STORE_KINDS)('a server ranked from the hour lists on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    beforeAll(async () => {
      db = await kind.open();
      // Three hours: "big" sends six identities 10 to 15 times an hour, "small" three 3, 2 and 2 times.
      const sends: ToolCalls[] = [];
      for (let hour = 0; hour < 3; hour++) {
        for (const [i, name] of ['b1', 'b2', 'b3', 'b4', 'b5', 'b6'].entries()) {
          sends.push({ server: 'big', name, times: 10 + i, hour });
        }
        sends.push({ server: 'small', name: 's1', times: 3, hour });
        sends.push({ server: 'small', name: 's2', times: 2, hour });
        sends.push({ server: 'small', name: 's3', times: 2, hour });
      }
      await ingestToolCalls(db.store, sends);
    });
    afterAll(async () => db?.dispose());

    // Lists of 4 an hour, and never the events grouped instead: what the lists say is all there is.
    const limits = { wholeHourRows: 12, edgeRows: 0, maxPerHour: 4, groupUpTo: -1, countPerRound: 250 };
    const window = { from: BASE_TS, to: BASE_TS + 3 * H, eventsFrom: null };

    it('is ranked from the lists of all servers when they are sure of its top', async () => {
      const grouped = await topIdentityRows(db.store, { ...window, server: 'big' }, 2);
      const ranking = await rankIdentities(db.store, { ...window, server: 'big' }, 2, limits);
      expect(ranking).toEqual({ identities: grouped.map((row) => row.identity), exact: true });
    });

    it('is ranked from its own lists when those of all servers are cut above all it sent', async () => {
      // Every hour's list of all servers is cut at big's 12 sends; small's own lists hold all it re-sent.
      const grouped = await topIdentityRows(db.store, { ...window, server: 'small' }, 2);
      expect(grouped.length).toBe(2);
      const ranking = await rankIdentities(db.store, { ...window, server: 'small' }, 2, limits);
      expect(ranking).toEqual({ identities: grouped.map((row) => row.identity), exact: true });
    });
  });
});

describe.each(STORE_KINDS)('contenders counted a few at a time on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    beforeAll(async () => {
      db = await kind.open();
      // 30 identities over 4 hours, five sent 10-22 times an hour and the rest 0-6 (a fixed pseudo-random draw):
      // short lists leave loose bounds, so an identity counted later may beat one counted first.
      let seed = 7;
      const draw = () => {
        seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
        return seed % 7;
      };
      const sends: ToolCalls[] = [];
      for (let hour = 0; hour < 4; hour++) {
        for (let n = 0; n < 30; n++) {
          sends.push({ server: 's', name: `t${n}`, times: n < 5 ? 10 + 2 * draw() : draw(), hour });
        }
      }
      await ingestToolCalls(db.store, sends);
    });
    afterAll(async () => db?.dispose());

    it('rank as grouping the events does, one contender a round', async () => {
      const limits = { wholeHourRows: 32, edgeRows: 16, maxPerHour: 8, groupUpTo: -1, countPerRound: 1 };
      let compared = 0;
      for (const window of [
        { from: BASE_TS, to: BASE_TS + 4 * H, eventsFrom: null },
        { from: BASE_TS + H / 2, to: BASE_TS + 3 * H + H / 3, eventsFrom: null },
        { from: BASE_TS + H, to: BASE_TS + 3 * H, eventsFrom: null },
      ]) {
        for (const limit of [1, 2, 3, 5]) {
          const ranking = await rankIdentities(db.store, window, limit, limits);
          if (!ranking.exact) continue;
          const grouped = await topIdentityRows(db.store, window, limit);
          expect(ranking.identities).toEqual(grouped.map((row) => row.identity));
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(6);
    });
  });
});

describe.each(STORE_KINDS)("contenders on every whole hour's list on $name", (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    // Four hours: a, b and c sent 20, 16 and 14 times an hour (on every list), n0-n5 once to thrice.
    const hours = [0, 1, 2, 3];
    const listed = hours.flatMap((hour) =>
      Object.entries({ a: 20, b: 16, c: 14 }).map(([name, times]) => ({ server: 's', name, times, hour })),
    );
    const noise = hours.flatMap((hour) =>
      [0, 1, 2, 3, 4, 5].map((n) => ({ server: 's', name: `n${n}`, times: 1 + ((n + hour) % 3), hour })),
    );
    let db: TestStore;
    beforeAll(async () => {
      db = await kind.open();
      await ingestToolCalls(db.store, [...listed, ...noise]);
    });
    afterAll(async () => db?.dispose());

    it("are counted from their list rows and the part-hours' events, as grouping the events ranks them", async () => {
      const statements: string[] = [];
      const recorded: SqlRunner = {
        dialect: db.store.dialect,
        all: (query) => {
          statements.push(textOf(query));
          return db.store.all(query);
        },
        run: (query) => db.store.run(query),
      };
      // Lists of 4 an hour: each whole hour's is cut at a noise identity's 3 sends, above which a, b and c are listed.
      const limits = { wholeHourRows: 12, edgeRows: 4, maxPerHour: 4, groupUpTo: -1, countPerRound: 250 };
      // Three whole hours and 20 minutes of the fourth.
      const window = { from: BASE_TS, to: BASE_TS + 3 * H + H / 3, eventsFrom: null };
      const ranking = await rankIdentities(recorded, window, 2, limits);
      const grouped = await topIdentityRows(db.store, window, 2);
      expect(ranking).toEqual({ identities: grouped.map((row) => row.identity), exact: true });
      // Their bounds (over 10 sends a whole hour) send them to the hour counts, which their list rows already hold.
      expect(statements.filter((text) => text.includes('identity_hour AS ih'))).toEqual([]);
    });
  });
});

/** The text of a statement, its parameters as `?`: enough to tell which table a read looked up. */
function textOf(query: SQL): string {
  return query.queryChunks
    .map((chunk) => {
      if (chunk instanceof SQL) return textOf(chunk);
      if (chunk instanceof StringChunk) return chunk.value.join('');
      return '?';
    })
    .join('');
}

/** `times` calls of tool `name` from client c to `server`, a minute apart from the start of `hour`. */
interface ToolCalls {
  server: string;
  name: string;
  times: number;
  hour: number;
}

/** Stores and folds the calls; each call its own JSON-RPC id, one identity per (server, tool). */
async function ingestToolCalls(store: Store, sends: readonly ToolCalls[]): Promise<void> {
  const calls = sends.flatMap(({ server, name, times, hour }) =>
    Array.from({ length: times }, (_, i) => ({ server, name, ts: BASE_TS + hour * H + i * 60_000 })),
  );
  await ingestFolded(
    store,
    calls.map(({ server, name, ts }, n) => ({
      line: n + 1,
      value: clientEvent({
        ts,
        client: 'c',
        server,
        request: { jsonrpc: '2.0', id: n, method: 'tools/call', params: { name } },
      }),
    })),
  );
}
