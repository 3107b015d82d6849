import { CountChanges } from '../../db/counters/changes.ts';
import { analysisEventOfRow } from '../../db/queries/analysis.ts';
import { auditPendingDenials, auditTouched } from '../../db/queries/denial-audit.ts';
import { foldRows, takeQueued } from '../../db/queries/fold-queue.ts';
import { tryFoldLock } from '../../db/queries/locks.ts';
import type { Store } from '../../db/runner.ts';
import { StormStateCache } from '../../shared/analysis/storm-state-cache.ts';
import { FreshRows } from './fresh-rows.ts';
import { advanceGate, INLINE_REPLAY_MAX } from './gate-maintenance.ts';
import { foldInputRequests } from './input-requests.ts';
import { secondsSince } from './process-metrics.ts';
import { joinFreshRecords } from './request-join.ts';

/**
 * The fold behind the commit. Ingest stores events and queues them (db/queries/fold-queue.ts); a fold takes the
 * queued events of the earliest times and, in one transaction with the taking, joins them to the other side's
 * records, counts them into the rollups, identity and code counts, and steps their gate verdicts and storms. A crash rolls back the
 * taking with the counting, so every event is counted once however the process ends. One fold runs at a time
 * across processes (the fold lock): each sees every earlier fold committed.
 *
 * Folding thousands of events at once is what makes it cheap: a minute's rollup row is written once per fold, not
 * once per batch, and the gate loads each key once.
 */
export async function foldQueued(
  store: Store,
  maxEvents: number = FOLD_EVENTS,
  inlineReplayMax: number = INLINE_REPLAY_MAX,
  fresh?: FreshRows,
  stormStates?: StormStateCache,
): Promise<number> {
  const { runs, audited } = await store.transaction(async (tx) => {
    if (!(await tryFoldLock(tx))) return { runs: [], audited: 0 };
    const taken = await takeQueued(tx, maxEvents);
    // An idle fold audits what the migration that built the denial audit left pending (0 once none is).
    if (taken.length === 0) return { runs: taken, audited: await auditPendingDenials(tx) };
    // A record shadowed or reclassified since it was stored was already changed in place: only counted ones count.
    const rows = (await foldRows(tx, taken, fresh?.known)).filter((row) => row.counted === 1);
    const shadowed = await joinFreshRecords(tx, rows);
    const replay = new Set(shadowed.filter((s) => s.client !== null).map((s) => JSON.stringify([s.client, s.server])));
    const moved = await advanceGate(tx, rows.map(analysisEventOfRow), replay, inlineReplayMax, stormStates);
    // Each step answered what it changed; the counts take it all at once, then the decision-store audit reads the
    // identities they touched as this transaction left them.
    const counts = new CountChanges();
    for (const row of rows) counts.stored(row);
    for (const row of shadowed) counts.shadowed(row);
    await foldInputRequests(tx, rows, shadowed, counts);
    counts.verdicts(moved);
    await counts.write(tx);
    await auditTouched(tx, counts.touched);
    return { runs: taken, audited: 0 };
  });
  fresh?.forget(runs);
  return audited + runs.reduce((sum, run) => sum + run.lastSeq - run.firstSeq + 1, 0);
}

/** Events per fold: about half a second of work here, and as long as ingest on SQLite waits for the file's lock. */
export const FOLD_EVENTS = 10_000;

/**
 * Stored rows held for the fold at most: a few folds' worth (~0.4 KB each), what is queued while the fold keeps up.
 * A backlog past it is read back.
 */
const FRESH_ROWS = 3 * FOLD_EVENTS;

/**
 * Heap the folder's storm states kept decoded may take (shared/analysis/storm-state-cache.ts): the bench's 1,000
 * live pairs (2.3 MB of states filed) fit; the soak's longer tails (~10 KB a pair) fit in part.
 */
const STORM_STATES_BYTES = 8 * 2 ** 20;

/** Folds until the queue is empty (or another process holds the fold). */
export async function foldAll(store: Store, inlineReplayMax: number = INLINE_REPLAY_MAX): Promise<number> {
  let folded = 0;
  for (;;) {
    const round = await foldQueued(store, FOLD_EVENTS, inlineReplayMax);
    if (round === 0) return folded;
    folded += round;
  }
}

/** What ingest and the server need of whoever folds: asked after each commit, waited for, stopped. */
export interface Folding {
  /**
   * The rows this process stored, for a fold in this process to take without reading them back; absent where the
   * folds run elsewhere (a thread of their own, api/services/fold-thread.ts).
   */
  readonly fresh?: FreshRows;
  kick(): void;
  /** Resolves once the folds asked for so far have run. */
  settled(): Promise<void>;
  /** No fold starts after this; the one under way finishes. */
  stop(): Promise<void>;
}

export interface FolderOptions {
  inlineReplayMax?: number;
  log?: (message: string) => void;
  /** Told how long each fold that folded something took, in seconds (GET /metrics). */
  onFold?: (seconds: number) => void;
}

/**
 * Runs folds in this process when asked (`kick`, after every ingest commit) and keeps going while there is work;
 * one fold at a time. `settled` resolves once the folds asked for so far have run.
 */
export class Folder implements Folding {
  readonly fresh = new FreshRows(FRESH_ROWS);
  readonly stormStates = new StormStateCache(STORM_STATES_BYTES);
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly options: FolderOptions = {},
  ) {}

  kick(): void {
    if (this.stopped) return;
    if (this.running !== null) {
      this.again = true;
      return;
    }
    this.running = this.run().finally(() => {
      this.running = null;
    });
  }

  async settled(): Promise<void> {
    while (this.running !== null) await this.running;
  }

  /** No fold starts after this; the one under way finishes. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.settled();
  }

  private async run(): Promise<void> {
    do {
      this.again = false;
      try {
        while (!this.stopped) {
          const began = performance.now();
          const { inlineReplayMax } = this.options;
          if ((await foldQueued(this.store, FOLD_EVENTS, inlineReplayMax, this.fresh, this.stormStates)) === 0) break;
          this.options.onFold?.(secondsSince(began));
        }
      } catch (error) {
        // The queue is intact (the fold rolled back): the next kick, or the server's periodic one, folds it.
        this.options.log?.(`fold failed, will retry: ${(error as Error).message}`);
        return;
      }
    } while (this.again && !this.stopped);
  }
}
