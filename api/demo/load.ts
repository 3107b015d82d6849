import type { Store } from '../../db/runner.ts';
import { parseDiscovery } from '../../shared/discovery.ts';
import { foldAll } from '../services/fold.ts';
import { ingestBatch } from '../services/ingest.ts';
import { setDiscovery } from '../services/server-config.ts';
import { DEMO_DISCOVERY, demoEvents } from './generate.ts';

/** What loading the demo did: events stored, already there, refused (a generator bug), and servers described. */
export interface DemoLoad {
  accepted: number;
  duplicates: number;
  rejectedTotal: number;
  servers: number;
}

/** Loads the demo federation through the same paths real traffic takes: discovery documents first, then ingest. */
export async function loadDemo(store: Store, now: number): Promise<DemoLoad> {
  // The federation's contracts in one transaction: a demo is described whole or not at all.
  await store.transaction(async (tx) => {
    for (const [server, source] of Object.entries(DEMO_DISCOVERY)) {
      const parsed = parseDiscovery(source);
      if (!parsed.ok) throw new Error(`demo discovery for ${server}: ${parsed.error.message}`);
      await setDiscovery({ ctx: { db: tx, now }, input: { server, document: parsed.document, source } });
    }
  });
  const events = demoEvents(now);
  const total: DemoLoad = { accepted: 0, duplicates: 0, rejectedTotal: 0, servers: Object.keys(DEMO_DISCOVERY).length };
  for (let start = 0; start < events.length; start += 5000) {
    const items = events.slice(start, start + 5000).map((value, index) => ({ line: start + index + 1, value }));
    const report = await ingestBatch(store, items);
    total.accepted += report.accepted;
    total.duplicates += report.duplicates;
    total.rejectedTotal += report.rejectedTotal;
  }
  // The demo opens with its numbers in place, not with an analysis catching up.
  await foldAll(store);
  return total;
}
