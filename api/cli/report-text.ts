import type { HiddenListed } from '../../shared/actionability/hidden-list.ts';
import type { actionabilityReport } from '../../shared/actionability/summary.ts';
import type { ClientConduct } from '../../shared/analysis/conduct.ts';
import type { gapSummary } from '../../shared/analysis/context-gap.ts';
import type { denialSummary } from '../../shared/analysis/denials.ts';
import type { IdentityStats } from '../../shared/analysis/identities.ts';
import type { StormSummary } from '../../shared/analysis/storm-model.ts';
import type { AvoidableCount } from '../../shared/analysis/storms.ts';
import type { Bucket } from '../../shared/classify/types.ts';
import type { NameRecord } from '../../shared/name-record.ts';
import { actionabilityLines, contextLines, denialLines, identityLines, stormLines } from './report-text-findings.ts';
import { hiddenLines } from './report-text-hidden.ts';
import { count, LISTED, more, percent, plural, table, utc } from './text-table.ts';

/** The report as `lens report --json` writes it; the storms are read once, in list order, as they stream. */
export interface ReportDocument {
  events: number;
  span: { first: string; last: string } | null;
  buckets: Record<string, number>;
  bucketsByServer: NameRecord<Record<string, number>>;
  avoidable: { byClient: NameRecord<AvoidableCount>; byServer: NameRecord<AvoidableCount> };
  storms: Iterable<StormSummary>;
  identities: IdentityStats[];
  contextGap: NameRecord<ReturnType<typeof gapSummary>>;
  conduct: NameRecord<Omit<ClientConduct, 'client'>>;
  denialsNotHeld: ReturnType<typeof denialSummary>;
  /** The counts, and the first hidden failures (api/cli/report.ts HIDDEN_LISTED) in time order. */
  actionability: ReturnType<typeof actionabilityReport> & { hiddenFailures: HiddenListed[] };
}

/** What each bucket means, in the words the dashboard uses. */
const BUCKET_MEANS: Record<Bucket, string> = {
  ok: 'answered',
  pending: 'the server asked for input first (MCP 2026-07-28): the call goes on in its next round',
  unknown: 'the log shows the request but not its outcome: neither a success nor a failure',
  refusal: 'the contract says no: do not retry',
  transient: 'failed now, may work later: bounded retry',
  throttled: 'too many requests: wait, then retry',
  ambiguous: 'no code with defined meaning: do not read it as a go-ahead',
};

const CONDUCT_FINDINGS = [
  ['retriedAfterRefusal', 'retried after a refusal'],
  ['probedWithoutDiscovery', 'probed without reading discovery'],
  ['retriedBeforeRetryAfter', 'retried before Retry-After'],
  ['retriedPastBudget', 'retried past the budget of 3'],
  ['identicalAfterAmbiguous', 'repeated an ambiguous request'],
] as const;

/**
 * The report as plain aligned text for a terminal: what it covers, requests by bucket, servers and clients by their
 * avoidable requests, storms, denials that did not hold, the identities sent most, the context gap and how much
 * the failures say. Long lists show their first LISTED rows and say how many more `--json` has.
 */
export function reportText(report: ReportDocument): string[] {
  return [
    ...heading(report),
    ...bucketLines(report),
    ...serverLines(report),
    ...clientLines(report),
    ...stormLines(report.storms),
    ...denialLines(report.denialsNotHeld),
    ...identityLines(report.identities),
    ...contextLines(report.contextGap),
    ...actionabilityLines(report.actionability),
    ...hiddenLines(report.actionability),
  ];
}

function heading({ events, span }: ReportDocument): string[] {
  if (span === null) return ['No requests in these logs.'];
  const [first, last] = [utc(Date.parse(span.first)), utc(Date.parse(span.last))];
  const lastShown = first.slice(0, 10) === last.slice(0, 10) ? last.slice(11) : last;
  return [
    `${plural(events, 'request')}, ${first} to ${lastShown} UTC (a request logged by a client and a proxy counts once)`,
  ];
}

function bucketLines({ events, buckets }: ReportDocument): string[] {
  if (events === 0) return [];
  const rows = Object.entries(buckets).map(([bucket, n]) => [
    bucket,
    count(n),
    percent(n / events),
    BUCKET_MEANS[bucket as Bucket] ?? '',
  ]);
  return [
    '',
    'Requests by bucket',
    ...table(
      [
        { heading: 'bucket' },
        { heading: 'requests', numeric: true },
        { heading: 'share', numeric: true },
        { heading: 'means' },
      ],
      rows,
    ),
  ];
}

function serverLines({ avoidable, bucketsByServer }: ReportDocument): string[] {
  const servers = Object.entries(avoidable.byServer);
  if (servers.length === 0) return [];
  const buckets = Object.keys(Object.values(bucketsByServer)[0] ?? {}).filter((b) => b !== 'ok');
  const rows = servers
    .slice(0, LISTED)
    .map(([server, row]) => [
      server,
      count(row.requests),
      ...buckets.map((b) => count(bucketsByServer[server]?.[b] ?? 0)),
      count(row.avoidable),
      percent(row.share),
    ]);
  return [
    '',
    `Servers, most avoidable requests first${more(servers.length)}`,
    ...table(
      [
        { heading: 'server' },
        { heading: 'requests', numeric: true },
        ...buckets.map((heading) => ({ heading, numeric: true })),
        { heading: 'avoidable', numeric: true },
        { heading: 'share', numeric: true },
      ],
      rows,
    ),
  ];
}

function clientLines({ avoidable, conduct }: ReportDocument): string[] {
  const clients = Object.entries(avoidable.byClient);
  if (clients.length === 0) return [];
  const total = clients.reduce((sum, [, row]) => sum + row.avoidable, 0);
  const requests = clients.reduce((sum, [, row]) => sum + row.requests, 0);
  const rows = clients.slice(0, LISTED).map(([client, row]) => {
    const found = conduct[client];
    const findings = CONDUCT_FINDINGS.flatMap(([key, words]) => {
      const n = found?.[key] ?? 0;
      return n > 0 ? [`${count(n)} ${words}`] : [];
    });
    return [client, count(row.requests), count(row.avoidable), percent(row.share), findings.join('; ')];
  });
  return [
    '',
    `Clients, most avoidable requests first: ${count(total)} of their ${plural(requests, 'request')} ` +
      `a correct client would not have sent${more(clients.length)}`,
    ...table(
      [
        { heading: 'client' },
        { heading: 'requests', numeric: true },
        { heading: 'avoidable', numeric: true },
        { heading: 'share', numeric: true },
        { heading: 'what it did' },
      ],
      rows,
    ),
  ];
}
