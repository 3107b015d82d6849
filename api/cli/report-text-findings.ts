import type { IdentityStats } from '../../shared/analysis/identities.ts';
import { inBetweenWords } from '../../shared/analysis/in-between-words.ts';
import type { StormSummary } from '../../shared/analysis/storm-model.ts';
import type { ReportDocument } from './report-text.ts';
import { count, LISTED, percent, table, utc } from './text-table.ts';

/**
 * The report's findings as plain text (api/cli/report-text.ts lays out the traffic): the storms, the denials that
 * did not hold, the identities sent most, the context gap and what the failures say in typed fields.
 */

/**
 * The six facts a failure's typed fields can give a client (DOMAIN.md section 8), named as the dashboard names them
 * (web/prepare/actionability.ts BIT_LABEL): no research shorthand on a terminal either.
 */
const BITS = [
  ['D', 'detected'],
  ['P', 'what to do'],
  ['C', 'cause'],
  ['T', 'what to fix'],
  ['E', 'ready repair'],
  ['R', 'retry rules'],
] as const;

/**
 * The storms with the most avoidable attempts (then the most attempts, then the earliest), in one pass over the
 * list, keeping LISTED of them: the list itself may be larger than memory.
 */
export function stormLines(storms: Iterable<StormSummary>): string[] {
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
    count(s.attempts),
    count(s.avoidable),
    utc(s.firstTs),
    s.title,
  ]);
  const shown = total > LISTED ? `, the ${LISTED} with the most avoidable attempts (--json lists all)` : '';
  return [
    '',
    `Storms: ${count(total)}${shown}`,
    ...table(
      [
        { heading: 'kind' },
        { heading: 'attempts', numeric: true },
        { heading: 'avoidable', numeric: true },
        { heading: 'first attempt (UTC)' },
        { heading: 'who did what' },
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

export function denialLines(denials: ReportDocument['denialsNotHeld']): string[] {
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
        inBetweenWords(d).text,
      ]);
    lines.push(
      ...table(
        [
          { heading: 'client' },
          { heading: 'server' },
          { heading: 'method' },
          { heading: 'refused' },
          { heading: 'later' },
          { heading: 'between' },
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

export function identityLines(identities: readonly IdentityStats[]): string[] {
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

export function contextLines(gaps: ReportDocument['contextGap']): string[] {
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

export function actionabilityLines({ control, byServer }: ReportDocument['actionability']): string[] {
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
