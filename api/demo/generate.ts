import {
  a2aPlanner,
  bridgedHost,
  impatientThrottled,
  representedDenial,
  statelessPublisher,
  transientBursts,
  trimmedContext,
} from './more-scenarios.ts';
import {
  type DemoEvent,
  DemoWriter,
  healthyTraffic,
  missingSlugRetrier,
  random,
  reconnectStorm,
  seedProber,
} from './scenarios.ts';

export { DEMO_DISCOVERY } from './scenarios.ts';

/**
 * The demo day, in time order. Ids carry the minute it was laid at, so loading it twice in one minute adds nothing
 * and loading it later adds a fresh day on top.
 */
export function demoEvents(now: number): DemoEvent[] {
  const anchor = Math.floor(now / 60_000) * 60_000;
  const w = new DemoWriter(anchor, `demo-${anchor.toString(36)}`);
  const rand = random(2026);
  healthyTraffic(w, rand);
  seedProber(w);
  missingSlugRetrier(w);
  reconnectStorm(w);
  representedDenial(w);
  trimmedContext(w, rand);
  impatientThrottled(w);
  transientBursts(w);
  a2aPlanner(w);
  statelessPublisher(w);
  bridgedHost(w);
  return w.events.filter((e) => e.ts <= anchor).sort((a, b) => a.ts - b.ts);
}
