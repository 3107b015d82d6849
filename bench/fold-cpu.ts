/**
 * The fold's CPU alone, per counted event. Generated traffic (bench/generate.ts: 1,000 pairs, one event every 7 ms,
 * so past 43k events the pairs' storm tails hold a full probe window) is stored through the ingest service in
 * batches of 2,000 with nothing folding, then folded `foldEvents` at a time (a server that keeps up folds about one
 * ingest batch a fold). Prints process.cpuUsage() of those folds only (every thread of the process: SQLite's writer
 * too; not the PostgreSQL server's processes), per event.
 *
 * As on a server that keeps up, the first fold of each pair has seen only its first events: one fold's worth is
 * stored and folded first, unmeasured (else the first measured fold replays every pair over all `events` stored,
 * queued ones included, which no live server does). On SQLite the folds take the ingested rows from memory
 * (FreshRows) as the server's in-process folder does; on PostgreSQL they read them back, as its fold thread does.
 * Either way they keep what the server's folder keeps between folds.
 *
 *   node --import tsx bench/fold-cpu.ts [root] [events] [foldEvents] [sqlite|postgres] [spacingMs]
 *
 * `root` is the tree whose ingest and fold run (default: this one), so that the code before a change runs the same
 * load: run the two alternately, the machine's load moves between runs. Under `--cpu-prof` it also prints the
 * measured folds' span on the profiles' clock, to read their samples alone.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { syntheticLines } from './generate.ts';
import { withPostgres, withSqlite } from './support.ts';

const root = resolve(process.argv[2] ?? resolve(import.meta.dirname, '..'));
const total = Number(process.argv[3] ?? 60_000);
const foldEvents = Number(process.argv[4] ?? 5_000);
const kind = process.argv[5] ?? 'sqlite';
/** Between events, in ms: the default is `npm run bench`'s traffic; the soak's is 1 (a pair's states grow with it). */
const spacingMs = Number(process.argv[6] ?? 7);
const INGEST_BATCH = 2_000;

const load = (path: string) => import(pathToFileURL(resolve(root, path)).href);
const { openStore } = await load('db/store.ts');
const { ingestBatch } = await load('api/services/ingest.ts');
const { Folder, foldQueued } = await load('api/services/fold.ts');
const { FreshRows } = await load('api/services/fresh-rows.ts');

const lines = [...syntheticLines(total, 1, Date.parse('2026-11-02T00:00:00Z'), spacingMs)];
const run = kind === 'postgres' ? withPostgres : withSqlite;
const result = await run(async (config) => {
  const store = await openStore(config);
  const fresh = kind === 'postgres' ? undefined : new FreshRows(total);
  // What else the server's folder keeps between folds (a tree whose folder keeps nothing more passes undefined).
  const { stormStates } = new Folder(store);
  const ingest = async (from: number, to: number) => {
    for (let first = from; first < to; first += INGEST_BATCH) {
      const batch = lines.slice(first, Math.min(to, first + INGEST_BATCH)).map((text, i) => ({ line: i + 1, text }));
      await ingestBatch(store, batch, fresh);
    }
  };
  const foldAll = async () => {
    let folded = 0;
    let folds = 0;
    const fold = () => foldQueued(store, foldEvents, undefined, fresh, stormStates);
    for (let n = await fold(); n > 0; n = await fold()) {
      folded += n;
      folds++;
    }
    return { folded, folds };
  };
  try {
    await ingest(0, foldEvents);
    await foldAll();
    await ingest(foldEvents, total);
    const since = process.cpuUsage();
    const began = performance.now();
    const spanFrom = process.hrtime.bigint();
    const { folded, folds } = await foldAll();
    const used = process.cpuUsage(since);
    // The profiles' clock is the same monotonic one: their samples of the folds are those inside this span.
    if (process.execArgv.some((arg) => arg.startsWith('--cpu-prof'))) {
      console.error(`folds from ${spanFrom / 1000n} to ${process.hrtime.bigint() / 1000n} µs (monotonic)`);
    }
    return { folded, folds, cpuUs: used.user + used.system, wallMs: performance.now() - began };
  } finally {
    await store.close();
  }
});

console.log(
  JSON.stringify({
    root,
    kind,
    events: total,
    foldEvents,
    spacingMs,
    folds: result.folds,
    folded: result.folded,
    foldCpuS: +(result.cpuUs / 1e6).toFixed(2),
    foldWallS: +(result.wallMs / 1000).toFixed(2),
    cpuPerEventUs: +(result.cpuUs / result.folded).toFixed(1),
  }),
);
