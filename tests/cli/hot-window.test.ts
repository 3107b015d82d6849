import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HOUR_MS } from '../../shared/analysis/time-buckets.ts';
import { createTestApp, postNdjson } from '../support/app.ts';
import { lens, serveLens } from '../support/cli.ts';
import { clientEvent } from '../support/events.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';
import { tableRows } from '../support/tables.ts';

/**
 * `lens serve` packs events older than 48 h into cold blocks (issue 41, docs/adr/0021-cold-events-in-blocks.md), or
 * older than `--hot-window`; with `off`, or when events are kept no longer than 48 h, nothing is packed; a window it
 * cannot use is refused.
 */

const LISTENING = /stored: .*\n/;
/** How long the first pass (5 s after start) may take to pack a few hundred events on a loaded machine. */
const PACKED_WITHIN_MS = 90_000;

describe('lens serve --hot-window', () => {
  it.each([
    [['--hot-window', 'bogus'], '--hot-window takes a number of hours or days, such as 48h, or off; got "bogus"'],
    [
      ['--hot-window', '1h'],
      '--hot-window must be at least 2h: the last whole hour stays out of blocks on every clock',
    ],
    [
      ['--retain-events', '2d', '--hot-window', '48h'],
      '--hot-window must be shorter than --retain-events: no event would be left to pack',
    ],
  ])('refuses `serve %j` with exit 2 and one line', async (args, problem) => {
    const { code, stdout, stderr } = await lens(['serve', '--port', '0', ...args]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(`lens serve: ${problem}\n`);
  });

  it('starts with packing off when said so, or when events are kept no longer than the default window', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lens-hot-off-'));
    try {
      for (const [i, args] of [
        ['--hot-window', 'off'],
        ['--retain-events', '2d', '--hot-window', 'off'],
        ['--retain-events', '2d'],
      ].entries()) {
        const server = await serveLens(['--data-dir', join(dir, String(i)), ...args], LISTENING);
        expect(await server.stop()).toBe(0);
        expect(server.stderr()).toBe('');
        // It says what it packs only when it packs.
        expect(server.stdout).toContain('  data:   ');
        expect(server.stdout).not.toContain('packs:');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe.each(STORE_KINDS)('lens serve, by default, on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    beforeEach(async () => {
      db = await kind.open();
    });
    afterEach(async () => db.dispose());

    it('packs the events older than 48 h soon after it starts, and reads them as before', async () => {
      // Three servers' events three days back, over four hours (packed), and a day back (kept as rows).
      const now = Date.now();
      const at = (ago: number, n: number, tag: string) =>
        Array.from({ length: n }, (_, i) =>
          clientEvent({
            id: `${tag}-${i}`,
            ts: new Date(now - ago + Math.floor((i * 4 * HOUR_MS) / n)).toISOString(),
            server: ['docs', 'files', 'search'][i % 3],
          }),
        );
      const old = at(72 * HOUR_MS, 240, 'old');
      const recent = at(24 * HOUR_MS, 60, 'recent');
      expect((await postNdjson(createTestApp(db.store), [...old, ...recent])).status).toBe(200);
      const range = `from=${new Date(now - 4 * 24 * HOUR_MS).toISOString()}&to=${new Date(now).toISOString()}`;

      // No --hot-window: the default 48 h.
      const server = await serveLens(['--data-dir', db.config.dataDir], LISTENING, {
        env: { DATABASE_URL: db.config.databaseUrl ?? '' },
      });
      try {
        const url = /listening on (\S+)/.exec(server.stdout)?.[1] as string;
        expect(server.stdout).toContain('  packs:  events older than 48 h into compressed blocks');
        const read = async (path: string) => (await fetch(`${url}${path}`)).json();
        const listed = async () => (await read(`/api/v1/events?${range}&limit=1`)).total.count;
        const before = { total: (await read(`/api/v1/summary?${range}`)).overall.total, listed: await listed() };
        expect(before).toEqual({ total: old.length + recent.length, listed: old.length + recent.length });

        const deadline = Date.now() + PACKED_WITHIN_MS;
        while ((await tableRows(db.store, 'events')) > recent.length) {
          if (Date.now() > deadline) throw new Error(`the old events were not packed within ${PACKED_WITHIN_MS} ms`);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        expect(await tableRows(db.store, 'events')).toBe(recent.length);
        const [packed] = await db.store.all<{ n: number | string }>(sql`SELECT sum(rows) AS n FROM cold_blocks`);
        expect(Number(packed?.n)).toBe(old.length);
        // The health says where the rows begin: after the old events, before the recent ones.
        const { kept } = await read('/api/v1/health');
        expect(kept.rowsFrom).toBeGreaterThan(Math.max(...old.map((event) => Date.parse(String(event.ts)))));
        expect(kept.rowsFrom).toBeLessThanOrEqual(Math.min(...recent.map((event) => Date.parse(String(event.ts)))));
        expect({ total: (await read(`/api/v1/summary?${range}`)).overall.total, listed: await listed() }).toEqual(
          before,
        );
      } finally {
        expect(await server.stop()).toBe(0);
      }
    }, 150_000);
  });
});
