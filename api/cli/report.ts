import { parseArgs } from 'node:util';
import { clientConduct } from '../../shared/analysis/conduct.ts';
import { contextGapByServer, gapSummary } from '../../shared/analysis/context-gap.ts';
import { replayGate } from '../../shared/analysis/gate.ts';
import { topIdentities } from '../../shared/analysis/identities.ts';
import { detectStorms, summariseAvoidable } from '../../shared/analysis/storms.ts';
import type { AnalysisEvent } from '../../shared/analysis/types.ts';
import { BUCKETS } from '../../shared/classify/types.ts';
import { CliError } from './cli-error.ts';
import { loadDiscoveryFile } from './discovery-file.ts';
import { offlineEvents } from './offline.ts';

/**
 * The numbers the dashboard shows, offline, as one JSON document. Uses the same functions as the server. It holds
 * the log's events in memory (about 300 bytes each) because the gate needs each client's traffic in time order.
 */
export async function reportCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { discovery: { type: 'string' } },
  });
  if (values.discovery === undefined || positionals.length !== 1) {
    throw new CliError('usage: report --discovery FILE LOG.ndjson', 2);
  }
  const policyFor = await loadDiscoveryFile(values.discovery);
  const counts = { bad: 0 };
  const byId = new Map<string, AnalysisEvent>();
  const clientCorrelations = new Set<string>();
  const proxyCorrelations = new Map<string, string[]>();
  for await (const { analysis, correlation } of offlineEvents(positionals[0] as string, policyFor, counts)) {
    if (byId.has(analysis.id)) continue; // a re-sent id counts once, as in the store
    byId.set(analysis.id, analysis);
    if (correlation === null) continue;
    if (analysis.source === 'client') clientCorrelations.add(correlation);
    else proxyCorrelations.set(correlation, [...(proxyCorrelations.get(correlation) ?? []), analysis.id]);
  }
  // A request seen by both a client and a proxy counts once, with the client's view.
  for (const [correlation, ids] of proxyCorrelations) {
    if (!clientCorrelations.has(correlation)) continue;
    for (const id of ids) {
      const event = byId.get(id);
      if (event) event.counted = false;
    }
  }
  const events = [...byId.values()];
  const counted = events.filter((e) => e.counted);
  const verdicts = replayGate(events);
  const avoidable = summariseAvoidable(events, verdicts);
  const report = {
    events: counted.length,
    buckets: Object.fromEntries(BUCKETS.map((b) => [b, counted.filter((e) => e.bucket === b).length])),
    avoidable: {
      byClient: Object.fromEntries(avoidable.byClient.map(({ client, ...rest }) => [client, rest])),
      byServer: Object.fromEntries(avoidable.byServer.map(({ server, ...rest }) => [server, rest])),
    },
    storms: detectStorms(events, verdicts),
    identities: topIdentities(events, 20),
    contextGap: Object.fromEntries([...contextGapByServer(events)].map(([server, gap]) => [server, gapSummary(gap)])),
    conduct: Object.fromEntries(clientConduct(events, verdicts).map(({ client, ...rest }) => [client, rest])),
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
  if (counts.bad > 0) process.stderr.write(`lens report: ${counts.bad} line(s) could not be read as events\n`);
  return counts.bad > 0 ? 1 : 0;
}
