import { isActiveStorm } from '../../../shared/analysis/storms.ts';
import { BucketBadge } from '../../components/BucketBadge.tsx';
import { Link } from '../../components/Link.tsx';
import { Panel, type PanelQuery } from '../../components/Panel.tsx';
import { StormsBuilding } from '../../components/StormsBuilding.tsx';
import { formatCount, formatDateTime, formatDuration } from '../../format.ts';
import { STORM_KIND_LABEL, stormTarget } from '../../prepare/storms.ts';
import type { ServerDetail } from '../../queries/servers.ts';
import { routePath } from '../../router.ts';
import { useUrl } from '../../use-url.ts';

/** The retry loops and probe storms against the server, newest first; each opens its attempt timeline. */
export function StormTable({ query }: { query: PanelQuery<ServerDetail> }) {
  const { link } = useUrl();
  const now = Date.now();
  return (
    <Panel
      title="Retry loops and probe storms"
      what="the storms"
      query={query}
      minHeight={160}
      isEmpty={(data) => data.storms.length === 0}
      empty="No retry loop or probe storm against this server in this range."
      testId="storm-table"
    >
      {(data) => (
        <div className="table-wrap">
          <table className="table stack-on-phone">
            <thead>
              <tr>
                <th scope="col">Storm</th>
                <th scope="col">Client</th>
                <th scope="col">Key or paths</th>
                <th scope="col" className="num">
                  Attempts
                </th>
                <th scope="col" className="num">
                  Avoidable
                </th>
                <th scope="col" className="num">
                  Span
                </th>
                <th scope="col">First failure</th>
                <th scope="col">Started</th>
              </tr>
            </thead>
            <tbody>
              {data.storms.map((storm) => (
                <tr key={storm.id}>
                  <td data-label="Storm" className="nowrap">
                    <Link href={link(routePath({ name: 'storm', id: storm.id }))}>{STORM_KIND_LABEL[storm.kind]}</Link>
                    {isActiveStorm(storm, now) ? <span className="pill pill-live">active</span> : null}
                  </td>
                  <td data-label="Client" className="nowrap">
                    {storm.client}
                  </td>
                  <td data-label="Key or paths" className="wrap">
                    {stormTarget(storm)}
                  </td>
                  <td data-label="Attempts" className="num">
                    {formatCount(storm.attempts)}
                  </td>
                  <td data-label="Avoidable" className="num">
                    {formatCount(storm.avoidable)}
                  </td>
                  <td data-label="Span" className="num nowrap">
                    {formatDuration(storm.lastTs - storm.firstTs)}
                  </td>
                  <td data-label="First failure">
                    <BucketBadge bucket={storm.firstFailure.bucket} kind={storm.firstFailure.kind} />
                  </td>
                  <td data-label="Started" className="nowrap">
                    {formatDateTime(storm.firstTs)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <StormsBuilding complete={data.stormsComplete} />
          {data.stormsTotal > data.storms.length ? (
            <p className="muted panel-foot">
              The newest {formatCount(data.storms.length)} of {formatCount(data.stormsTotal)} storms in this range;
              narrow the range or filter by client to see the others.
            </p>
          ) : null}
        </div>
      )}
    </Panel>
  );
}
