import { HiddenList } from '../../shared/actionability/hidden-list.ts';
import { actionabilityReport, ProfileTally } from '../../shared/actionability/summary.ts';
import { addConduct, conductReport, emptyConduct } from '../../shared/analysis/conduct.ts';
import { addContext, type ContextGap, emptyContextGap, gapSummary } from '../../shared/analysis/context-gap.ts';
import {
  type DenialAudit,
  type DenialDecisions,
  type DenialNotHeld,
  denialSummary,
  ProbeTimes,
  replaysPerClient,
  stepDenialAudit,
} from '../../shared/analysis/denials.ts';
import { createGateState, gateStep, isJudged, type KeyGateState, stepsInOrder } from '../../shared/analysis/gate.ts';
import type { GateVerdict } from '../../shared/analysis/gate-types.ts';
import type { FoundStorm } from '../../shared/analysis/storm-tracker.ts';
import { addAvoidable, avoidableRows, createAvoidableTallies } from '../../shared/analysis/stream-avoidable.ts';
import { addIdentitySend, type IdentityTally, topIdentitiesOf } from '../../shared/analysis/stream-identities.ts';
import { createStormStreams, finishStorms, stepStorms, stormSortKey } from '../../shared/analysis/stream-storms.ts';
import { DAY_MS } from '../../shared/analysis/time-buckets.ts';
import { BUCKETS, type Bucket } from '../../shared/classify/types.ts';
import { nameRecordOf } from '../../shared/name-record.ts';
import { OfflineRun, REORDER_HOLD_MS } from './offline.ts';
import { LineWriter } from './output.ts';
import { type ReportDocument, reportText } from './report-text.ts';
import { CACHED_ENTRIES, SpillStore, spilledRecord } from './spill.ts';

/**
 * The numbers the dashboard shows, offline, computed with the server's functions as the logs stream by
 * (OfflineRun.events: merged in time order, each request counted once): a summary for a terminal
 * (api/cli/report-text.ts), or with `--json` the whole document. Nothing is kept per event: memory holds the gate's
 * partitions, the storm trackers' windows and open runs, the storms found, tallies per client and server, and at
 * most CACHED_ENTRIES of the gate's blocked keys, of the identities' tallies and of the storms found (the rest wait
 * in a temporary SQLite file, api/cli/spill.ts, and the storms are written from it in list order), so it stays flat
 * however many keys and storms the logs hold. Storms are listed without their attempt timelines. An event too far
 * out of time order for the gate is counted but not judged (it counts as needed), and reported on stderr.
 */
/** Hidden failures listed one by one in the JSON document; all are counted. */
const HIDDEN_LISTED = 1000;

