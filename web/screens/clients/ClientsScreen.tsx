import { useQuery } from '@tanstack/react-query';
import { Link } from '../../components/Link.tsx';
import { Panel } from '../../components/Panel.tsx';
import { ShareBar } from '../../components/ShareBar.tsx';
import { UrlSearch } from '../../components/UrlSearch.tsx';
import { formatCount, formatShare } from '../../format.ts';
import { conductFindings, filterClients } from '../../prepare/conduct.ts';
import { clientsQuery } from '../../queries/clients.ts';
import { routePath } from '../../router.ts';
import { useUrl } from '../../use-url.ts';

/** Each client's conduct: how much of what it sent a correct client would not have, and where it hurts. */
export function ClientsScreen() {
  const { range, params, link } = useUrl();
  const q = params.get('q') ?? '';
  const clients = useQuery(clientsQuery({ range }));
  const search = <UrlSearch label="Search clients" />;
  return (
    <>
      <h1 className="screen-title">Clients</h1>
      <Panel
        title="Conduct per client, most avoidable first"
        what="the clients"
        query={clients}
        minHeight={320}
        actions={search}
        isEmpty={(data) => data.clients.length === 0}
        empty="No client traffic in this range."
        testId="client-table"
      >
        {(data) => {
          const rows = filterClients(data.clients, q);
          if (rows.length === 0) return <p className="empty">No client name contains “{q}”.</p>;
          return (
            <div className="table-wrap">
              <table className="table stack-on-phone">
                <thead>
                  <tr>
                    <th scope="col">Client</th>
                    <th scope="col" className="num">
                      Requests
                    </th>
                    <th scope="col" className="num">
                      Avoidable
                    </th>
                    <th scope="col">Share</th>
                    <th scope="col">Findings</th>
                    <th scope="col">Hurts most</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((row) => {
                    const findings = conductFindings(row);
                    return (
                      <tr key={row.client}>
                        <th scope="row" data-label="Client">
                          <Link href={link('/events', { client: row.client })}>{row.client}</Link>
                        </th>
                        <td data-label="Requests" className="num">
                          {formatCount(row.requests)}
                        </td>
                        <td data-label="Avoidable" className="num">
                          {formatCount(row.avoidable)}
                        </td>
                        <td data-label="Share" className="nowrap">
                          <span>
                            <ShareBar value={row.share ?? 0} max={1} tone="avoidable" /> {formatShare(row.share)}
                          </span>
                        </td>
                        <td data-label="Findings" className="wrap">
                          {findings.length === 0 ? (
                            <span className="muted">nothing a correct client would not have done</span>
                          ) : (
                            <ul className="findings">
                              {findings.map((finding) => (
                                <li key={finding}>{finding}</li>
                              ))}
                            </ul>
                          )}
                        </td>
                        <td data-label="Hurts most" className="wrap">
                          <span>
                            {row.hurtsMost.length === 0 ? <span className="muted">–</span> : null}
                            {row.hurtsMost.map((cost, index) => (
                              // The comma stays with the server before it, so a wrapped line never starts with one.
                              <span key={cost.server}>
                                {index > 0 ? ' ' : ''}
                                <span className="nowrap">
                                  <Link href={link(routePath({ name: 'server', server: cost.server }))}>
                                    {cost.server}
                                  </Link>{' '}
                                  <span className="muted">({formatCount(cost.avoidable)})</span>
                                  {index < row.hurtsMost.length - 1 ? ',' : ''}
                                </span>
                              </span>
                            ))}
                          </span>
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          );
        }}
      </Panel>
    </>
  );
}
