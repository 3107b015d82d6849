import { Panel, type PanelQuery } from '../../components/Panel.tsx';
import { TrimTrend } from '../../components/TrimTrend.tsx';
import { counted, formatCount, formatShare } from '../../format.ts';
import { hasReportedTrend, reasonList, trendRows } from '../../prepare/context-gap.ts';
import type { ServerDetail } from '../../queries/servers.ts';
import { GapMatrix } from './GapMatrix.tsx';

/** Sampling requests: what context they asked for against what the client says it applied. */
export function ContextGapPanel({ query }: { query: PanelQuery<ServerDetail> }) {
  return (
    <Panel
      title="Context gap"
      what="the context gap"
      query={query}
      minHeight={200}
      isEmpty={(data) => data.contextGap === null}
      empty="No sampling requests to this server in this range."
      id="context-gap"
      testId="context-gap"
    >
      {(data) => {
        const gap = data.contextGap;
        if (gap === null) return null;
        const reasons = reasonList(gap.reasons);
        return (
          <>
            <p className="headline">
              {gap.trimRate === null ? (
                'No rate: no response said what context it applied.'
              ) : (
                <>
                  <strong data-testid="trim-rate">{formatShare(gap.trimRate)}</strong> trimmed:{' '}
                  {formatCount(gap.trimmed)} of {counted(gap.reported, 'response')} that reported.
                </>
              )}
            </p>
            <GapMatrix matrix={gap.matrix} />
            {reasons.length > 0 ? (
              <p className="muted">
                Reasons:{' '}
                {reasons.map(({ reason, count }) => (
                  <span key={reason} className="reason">
                    <code>{reason}</code> {formatCount(count)}
                  </span>
                ))}
              </p>
            ) : null}
            {hasReportedTrend(gap.trend) ? <TrimTrend rows={trendRows(gap.trend, gap.step)} /> : null}
          </>
        );
      }}
    </Panel>
  );
}
