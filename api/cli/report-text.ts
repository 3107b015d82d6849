import type { actionabilityReport } from '../../shared/actionability/summary.ts';
import type { ClientConduct } from '../../shared/analysis/conduct.ts';
import type { gapSummary } from '../../shared/analysis/context-gap.ts';
import type { denialSummary } from '../../shared/analysis/denials.ts';
import type { IdentityStats } from '../../shared/analysis/identities.ts';
import type { AvoidableCount, StormSummary } from '../../shared/analysis/storms.ts';
import { count, percent, plural, table, utc } from './text-table.ts';

/** The report as `lens report --json` writes it; the storms are read once, in list order, as they stream. */
export interface ReportDocument {
  events: number;
  span: { first: string; last: string } | null;
  buckets: Record<string, number>;
  bucketsByServer: Record<string, Record<string, number>>;
  avoidable: { byClient: Record<string, AvoidableCount>; byServer: Record<string, AvoidableCount> };
  storms: Iterable<StormSummary>;
  identities: IdentityStats[];
  contextGap: Record<string, ReturnType<typeof gapSummary>>;
  conduct: Record<string, Omit<ClientConduct, 'client'>>;
  denialsNotHeld: ReturnType<typeof denialSummary>;
  actionability: ReturnType<typeof actionabilityReport>;
}

/** How many rows a list shows before it says how many more `--json` holds. */
export const LISTED = 10;

/** What each bucket means, in the words the dashboard uses. */
const BUCKET_MEANS: Record<string, string> = {
  ok: 'answered',
  refusal: 'the contract says no: do not retry',
  transient: 'failed now, may work later: bounded retry',
  throttled: 'too many requests: wait, then retry',
  ambiguous: 'no code with defined meaning: do not read it as a go-ahead',
  pending: 'the server asked for input before it answers',
};

const CONDUCT_FINDINGS = [
  ['retriedAfterRefusal', 'retried after a refusal'],
  ['probedWithoutDiscovery', 'probed without reading discovery'],
  ['retriedBeforeRetryAfter', 'retried before Retry-After'],
  ['retriedPastBudget', 'retried past the budget of 3'],
  ['identicalAfterAmbiguous', 'repeated an ambiguous request'],
] as const;

