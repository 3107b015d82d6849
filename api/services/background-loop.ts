export interface BackgroundLoop {
  stop(): Promise<void>;
}

/**
 * Runs `round` behind the requests, one round after another while it answers that there is more to do, else every
 * `idleMs`. A round that fails (the store away) is logged and tried again later: its work stays in the store. The
 * gate replays due behind the commit and retention run this way. The first round runs `firstDelayMs` after the
 * start (default `idleMs`).
 */
export function startBackgroundLoop(
  round: () => Promise<boolean>,
  options: { idleMs: number; firstDelayMs?: number; what: string; log: (message: string) => void },
): BackgroundLoop {
  let stopped = false;
  let running: Promise<boolean> = Promise.resolve(false);
  let timer: NodeJS.Timeout | undefined;
  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = round();
      running
        .then((more) => schedule(more ? 0 : options.idleMs))
        .catch((error: unknown) => {
          options.log(`${options.what} failed: ${error instanceof Error ? error.message : error}`);
          schedule(options.idleMs);
        });
    }, delayMs);
    timer.unref();
  };
  schedule(options.firstDelayMs ?? options.idleMs);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running.catch(() => undefined);
    },
  };
}
