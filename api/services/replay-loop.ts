import type { Store } from '../../db/runner.ts';
import { replayDuePartitions } from './gate-maintenance.ts';

export interface ReplayLoop {
  /** Runs one round now (after any round in progress); resolves with how many replays it wrote. */
  round(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Runs the gate replays that are due behind the commit (api/services/gate-maintenance.ts), one round after another
 * while there is work, then every `idleMs`. A round that fails (the store away) is logged and tried again later:
 * what is due stays due in the store.
 */
export function startReplayLoop(store: Store, options: { idleMs: number; log: (message: string) => void }): ReplayLoop {
  let stopped = false;
  let running: Promise<number> = Promise.resolve(0);
  let timer: NodeJS.Timeout | undefined;
  const round = (): Promise<number> => {
    running = running.catch(() => 0).then(() => replayDuePartitions(store));
    return running;
  };
  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      round()
        .then((written) => schedule(written > 0 ? 0 : options.idleMs))
        .catch((error: unknown) => {
          options.log(`replaying the gate behind the commit failed: ${error instanceof Error ? error.message : error}`);
          schedule(options.idleMs);
        });
    }, delayMs);
    timer.unref();
  };
  schedule(options.idleMs);
  return {
    round,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running.catch(() => undefined);
    },
  };
}