/** Seed 004's six bits, said as what each means (the CLI speaks no research shorthand either). */
const BITS = [
  ['D', 'detected'],
  ['P', 'policy'],
  ['C', 'cause'],
  ['T', 'repair target'],
  ['E', 'executable repair'],
  ['R', 'replay rule'],
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
    BUCKET_MEANS[bucket] ?? '',
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

/**
 * The storms with the most avoidable attempts (then the most attempts, then the earliest), in one pass over the
 * list, keeping LISTED of them: the list itself may be larger than memory.
 */
function stormLines(storms: Iterable<StormSummary>): string[] {
  const top: StormSummary[] = [];
  let total = 0;
  for (const storm of storms) {
    total++;
    const at = top.findIndex((kept) => worse(storm, kept));
    if (at === -1) {
      if (top.length < LISTED) top.push(storm);
    } else {
      top.splice(at, 0, storm);
      if (top.length > LISTED) top.pop();
    }
  }
  if (total === 0) return ['', 'Storms: none'];
  const rows = top.map((s) => [
    s.kind.replaceAll('_', ' '),
    s.client,
    s.server,
    count(s.attempts),
    count(s.avoidable),
    utc(s.firstTs),
    `${s.paths.join(', ')} (first ${s.firstFailure.bucket}: ${s.firstFailure.kind})`,
  ]);
  const shown = total > LISTED ? `, the ${LISTED} with the most avoidable attempts (--json lists all)` : '';
  return [
    '',
    `Storms: ${count(total)}${shown}`,
    ...table(
      [
        { heading: 'kind' },
        { heading: 'sender' },
        { heading: 'server' },
        { heading: 'attempts', numeric: true },
        { heading: 'avoidable', numeric: true },
        { heading: 'first attempt (UTC)' },
        { heading: 'what' },
      ],
      rows,
    ),
  ];
}

function worse(a: StormSummary, b: StormSummary): boolean {
  return (
    a.avoidable - b.avoidable > 0 ||
    (a.avoidable === b.avoidable && (a.attempts > b.attempts || (a.attempts === b.attempts && a.firstTs < b.firstTs)))
  );
}

function denialLines(denials: ReportDocument['denialsNotHeld']): string[] {
  const lines = ['', `Denials that did not hold: ${count(denials.total)}`];
  if (denials.total > 0) {
    lines[1] += ' (refused, then answered otherwise while the refusal still stood)';
    const rows = denials.items
      .slice(0, LISTED)
      .map((d) => [
        d.client,
        d.server,
        d.rpcMethod ?? '-',
        `${utc(d.refusal.ts)} ${d.refusal.kind} (${d.refusal.id})`,
        `${utc(d.answer.ts)} ${d.answer.bucket} (${d.answer.id})`,
        d.newSession ? 'yes' : 'no',
      ]);
    lines.push(
      ...table(
        [
          { heading: 'client' },
          { heading: 'server' },
          { heading: 'method' },
          { heading: 'refused' },
          { heading: 'later' },
          { heading: 'new session between' },
        ],
        rows,
      ),
    );
    if (denials.items.length > LISTED)
      lines.push(`  … and ${count(denials.items.length - LISTED)} more (--json lists all)`);
  }
  const replays = denials.representedRefusals;
  if (replays.length > 0) {
    lines.push(
      '',
      'Refused requests sent again, per client',
      ...table(
        [
          { heading: 'client' },
          { heading: 'refused again', numeric: true },
          { heading: 'answered afresh', numeric: true },
        ],
        replays.map((r) => [r.client, count(r.replayed), count(r.evaluatedAfresh)]),
      ),
    );
  }
  return lines;
}

function identityLines(identities: readonly IdentityStats[]): string[] {
  const sentAgain = identities.filter((i) => i.represented > 0);
  if (sentAgain.length === 0) return [];
  const rows = sentAgain
    .slice(0, LISTED)
    .map((i) => [count(i.sends), count(i.represented), i.server, i.method ?? '-', i.last.bucket, i.identity]);
  return [
    '',
    `Requests sent again unchanged, most first${sentAgain.length > LISTED ? ` (the first ${LISTED}; --json lists ${identities.length})` : ''}`,
    ...table(
      [
        { heading: 'sends', numeric: true },
        { heading: 'again', numeric: true },
        { heading: 'server' },
        { heading: 'method' },
        { heading: 'last answer' },
        { heading: 'identity' },
      ],
      rows,
    ),
  ];
}

function contextLines(gaps: ReportDocument['contextGap']): string[] {
  const servers = Object.entries(gaps);
  if (servers.length === 0) return [];
  const rows = servers.map(([server, gap]) => [
    server,
    count(gap.reported),
    count(gap.trimmed),
    percent(gap.trimRate),
    Object.entries(gap.reasons)
      .map(([reason, n]) => `${reason} ${count(n)}`)
      .join(', '),
  ]);
  return [
    '',
    'Context asked for and given (sampling requests whose answer says what context it got)',
    ...table(
      [
        { heading: 'server' },
        { heading: 'reported', numeric: true },
        { heading: 'trimmed', numeric: true },
        { heading: 'trim rate', numeric: true },
        { heading: 'reasons' },
      ],
      rows,
    ),
  ];
}

function actionabilityLines({ control, byServer }: ReportDocument['actionability']): string[] {
  if (control.failures === 0) return [];
  const rows = [
    ['all servers', count(control.failures), ...BITS.map(([bit]) => percent(control[bit] / control.failures))],
    ...Object.entries(byServer)
      .slice(0, LISTED)
      .map(([server, counts]) => [
        server,
        count(counts.control.failures),
        ...BITS.map(([bit]) => percent(counts.control[bit] / counts.control.failures)),
      ]),
  ];
  return [
    '',
    'What the failures tell a client in typed fields: the share of failures that say each',
    ...table(
      [
        { heading: 'server' },
        { heading: 'failures', numeric: true },
        ...BITS.map(([, heading]) => ({ heading, numeric: true })),
      ],
      rows,
    ),
  ];
}

/** `(the first 10 of 42)` after a list's title, when it is cut. */
function more(total: number): string {
  return total > LISTED ? ` (the first ${LISTED} of ${count(total)}; --json lists all)` : '';
}
