/**
 * A stored storm's attempts, found again from its partition's events when it is opened: the store keeps a storm's
 * counts, not its attempts. What the tracker decided is read back from the storm's own key (a probe storm's targets,
 * a reconnect loop's endpoint, a retry loop's request key) and from the partition's probe storms, whose attempts no
 * loop holds; so the attempts are those the tracker counted, however far back the partition's history reaches.
 */
import { hitsAny, type StormFact, stormFact } from './storm-facts.ts';
import type { StormSummary } from './storm-model.ts';
import { appendToRun, newRun, reconnectRelevant, retryRelevant } from './storm-runs.ts';
import { STORM_DEFAULTS } from './storm-tracker.ts';
import type { AnalysisEvent } from './types.ts';

type Verdicts = ReadonlyMap<string, { key: string; avoidable: boolean }>;

/**
 * The ids of `storm`'s attempts among `events` (its partition's, in time order, covering its span), given the gate's
 * verdicts and the partition's probe storms that may overlap it.
 */
export function stormAttemptIds(
  storm: Pick<StormSummary, 'kind' | 'key' | 'sentBy' | 'firstTs' | 'lastTs'>,
  events: readonly AnalysisEvent[],
  verdicts: Verdicts,
  probeStorms: readonly Pick<StormSummary, 'key' | 'sentBy' | 'firstTs'>[],
  probeWindowMs: number = STORM_DEFAULTS.probeWindowMs,
): string[] {
  const facts = events.flatMap((e) => {
    const verdict = verdicts.get(e.id);
    if (verdict === undefined) return [];
    const fact = stormFact(e, verdict);
    return fact.side === storm.sentBy ? [fact] : [];
  });
  if (storm.kind === 'probe_storm') {
    const targets = new Set(JSON.parse(storm.key) as string[]);
    const end = storm.firstTs + probeWindowMs;
    return facts.filter((f) => f.ts >= storm.firstTs && f.ts <= end && hitsAny(f, targets)).map((f) => f.id);
  }
  const probed = probeStorms
    .filter((p) => p.sentBy === storm.sentBy)
    .map((p) => ({ from: p.firstTs, to: p.firstTs + probeWindowMs, targets: new Set(JSON.parse(p.key) as string[]) }));
  const inProbe = (f: StormFact) => probed.some((p) => f.ts >= p.from && f.ts <= p.to && hitsAny(f, p.targets));
  const reconnect = storm.kind === 'reconnect_loop';
  const run = newRun(reconnect);
  for (const f of facts) {
    if (f.ts < storm.firstTs || f.ts > storm.lastTs || inProbe(f)) continue;
    const ofRun = reconnect ? f.connect && f.endpointTarget === storm.key : !f.connect && f.key === storm.key;
    if (ofRun && (reconnect ? reconnectRelevant(f) : retryRelevant(f))) appendToRun(run, f, true);
  }
  return run.body?.ids ?? [];
}
