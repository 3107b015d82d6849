import { APPLIED_COLUMNS, isTrimmed, SCOPES } from '../../shared/analysis/context-gap.ts';
import { formatCount, formatShare, formatWindow, shareOf } from '../format.ts';
import type { ContextGap } from '../queries/context-gap.ts';
import { type ChartSeries, seriesColours, type TooltipContent } from './chart.ts';

type Scope = keyof ContextGap['matrix'];
type Applied = keyof ContextGap['matrix'][Scope];

/** granted: applied at least what was asked; trimmed: applied less; not_reported: the client did not say. */
export type CellVerdict = 'granted' | 'trimmed' | 'not_reported';

export interface MatrixCell {
  applied: Applied;
  count: number;
  verdict: CellVerdict;
}

export interface MatrixRow {
  requested: Scope;
  total: number;
  cells: MatrixCell[];
}

function verdictOf(requested: Scope, applied: Applied): CellVerdict {
  if (applied === 'not_reported') return 'not_reported';
  return isTrimmed(requested, applied) ? 'trimmed' : 'granted';
}

/** requested × applied, leaving out scopes nobody requested (all three when nothing was requested at all). */
export function matrixRows(matrix: ContextGap['matrix']): MatrixRow[] {
  const rows = SCOPES.map((requested) => {
    const cells = APPLIED_COLUMNS.map((applied) => ({
      applied,
      count: matrix[requested][applied],
      verdict: verdictOf(requested, applied),
    }));
    return { requested, total: cells.reduce((sum, cell) => sum + cell.count, 0), cells };
  });
  const asked = rows.filter((row) => row.total > 0);
  return asked.length > 0 ? asked : rows;
}

export interface TrendRow {
  start: number;
  end: number;
  reported: number;
  trimmed: number;
  /** Share of the reported responses that were trimmed; null where nothing was reported (a gap, not a zero). */
  rate: number | null;
}

/**
 * The trim rate over time in at most `maxPoints` points. A server sampled once every few minutes would otherwise
 * draw a comb of 0 % and 100 %: neighbouring steps are summed (reported and trimmed), then divided.
 */
export function trendRows(trend: ContextGap['trend'], step: number, maxPoints = 48): TrendRow[] {
  const size = Math.max(1, Math.ceil(trend.length / maxPoints));
  const rows: TrendRow[] = [];
  for (let i = 0; i < trend.length; i += size) {
    const group = trend.slice(i, i + size);
    const first = group[0];
    if (first === undefined) continue;
    const reported = group.reduce((sum, point) => sum + point.reported, 0);
    const trimmed = group.reduce((sum, point) => sum + point.trimmed, 0);
    const end = (group.at(-1)?.start ?? first.start) + step;
    rows.push({ start: first.start, end, reported, trimmed, rate: shareOf(trimmed, reported) });
  }
  return rows;
}

export const TREND_SERIES: readonly ChartSeries<'rate'>[] = [
  { key: 'rate', name: 'Trimmed', colour: seriesColours(['trimmed'])('trimmed') },
];

export function trendTooltip(row: TrendRow): TooltipContent {
  const value =
    row.rate === null
      ? 'nothing reported'
      : `${formatShare(row.rate)} (${formatCount(row.trimmed)} of ${formatCount(row.reported)})`;
  return { title: formatWindow(row.start, row.end), lines: [{ label: 'Trimmed', value }] };
}

export function hasReportedTrend(trend: ContextGap['trend']): boolean {
  return trend.some((point) => point.rate !== null);
}

/** Stated reasons, most frequent first. */
export function reasonList(reasons: ContextGap['reasons']): { reason: string; count: number }[] {
  return Object.entries(reasons)
    .map(([reason, count]) => ({ reason, count }))
    .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
}

export interface TrimRanking {
  worst: Pick<ContextGap, 'server' | 'trimRate' | 'trimmed' | 'reported'>[];
  /** Servers with sampling traffic whose clients never said what they applied: no rate, not a zero. */
  unreported: string[];
}

/** Servers by trim rate, highest first; servers that report nothing are listed apart. */
export function worstTrim(gaps: readonly ContextGap[], n: number): TrimRanking {
  const reporting = gaps.filter((gap) => gap.trimRate !== null);
  const worst = reporting
    .sort((a, b) => (b.trimRate ?? 0) - (a.trimRate ?? 0) || b.trimmed - a.trimmed || a.server.localeCompare(b.server))
    .slice(0, n)
    .map(({ server, trimRate, trimmed, reported }) => ({ server, trimRate, trimmed, reported }));
  const unreported = gaps.filter((gap) => gap.trimRate === null).map((gap) => gap.server);
  return { worst, unreported: unreported.sort() };
}
