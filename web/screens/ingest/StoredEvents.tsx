import { useQuery } from '@tanstack/react-query';
import { BucketTotals } from '../../components/BucketTotals.tsx';
import { Panel } from '../../components/Panel.tsx';
import { SpanLink } from '../../components/SpanLink.tsx';
import { storedText } from '../../prepare/span.ts';
import type { Scope } from '../../queries/scope.ts';
import { storedSpanQuery } from '../../queries/span.ts';
import { summaryQuery } from '../../queries/summary.ts';

const LAST_HOUR: Scope = { range: { preset: '1h' } };

/**
 * What the store holds: when its events happened, one click from the overview of them, and the requests logged in
 * the last hour, which is where shipped live traffic shows. An old log lands in the first, never in the second: a
 * request counts at the time its log gives, not when it arrived.
 */
export function StoredEvents() {
  const span = useQuery(storedSpanQuery());
  const summary = useQuery(summaryQuery(LAST_HOUR));
  return (
    <Panel
      title="Stored events"
      what="where the stored events are"
      query={span}
      minHeight={96}
      isEmpty={(data) => data === null}
      empty="Nothing stored yet. Upload a file above, or ship logs from the command line."
      testId="stored-events"
    >
      {(stored) =>
        stored === null ? null : (
          <>
            <p data-testid="stored-span">
              {storedText(stored, Date.now())} <SpanLink span={stored} />
            </p>
            {summary.data === undefined ? null : summary.data.overall.total === 0 ? (
              <p className="muted">No request was logged in the last hour.</p>
            ) : (
              <>
                <h3>Logged in the last hour</h3>
                <BucketTotals counts={summary.data.overall} />
              </>
            )}
          </>
        )
      }
    </Panel>
  );
}
