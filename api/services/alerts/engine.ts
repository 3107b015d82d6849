import { claimRound, dueRuleRows } from '../../../db/queries/alerts.ts';
import type { Store } from '../../../db/runner.ts';
import { ALERTMANAGER_RESEND_MS } from '../../../shared/alerts/receivers.ts';
import { secondsSince } from '../process-metrics.ts';
import { ServiceError } from '../service-error.ts';
import { resendToAlertmanagers } from './alertmanager-resend.ts';
import { type DeliveryOptions, deliverDue } from './deliver.ts';
import { evaluateRule } from './evaluate.ts';
import { roundReader } from './readings.ts';
import { toRule } from './rules.ts';

/** Rules evaluated per tick at most; a backlog (after downtime) is worked off over the next ticks. */
const RULES_PER_TICK = 500;

export interface EngineOptions extends DeliveryOptions {
  /** How often the engine looks for due rules and notifications. */
  tickMs: number;
  log: (message: string) => void;
  /** Told how long each rule's evaluation took, in seconds (GET /metrics). */
  onEvaluated?: (seconds: number) => void;
}

export interface AlertEngine {
  /**
   * One round: evaluate the due rules, send the due notifications, and once a minute tell the Alertmanagers again
   * what is firing. Answers how many rules it evaluated.
   */
  tick(): Promise<number>;
  stop(): Promise<void>;
}

/** Evaluates the due rules of one round; rules sharing a window and scope share one read of the events. */
export async function evaluateDue(
  store: Store,
  now: number,
  log: (message: string) => void,
  onEvaluated?: (seconds: number) => void,
): Promise<number> {
  const due = (await dueRuleRows(store, now, RULES_PER_TICK)).flatMap((row) => {
    try {
      return [{ row, rule: toRule(row) }];
    } catch (error) {
      // One unreadable definition must not stop every other rule's round.
      log(`alert rule ${row.id} has an unreadable definition: ${error instanceof Error ? error.message : error}`);
      return [];
    }
  });
  const read = roundReader(store, now);
  let evaluated = 0;
  for (const { row, rule } of due) {
    try {
      if (!rule.enabled) {
        // A paused rule keeps its place in the schedule without being read, so it never crowds the due list.
        await claimRound(store, { id: rule.id, seen: row.nextEvalAt, next: now + rule.intervalSeconds * 1000, now });
        continue;
      }
      const began = performance.now();
      if (await evaluateRule(store, read, { rule, seenDueAt: row.nextEvalAt }, now)) {
        evaluated += 1;
        onEvaluated?.(secondsSince(began));
      }
    } catch (error) {
      // A reading that cannot be taken yet (the storms still being built) is no fault of the rule: no log line.
      if (error instanceof ServiceError && error.code === 'unavailable') continue;
      log(`alert rule ${rule.id} (${rule.name}) failed to evaluate: ${error instanceof Error ? error.message : error}`);
    }
  }
  return evaluated;
}

/**
 * The evaluator in the server process: a self-rescheduling timer (never two ticks at once). Everything it knows is
 * in the store, so a restart continues where the last process stopped.
 */
export function startAlertEngine(store: Store, options: EngineOptions): AlertEngine {
  let stopped = false;
  let running: Promise<number> = Promise.resolve(0);
  let timer: NodeJS.Timeout | undefined;
  let resentAt = Number.NEGATIVE_INFINITY;

  const tick = async (): Promise<number> => {
    const evaluated = await evaluateDue(store, options.clock(), options.log, options.onEvaluated);
    await deliverDue(store, options);
    if (options.clock() - resentAt >= ALERTMANAGER_RESEND_MS) {
      resentAt = options.clock();
      await resendToAlertmanagers(store, options, options.log);
    }
    return evaluated;
  };
  // Ticks run one after another, whether the timer or a caller started them.
  const runTick = (): Promise<number> => {
    running = running.catch(() => 0).then(tick);
    return running;
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      runTick()
        .catch((error: unknown) => {
          options.log(`alert engine tick failed: ${error instanceof Error ? error.message : error}`);
          return 0;
        })
        .finally(schedule);
    }, options.tickMs);
    timer.unref();
  };
  schedule();
  return {
    tick: runTick,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running.catch(() => undefined);
    },
  };
}
