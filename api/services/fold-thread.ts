import { Worker } from 'node:worker_threads';
import type { StoreConfig } from '../../db/store.ts';
import type { Folding } from './fold.ts';

/**
 * The server's folds on a thread of their own (api/services/fold-worker.ts), with their own store connection: the
 * fold's CPU work (reading the events back, the gate, the counts) then runs beside ingest's parsing instead of
 * between its batches. On SQLite the two write connections take turns through the file's lock.
 */
export class FoldThread implements Folding {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, () => void>();
  private next = 0;
  private stopped = false;

  constructor(store: StoreConfig, options: { inlineReplayMax: number; log: (message: string) => void }) {
    this.worker = new Worker(new URL('./fold-worker.mjs', import.meta.url), {
      workerData: { store, inlineReplayMax: options.inlineReplayMax },
    });
    this.worker.on('message', (message: { done?: number; log?: string }) => {
      if (message.log !== undefined) options.log(message.log);
      if (message.done !== undefined) {
        this.waiting.get(message.done)?.();
        this.waiting.delete(message.done);
      }
    });
    this.worker.on('error', (error) => options.log(`the fold thread failed: ${error.message}`));
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

  private ask(op: 'settle' | 'stop'): Promise<void> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.worker.postMessage({ op, id });
    });
  }
}
