import { AVOIDABLE_TOTALS, type LargestTotals, largestTotals, REQUEST_TOTALS } from '../../../db/counters/totals.ts';
import { activeStormsPerServer } from '../../../db/queries/storms.ts';
import type { SqlRunner } from '../../../db/runner.ts';
import { trimRate } from '../../../shared/analysis/context-gap.ts';
import { REPRESENTATION_ALARM } from '../../../shared/analysis/identities.ts';
import { STORM_ACTIVE_MS } from '../../../shared/analysis/storm-model.ts';
import { HOUR_MS } from '../../../shared/analysis/time-buckets.ts';
import type { MetricFamily } from '../../../shared/metrics/exposition.ts';
import { type Capped, capLabelSets, type Tallies, type Tally, talliesOf } from '../../../shared/metrics/label-cap.ts';
import { actionabilityIn } from '../analysis/actionability.ts';
import { identitiesOverAlarm } from '../analysis/identity-views.ts';
import { contextGapIn } from '../analysis/traffic.ts';
import { analysisWindow } from '../analysis/window.ts';

/** The trim rate is a gauge of the last hour: a rate of all time would hardly move once a store is a month old. */
export const TRIM_WINDOW_MS = HOUR_MS;
/** Hidden failures are a gauge of the last hour too: what a server answers now. */
export const HIDDEN_WINDOW_MS = HOUR_MS;

/** Families that share their label sets, and so one cap: a value of each kept set for each family. */
interface Group {
  labels: readonly string[];
  capped: Capped;
  families: readonly {
    type: 'counter' | 'gauge';
    name: string;
    help: string;
    /** The family's value for a set's tally; null leaves the set out (a rate of nothing). */
    value: (values: readonly number[]) => number | null;
  }[];
}

/**
 * The federation's numbers, each read by the function that computes it for the API: requests and avoidable requests
 * as counters of all time (db/schema/totals.ts: counted in, and withdrawn by corrections; the difference is what the
 * API counts over all time), storms, alarmed identities and trim rates as gauges of now. At most `cap` label sets
 * each, the rest in `other` (shared/metrics/label-cap.ts), and how many were folded there.
 */
export async function federationMetrics(db: SqlRunner, now: number, cap: number): Promise<MetricFamily[]> {
  // One more than the cap: a real set reading `other` everywhere is folded in, and the cap still filled.
  const [requests, avoidable, storms, alarmed, trims, hidden] = await Promise.all([
    largestTotals(db, REQUEST_TOTALS, cap + 1),
    largestTotals(db, AVOIDABLE_TOTALS, cap + 1),
    activeStorms(db, now),
    alarmedPerServer(db, now),
    trimsPerServer(db, now),
    hiddenPerServer(db, now),
  ]);
  // A tally's numbers: counted and withdrawn of the totals, the one count of a gauge.
  const first = ([value = 0]: readonly number[]) => value;
  const second = ([, value = 0]: readonly number[]) => value;
  const groups: Group[] = [
    {
      labels: ['server', 'bucket', 'kind'],
      capped: capLabelSets(talliesOfTotals(requests), cap),
      families: [
        { type: 'counter', name: 'lens_requests_counted', help: REQUESTS_COUNTED, value: first },
        { type: 'counter', name: 'lens_requests_withdrawn', help: REQUESTS_WITHDRAWN, value: second },
      ],
    },
    {
      labels: ['server', 'client'],
      capped: capLabelSets(talliesOfTotals(avoidable), cap),
      families: [
        { type: 'counter', name: 'lens_avoidable_requests_counted', help: AVOIDABLE_COUNTED, value: first },
        { type: 'counter', name: 'lens_avoidable_requests_withdrawn', help: AVOIDABLE_WITHDRAWN, value: second },
      ],
    },
    {
      labels: ['server'],
      capped: capLabelSets(talliesOf(storms, 1), cap),
      families: [{ type: 'gauge', name: 'lens_storms_active', help: STORMS_ACTIVE, value: first }],
    },
    {
      labels: ['server'],
      capped: capLabelSets(talliesOf(alarmed, 1), cap),
      families: [{ type: 'gauge', name: 'lens_identities_over_alarm', help: OVER_ALARM, value: first }],
    },
    {
      labels: ['server'],
      // Folded by their counts, then rated: the rate of `other` is that of its sums.
      capped: capLabelSets(talliesOf(trims, 2), cap),
      families: [
        {
          type: 'gauge',
          name: 'lens_context_trim_ratio',
          help: TRIM_RATIO,
          value: ([reported = 0, trimmed = 0]) => trimRate({ reported, trimmed }),
        },
      ],
    },
    {
      labels: ['server'],
      capped: capLabelSets(talliesOf(hidden, 2), cap),
      families: [
        { type: 'gauge', name: 'lens_hidden_failures', help: HIDDEN_FAILURES, value: first },
        { type: 'gauge', name: 'lens_hidden_throttles', help: HIDDEN_THROTTLES, value: second },
      ],
    },
  ];
  return [...groups.flatMap(familiesOf), foldedFamily(groups)];
}

