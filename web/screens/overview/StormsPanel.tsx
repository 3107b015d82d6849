import { useQuery } from '@tanstack/react-query';
import { isActiveStorm } from '../../../shared/analysis/storm-model.ts';
import { BucketBadge } from '../../components/BucketBadge.tsx';
import { DownloadButtons } from '../../components/DownloadButtons.tsx';
import { Link } from '../../components/Link.tsx';
import { Panel } from '../../components/Panel.tsx';
import { StormsBuilding } from '../../components/StormsBuilding.tsx';
import { formatAgo, formatCount } from '../../format.ts';
import { STORM_KIND_LABEL, stormTarget } from '../../prepare/storms.ts';
import { type Scope, scopeQuery } from '../../queries/scope.ts';
import { rankedStormsQuery } from '../../queries/storms.ts';
import { routePath } from '../../router.ts';
import { useUrl } from '../../use-url.ts';

/** Retry storms of the range, each titled by its actor and fault: the ones still going first, then the costliest. */
export function StormsPanel({ scope }: { scope: Scope }) {
  const { link } = useUrl();
  const storms = useQuery(rankedStormsQuery(scope));
  return (
    <Panel
      title="Retry storms"
      what="the retry storms"
      query={storms}
      minHeight={300}
      isEmpty={(data) => data.storms.length === 0}
      empty="No retry storm in this range."
      testId="storms-panel"
      actions={<DownloadButtons table={{ path: 'storms', query: { ...scopeQuery(scope), sort: 'rank' } }} />}
    >
      {(data) => {
        const now = Date.now();
        return (
          <>
            <ul className="rows">
              {data.storms.map((storm) => (
                <li key={storm.id}>
                  <Link href={link(routePath({ name: 'storm', id: storm.id }))} className="row-link">
                    <span className="row-main">
                      {isActiveStorm(storm, now) ? <span className="pill pill-live">active</span> : null}
                      <strong data-testid="storm-row-title">{storm.title}</strong>
                      <span className="muted">
                        {STORM_KIND_LABEL[storm.kind]} · {stormTarget(storm)}
                      </span>
                    </span>
                    <span className="row-side">
                      <span>
                        <strong>{formatCount(storm.avoidable)}</strong> / {formatCount(storm.attempts)} avoidable
                      </span>
                      <span className="muted">
                        <BucketBadge bucket={storm.firstFailure.bucket} kind={storm.firstFailure.kind} /> · last attempt{' '}
                        {formatAgo(storm.lastTs, now)}
                      </span>
                    </span>
                  </Link>
                </li>
              ))}
            </ul>
            <StormsBuilding complete={data.complete} />
            {data.total > data.storms.length ? (
              <p className="muted panel-foot">
                {formatCount(data.total - data.storms.length)} more in this range: each server page lists its storms.
              </p>
            ) : null}
          </>
        );
      }}
    </Panel>
  );
}
