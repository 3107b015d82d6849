/**
 * The alert engine's cost at scale: 200 rules (every metric, every grouping) evaluated every 30 s over the store
 * the reads bench filled, and what that does to the dashboard's reads when both run in the one server process.
 */
import { createApp } from '../api/app.ts';
import { DEFAULT_CONFIG } from '../api/env.ts';
import { evaluateDue } from '../api/services/alerts/engine.ts';
import { createRule, removeRule } from '../api/services/alerts/rules.ts';
import type { Store } from '../db/runner.ts';
import { METRIC_INFO, METRICS } from '../shared/alerts/metrics.ts';
import { ruleInputSchema } from '../shared/alerts/rule.ts';

const RULES = 200;
const INTERVAL_S = 30;

export async function benchAlerts(store: Store, now: number): Promise<void> {
  const created: string[] = [];
  for (let i = 0; i < RULES; i++) {
    const metric = METRICS[i % METRICS.length] ?? 'refusal_count';
    const info = METRIC_INFO[metric];
    const groupBy = info.groupBys[i % info.groupBys.length] ?? 'none';
    const rule = ruleInputSchema.parse({
      name: `bench ${i}`,
      metric,
      groupBy,
      warning: info.unit === 'ratio' ? 0.2 : 10,
      // Windows of 5 to 15 minutes, so that few rules share a reading by accident.
      windowSeconds: (5 + (i % 11)) * 60,
      intervalSeconds: INTERVAL_S,
      ...(i % 7 === 0 ? { scope: { server: `server-${i % 10}` } } : {}),
    });
    created.push((await createRule({ ctx: { db: store, now }, input: { rule } })).id);
  }
  const rounds: number[] = [];
  for (let round = 0; round < 3; round++) {
    const t = performance.now();
    const evaluated = await evaluateDue(store, now + round * INTERVAL_S * 1000, (m) => console.error(m));
    if (evaluated !== RULES) throw new Error(`round ${round} evaluated ${evaluated} of ${RULES} rules`);
    rounds.push(performance.now() - t);
  }
  rounds.sort((a, b) => a - b);
  console.log(
    `alerts: ${RULES} rules, one round (all due) median ${rounds[1]?.toFixed(0)} ms ` +
      `= ${(((rounds[1] ?? 0) / (INTERVAL_S * 1000)) * 100).toFixed(1)} % of the ${INTERVAL_S} s interval`,
  );
  await readsUnderLoad(store, now + 3 * INTERVAL_S * 1000);
  // A store kept for the next run (BENCH_READS_DIR) holds no rules of this one.
  for (const id of created) await removeRule({ ctx: { db: store, now }, input: { id } });
}

/** Dashboard reads alone, then with evaluation rounds running back to back: the worst case of a 30 s schedule. */
async function readsUnderLoad(store: Store, start: number): Promise<void> {
  const app = createApp({ store, clock: () => start, config: DEFAULT_CONFIG });
  const paths = [
    `/api/v1/timeseries?from=${start - 86_400_000}&to=${start}`,
    `/api/v1/servers?from=${start - 86_400_000}&to=${start}`,
    `/api/v1/storms?from=${start - 3_600_000}&to=${start}&server=server-3`,
  ];
  const read = async () => {
    const times: number[] = [];
    for (let i = 0; i < 10; i++) {
      for (const path of paths) {
        const t = performance.now();
        const res = await app.request(path, { headers: { host: '127.0.0.1' } });
        await res.arrayBuffer();
        times.push(performance.now() - t);
      }
    }
    return times.sort((a, b) => a - b);
  };
  const alone = await read();
  let stop = false;
  let at = start;
  const load = (async () => {
    while (!stop) {
      await evaluateDue(store, at, () => undefined);
      at += INTERVAL_S * 1000;
    }
  })();
  const loaded = await read();
  stop = true;
  await load;
  const q = (sorted: number[], p: number) => sorted[Math.floor(p * (sorted.length - 1))]?.toFixed(1);
  console.log(
    `  reads (timeseries 24h, servers 24h, storms 1h): alone p50 ${q(alone, 0.5)} / p95 ${q(alone, 0.95)} ms; ` +
      `while rules evaluate back to back p50 ${q(loaded, 0.5)} / p95 ${q(loaded, 0.95)} ms`,
  );
}
