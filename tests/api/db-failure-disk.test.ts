import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../db/runner.ts';
import { openStore } from '../../db/store.ts';
import { createTestApp, get, postNdjson, type TestApp } from '../support/app.ts';
import { clientEvent } from '../support/events.ts';

/** A 4 MiB file system of the test's own, so that "the disk is full" is real and cheap. */
function mountSmallDisk(at: string): void {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', at], { stdio: 'pipe' });
}

/** Null when this process may mount one (it is mounted and unmounted once to know); otherwise why not. */
function mountProblem(): string | null {
  const probe = mkdtempSync(join(tmpdir(), 'lens-mount-probe-'));
  try {
    mountSmallDisk(probe);
    execFileSync('umount', [probe]);
    return null;
  } catch (error) {
    const detail = error instanceof Error && 'stderr' in error ? String(error.stderr).trim() : String(error);
    return `cannot mount a tmpfs (${detail || 'mount failed'}); this needs root`;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

const unmountable = mountProblem();
if (unmountable !== null) {
  if (process.env.CI) throw new Error(`the full-disk suite must run in CI: ${unmountable}`);
  console.warn(`\n*** SQLite full-disk suite SKIPPED: ${unmountable}. ***\n`);
}

const batch = (size: number) => Array.from({ length: size }, () => clientEvent());

describe.skipIf(unmountable !== null)('SQLite on a full disk', () => {
  let mountPoint: string;
  let filler: string;
  let store: Store;
  let app: TestApp;

  beforeAll(async () => {
    mountPoint = mkdtempSync(join(tmpdir(), 'lens-full-'));
    filler = join(mountPoint, 'filler');
    mountSmallDisk(mountPoint);
    store = await openStore({ dataDir: join(mountPoint, 'data') });
    app = createTestApp(store);
  });

  afterAll(async () => {
    await store?.close();
    execFileSync('umount', [mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  it('refuses the batch that does not fit with 507, keeps every acknowledged one, and takes more once freed', async () => {
    // Leave about 1 MiB: a few batches fit, then the WAL cannot grow.
    const { bavail, bsize } = statfsSync(mountPoint);
    writeFileSync(filler, Buffer.alloc(Math.max(0, bavail * bsize - 1024 * 1024)));

    const acknowledged: string[] = [];
    let refused: { res: Response; events: Record<string, unknown>[] } | null = null;
    for (let i = 0; i < 100 && refused === null; i++) {
      const events = batch(50);
      const res = await postNdjson(app, events);
      if (res.status !== 200) refused = { res, events };
      else {
        expect((await res.json()).accepted).toBe(50);
        acknowledged.push(...events.map((e) => e.id as string));
      }
    }
    expect(refused).not.toBeNull();
    if (refused === null) return;
    expect(acknowledged.length).toBeGreaterThan(0);
    console.info(`SQLite full-disk suite: the disk filled after ${acknowledged.length} acknowledged events`);
    expect(refused.res.status).toBe(507);
    expect(refused.res.headers.get('retry-after')).toBe('60');
    expect(await refused.res.json()).toEqual({
      error: {
        code: 'store_full',
        message: expect.stringContaining('no disk space'),
        fix: expect.stringContaining('Free disk space'),
        retryable: true,
        retryAfterSeconds: 60,
      },
    });

    // Still full: reads answer, and hold every acknowledged event and nothing of the refused batch.
    const stored = await (await get(app, '/api/v1/events?limit=1000')).json();
    expect(new Set(stored.events.map((e: { id: string }) => e.id))).toEqual(new Set(acknowledged));
    // The counts may trail while the fold has no room to write them either, by exactly what /health says is pending.
    const counted = (await (await get(app, '/api/v1/summary')).json()).overall.total;
    const { analysis } = await (await get(app, '/api/v1/health')).json();
    expect(counted + analysis.pendingEvents).toBe(acknowledged.length);
    const lost = refused.events[0]?.id as string;
    expect((await get(app, `/api/v1/events/${encodeURIComponent(lost)}`)).status).toBe(404);

    // Space comes back: the same batch, sent again as a client would, is taken without a restart.
    rmSync(filler);
    const again = await postNdjson(app, refused.events);
    expect(again.status).toBe(200);
    expect((await again.json()).accepted).toBe(refused.events.length);
    const after = await (await get(app, '/api/v1/events?limit=1000')).json();
    expect(after.events.length).toBe(acknowledged.length + refused.events.length);
    expect((await (await get(app, '/api/v1/summary')).json()).overall.total).toBe(
      acknowledged.length + refused.events.length,
    );
  });
});
