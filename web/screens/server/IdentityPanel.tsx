import { BucketBadge } from '../../components/BucketBadge.tsx';
import { Panel, type PanelQuery } from '../../components/Panel.tsx';
import { formatCount, shortDigest } from '../../format.ts';
import type { ServerDetail } from '../../queries/servers.ts';

/** The requests this server is sent again and again: one identity is one request, whoever encoded it. */
export function IdentityPanel({ query }: { query: PanelQuery<ServerDetail> }) {
  return (
    <Panel
      title="Most re-presented identities"
      what="the identities"
      query={query}
      minHeight={200}
      isEmpty={(data) => data.identities.length === 0}
      empty="No request with an identity in this range."
      testId="identity-table"
    >
      {(data) => (
        <div className="table-wrap">
          <table className="table stack-on-phone">
            <thead>
              <tr>
                <th scope="col">Identity</th>
                <th scope="col" className="num">
                  Sends
                </th>
                <th scope="col" className="num">
                  Re-presented
                </th>
                <th scope="col" className="num">
                  Peak/10 min
                </th>
                <th scope="col">Last</th>
              </tr>
            </thead>
            <tbody>
              {data.identities.map((row) => {
                const peak = Math.max(0, ...row.alarms.map((alarm) => alarm.count));
                return (
                  <tr key={row.identity}>
                    <td data-label="Identity">
                      <span>
                        <code title={row.identity}>{shortDigest(row.identity)}</code>
                        <span className="muted small block">{row.method ?? 'no method'}</span>
                      </span>
                    </td>
                    <td data-label="Sends" className="num">
                      {formatCount(row.sends)}
                    </td>
                    <td data-label="Re-presented" className="num">
                      {formatCount(row.represented)}
                    </td>
                    <td data-label="Peak / 10 min" className="num">
                      {peak > 0 ? <span className="pill pill-live">{formatCount(peak)} alarm</span> : '–'}
                    </td>
                    <td data-label="Last answer">
                      <BucketBadge bucket={row.last.bucket} kind={row.last.kind} stacked />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {!data.identitiesExact && (
            <p className="muted panel-foot">
              Ranked from each hour's most sent identities: one sent only a few times an hour may be missing.
            </p>
          )}
        </div>
      )}
    </Panel>
  );
}
