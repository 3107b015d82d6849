import { Worker } from 'node:worker_threads';
import type { StoreConfig } from '../../db/store.ts';
import type { FolderOptions, Folding } from './fold.ts';

/**
 * The server's folds on a thread of their own (api/services/fold-worker.ts), with their own store connections: the
 * fold's CPU work (reading the events back, the gate, the counts) then runs beside ingest's parsing instead of
 * between its batches. PostgreSQL's alone (api/server.ts): SQLite's one writer gains nothing by a second connection.
 */
export class FoldThread implements Folding {
  private worker: Worker;
  private readonly waiting = new Map<number, () => void>();
  private next = 0;
  private stopped = false;

  constructor(
    private readonly store: StoreConfig,
    private readonly options: FolderOptions & { inlineReplayMax: number; log: (message: string) => void },
  ) {
    this.worker = this.spawn();
  }

  kick(): void {
    if (!this.stopped) this.worker.postMessage({ op: 'kick' });
  }

  settled(): Promise<void> {
    return this.ask('settle');
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.ask('stop');
    await this.worker.terminate();
  }

  private spawn(): Worker {
    const worker = new Worker(new URL('./fold-worker.mjs', import.meta.url), {
      workerData: { store: this.store, inlineReplayMax: this.options.inlineReplayMax },
    });
    worker.on('message', (message: { done?: number; log?: string; fold?: number }) => {
      if (message.log !== undefined) this.options.log(message.log);
      if (message.fold !== undefined) this.options.onFold?.(message.fold);
      if (message.done !== undefined) this.answer(message.done);
    });
    worker.on('error', (error) => this.options.log(`the fold thread failed: ${error.message}`));
    worker.on('exit', () => {
      // Whoever waits on it is answered; what it was folding stays queued, for the thread started in its place.
      for (const id of [...this.waiting.keys()]) this.answer(id);
      if (this.stopped) return;
      this.options.log('the fold thread ended; starting another');
      setTimeout(() => {
        if (this.stopped) return;
        this.worker = this.spawn();
        this.kick();
      }, RESPAWN_MS).unref();
    });
    return worker;
  }

  private answer(id: number): void {
    this.waiting.get(id)?.();
    this.waiting.delete(id);
  }

  private ask(op: 'settle' | 'stop'): Promise<void> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.worker.postMessage({ op, id });
    });
  }
}

/** A thread that keeps failing at start is not restarted in a tight loop. */
const RESPAWN_MS = 1_000;