export async function reportCommand(args: string[]): Promise<number> {
  const run = await OfflineRun.fromArgs('report', args, ['json']);
  const buckets = emptyBuckets();
  const bucketsByServer = new Map<string, Record<Bucket, number>>();
  const spill = new SpillStore();
  const gateKeys = spill.map<KeyGateState>('gate_keys', CACHED_ENTRIES);
  const gate = createGateState(() => spilledRecord(gateKeys));
  const found = spill.map<FoundStorm>('storms', CACHED_ENTRIES, stormSortKey);
  const storms = createStormStreams({
    set: (id, storm) => found.set(id, storm),
    inListOrder: () => found.sortedValues(),
  });
  const avoidable = createAvoidableTallies();
  const identities = spill.map<IdentityTally>('identities', CACHED_ENTRIES);
  const contextGap = new Map<string, ContextGap>();
  const conduct = emptyConduct();
  const decisions: DenialDecisions = new Map();
  const denials: DenialAudit = { notHeld: [], replayed: [] };
  const replayed = new Map<string, number>();
  const probes = new ProbeTimes();
  let events = 0;
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  let outOfOrder = 0;
  const profiles = new ProfileTally();
  const hiddenList = new HiddenList(HIDDEN_LISTED);
  for await (const { analysis: e, profile, hidden } of run.events()) {
    let verdict: GateVerdict | undefined;
    if (!stepsInOrder(gate, e)) outOfOrder++;
    else {
      verdict = gateStep(gate, e);
      if (isJudged(e)) stepStorms(storms, e, verdict);
    }
    addAvoidable(avoidable, e, verdict);
    addConduct(conduct, e, verdict);
    addIdentitySend(identities, e);
    const held = denials.notHeld.length;
    stepDenialAudit(decisions, e, denials);
    // A 2026-07-28 denial's "in between": the client's probes before this answer (the answer itself not among them).
    for (let i = held; i < denials.notHeld.length; i++) {
      denials.notHeld[i] = probes.inBetween(denials.notHeld[i] as DenialNotHeld);
    }
    probes.note(e);
    // Replays are counted, not kept: a loop re-presenting a refused request would otherwise grow the list.
    replaysPerClient(denials.replayed, replayed);
    denials.replayed.length = 0;
    if (!e.counted) continue;
    events++;
    first = Math.min(first, e.ts);
    last = Math.max(last, e.ts);
    buckets[e.bucket]++;
    let perServer = bucketsByServer.get(e.server);
    if (perServer === undefined) {
      perServer = emptyBuckets();
      bucketsByServer.set(e.server, perServer);
    }
    perServer[e.bucket]++;
    if (profile !== null) profiles.add(e.server, profile);
    if (hidden !== null) {
      const at = new Date(e.ts).toISOString();
      hiddenList.add({ id: e.id, ts: at, server: e.server, client: e.client, tool: e.rpcName, ...hidden });
    }
    if (e.context === null) continue;
    let gap = contextGap.get(e.server);
    if (gap === undefined) {
      // The report shows no trend: a day's step keeps the per-bucket counts few.
      gap = emptyContextGap(DAY_MS);
      contextGap.set(e.server, gap);
    }
    addContext(gap, e);
  }
  finishStorms(storms);
  const rows = avoidableRows(avoidable);
  const report: ReportDocument = {
    events,
    span: events === 0 ? null : { first: new Date(first).toISOString(), last: new Date(last).toISOString() },
    buckets,
    bucketsByServer: nameRecordOf(
      rows.byServer.map(({ server }) => [server, bucketsByServer.get(server) ?? emptyBuckets()]),
    ),
    avoidable: {
      byClient: nameRecordOf(rows.byClient.map(({ client, ...rest }) => [client, rest])),
      byServer: nameRecordOf(rows.byServer.map(({ server, ...rest }) => [server, rest])),
    },
    storms: { [Symbol.iterator]: () => storms.storms.inListOrder()[Symbol.iterator]() },
    identities: topIdentitiesOf(identities, 20),
    contextGap: nameRecordOf([...contextGap].map(([server, gap]) => [server, gapSummary(gap)])),
    conduct: nameRecordOf(conductReport(conduct).map(({ client, ...rest }) => [client, rest])),
    denialsNotHeld: denialSummary(denials.notHeld, replayed),
    actionability: { ...actionabilityReport(profiles.rows()), hiddenFailures: hiddenList.listed },
  };
  const out = new LineWriter();
  if (run.has('json')) await writeJson(out, report);
  else for (const line of reportText(report)) await out.write(line);
  await out.flush();
  spill.close();
  if (outOfOrder > 0) {
    run.note(
      `${outOfOrder} event(s) out of time order beyond the ${REORDER_HOLD_MS / 1000} s reorder window: counted, not judged by the gate`,
    );
  }
  return run.finish();
}

function emptyBuckets(): Record<Bucket, number> {
  return Object.fromEntries(BUCKETS.map((b) => [b, 0])) as Record<Bucket, number>;
}

/**
 * One JSON document, indented for a reader, its storms (as many as the logs hold) written one at a time from the
 * spill, in list order: the rest of the document is small, the storm list need not be.
 */
async function writeJson(out: LineWriter, { storms, ...report }: ReportDocument): Promise<void> {
  const { identities, contextGap, conduct, denialsNotHeld, actionability, ...head } = report;
  const tail = { identities, contextGap, conduct, denialsNotHeld, actionability };
  await out.text(`${indented(head, 0).slice(0, -2)},\n  "storms": [`);
  let none = true;
  for (const storm of storms) {
    await out.text(`${none ? '' : ','}\n    ${indented(storm, 2)}`);
    none = false;
  }
  await out.write(`${none ? '' : '\n  '}],\n${indented(tail, 0).slice(2)}`);
}

/** `value` as indented JSON, its lines after the first indented `depth` levels further. */
function indented(value: unknown, depth: number): string {
  return JSON.stringify(value, null, 2).replaceAll('\n', `\n${'  '.repeat(depth)}`);
}
