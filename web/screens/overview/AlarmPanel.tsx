import { useQuery } from '@tanstack/react-query';
import { BucketBadge } from '../../components/BucketBadge.tsx';
import { DownloadButtons } from '../../components/DownloadButtons.tsx';
import { Link } from '../../components/Link.tsx';
import { Panel } from '../../components/Panel.tsx';
import { counted, formatCount, formatDateTime, shortIdentity } from '../../format.ts';
import { alarmedIdentities } from '../../prepare/identities.ts';
import { alarmedIdentitiesQuery } from '../../queries/identities.ts';
import { type Scope, scopeQuery } from '../../queries/scope.ts';
import { routePath } from '../../router.ts';
import { useUrl } from '../../use-url.ts';

/** Requests (identities) sent again 40 times within 10 minutes: a retry loop, by DOMAIN.md section 5's alarm. */
export function AlarmPanel({ scope }: { scope: Scope }) {
  const { link } = useUrl();
  const identities = useQuery(alarmedIdentitiesQuery(scope));
  return (
    <Panel
      title="The same request sent 40 times in 10 minutes"
      what="the identities"
      query={identities}
      minHeight={180}
      isEmpty={(data) => alarmedIdentities(data.identities).length === 0}
      empty="No request was sent 40 times within 10 minutes."
      testId="alarm-panel"
      actions={
        <DownloadButtons
          table={{ path: 'identities', query: { ...scopeQuery(scope), only: 'alarmed', limit: '50' } }}
        />
      }
    >
      {(data) => (
        <>
          <ul className="rows">
            {alarmedIdentities(data.identities).map((row) => (
              <li key={row.identity} className="row">
                <span className="row-main">
                  <code title={row.identity}>{shortIdentity(row.identity)}</code>
                  <span className="muted">
                    {row.method ?? 'no method'} on{' '}
                    <Link href={link(routePath({ name: 'server', server: row.server }))}>{row.server}</Link>
                  </span>
                  <span className="muted small">
                    last answer <BucketBadge bucket={row.last.bucket} kind={row.last.kind} />, first 40 in 10 min at{' '}
                    {formatDateTime(row.firstReachedAt)}
                  </span>
                </span>
                <span className="row-side">
                  <span>
                    <strong>{formatCount(row.peak)}</strong> in 10 min
                  </span>
                  <span className="muted">sent again {counted(row.represented, 'time')} in range</span>
                </span>
              </li>
            ))}
          </ul>
          {data.total > data.identities.length && (
            <p className="muted panel-foot" data-testid="alarm-more">
              {formatCount(data.total - data.identities.length)} more reached 40 in 10 minutes in this range.
            </p>
          )}
        </>
      )}
    </Panel>
  );
}