function familiesOf(group: Group): MetricFamily[] {
  return group.families.map(({ type, name, help, value }) => ({
    type,
    name,
    help,
    samples: group.capped.tallies.flatMap((tally) => {
      const v = value(tally.values);
      return v === null
        ? []
        : [{ labels: group.labels.map((label, i) => [label, tally.labels[i] ?? ''] as const), value: v }];
    }),
  }));
}

/** A gauge, not a counter: the label sets of a gauge's family come and go, and so does what is folded of them. */
function foldedFamily(groups: readonly Group[]): MetricFamily {
  return {
    type: 'gauge',
    name: 'lens_metric_label_sets_folded',
    help: `Label sets of a family past its bound (--metrics-label-sets) summed into the one whose labels read "other".`,
    samples: groups.flatMap((group) =>
      group.families.map((family) => ({ labels: [['metric', family.name]] as const, value: group.capped.folded })),
    ),
  };
}

function talliesOfTotals(totals: LargestTotals): Tallies {
  return {
    largest: totals.largest.map((row) => ({ labels: row.key, values: row.counts })),
    count: totals.rows,
    sums: totals.sums,
  };
}

/** Storms with an attempt in the last 10 minutes, per server: what GET /storms calls active. */
async function activeStorms(db: SqlRunner, now: number): Promise<Tally[]> {
  const rows = await activeStormsPerServer(db, now - STORM_ACTIVE_MS, now);
  return rows.map((row) => ({ labels: [row.server], values: [row.active] }));
}

/** Identities over seed 002's alarm in its own window, the last 10 minutes: a retry loop running now. */
async function alarmedPerServer(db: SqlRunner, now: number): Promise<Tally[]> {
  const scope = await analysisWindow(db, { from: now - REPRESENTATION_ALARM.windowMs, to: now }, now);
  const { identities } = await identitiesOverAlarm(db, scope, Number.MAX_SAFE_INTEGER);
  const perServer = new Map<string, number>();
  for (const { server } of identities) perServer.set(server, (perServer.get(server) ?? 0) + 1);
  return [...perServer].map(([server, count]) => ({ labels: [server], values: [count] }));
}

/** Reported and trimmed sampling responses per server over the last hour, as GET /context-gap counts them. */
async function trimsPerServer(db: SqlRunner, now: number): Promise<Tally[]> {
  const scope = await analysisWindow(db, { from: now - TRIM_WINDOW_MS, to: now }, now);
  return (await contextGapIn(db, scope)).map((gap) => ({ labels: [gap.server], values: [gap.reported, gap.trimmed] }));
}

/**
 * Hidden failures and hidden throttles per server over the last hour, as GET /actionability counts them; a server
 * with none is left out.
 */
async function hiddenPerServer(db: SqlRunner, now: number): Promise<Tally[]> {
  const scope = await analysisWindow(db, { from: now - HIDDEN_WINDOW_MS, to: now }, now);
  const { servers } = await actionabilityIn(db, scope);
  return servers
    .filter(({ hidden }) => hidden.failures > 0)
    .map(({ server, hidden }) => ({ labels: [server], values: [hidden.failures, hidden.throttles] }));
}

const CORRECTIONS = "a proxy record later joined to its client's record, a reclassification, a revised gate verdict";
const REQUESTS_COUNTED = `Requests counted per server, bucket and kind, since the store began. Less lens_requests_withdrawn_total: the count the API shows for all time.`;
const REQUESTS_WITHDRAWN = `Requests taken out of a server, bucket and kind again by a correction (${CORRECTIONS}).`;
const AVOIDABLE_COUNTED = `Requests a correct client would not have sent, per server and sending client ("" where the server sent it), since the store began. Less lens_avoidable_requests_withdrawn_total: the API's count.`;
const AVOIDABLE_WITHDRAWN = `Avoidable requests taken out of a server and client again by a correction (${CORRECTIONS}).`;
const STORMS_ACTIVE = `Retry loops and probe storms per server with an attempt in the last ${STORM_ACTIVE_MS / 60_000} minutes.`;
const OVER_ALARM = `Request identities per server re-presented at least ${REPRESENTATION_ALARM.threshold} times within the last ${REPRESENTATION_ALARM.windowMs / 60_000} minutes (seed 002's alarm).`;
const HIDDEN_FAILURES = `Answers per server over the last hour that look successful (no error, no isError, a 2xx) but whose text says the call failed.`;
const HIDDEN_THROTTLES = `Hidden failures per server over the last hour whose text says the caller is rate limited: no client's 429 handling sees them.`;
const TRIM_RATIO = `Sampling responses that applied less context than requested, of those that said what they applied, per server over the last hour.`;
