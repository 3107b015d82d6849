import type { HiddenListed } from '../../shared/actionability/hidden-list.ts';
import type { ReportDocument } from './report-text.ts';
import { count, LISTED, percent, table, utc } from './text-table.ts';

/**
 * What the failures tell a client once their text is read, and the hidden failures: answers that look successful
 * (no error, no `isError`, a 2xx) but whose text says the call failed, or that the caller is rate limited.
 */
export function hiddenLines({ content, hidden, hiddenFailures }: ReportDocument['actionability']): string[] {
  if (content.failures === 0) return [];
  const lines = [
    '',
    `Once their text is read, of ${count(content.failures)} failures: ${percent(content.D / content.failures)} detected, ${percent(content.P / content.failures)} say what to do, ${percent(content.C / content.failures)} the cause, ${percent(content.T / content.failures)} what to fix`,
  ];
  if (hidden.failures === 0) return lines;
  const throttles =
    hidden.throttles === 0 ? '' : `, ${count(hidden.throttles)} of them saying the caller is rate limited`;
  const listed = hiddenFailures.slice(0, LISTED);
  const cut = hidden.failures > listed.length ? ` (the first ${listed.length} of ${count(hidden.failures)})` : '';
  return [
    ...lines,
    '',
    `Hidden failures: ${count(hidden.failures)} answers look successful but their text says the call failed${throttles}${cut}`,
    ...table(
      [{ heading: 'time (UTC)' }, { heading: 'server' }, { heading: 'tool' }, { heading: 'what the text says' }],
      listed.map((h: HiddenListed) => [utc(Date.parse(h.ts)), h.server, h.tool ?? '', quoted(h)]),
    ),
  ];
}

function quoted(h: HiddenListed): string {
  const wait = h.waitMs === null ? '' : ` (wait ${h.waitMs / 1000} s)`;
  return `${h.throttle ? 'rate limited: ' : ''}"${h.text}"${wait}`;
}
