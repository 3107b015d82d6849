import { BUCKET_LABEL, BUCKETS } from '../../buckets.ts';
import { Link } from '../../components/Link.tsx';
import { Panel, type PanelQuery } from '../../components/Panel.tsx';
import { formatCount } from '../../format.ts';
import type { ServerDetail } from '../../queries/servers.ts';
import { useUrl } from '../../use-url.ts';

/** Who sends to this server, the most refused first; each opens that client's events here. */
export function ClientsPanel({ server, query }: { server: string; query: PanelQuery<ServerDetail> }) {
  const { link } = useUrl();
  return (
    <Panel
      title="Clients"
      what="the clients"
      query={query}
      minHeight={200}
      isEmpty={(data) => Object.keys(data.clients).length === 0}
      empty="No client sent requests to this server in this range."
      testId="server-clients"
    >
      {(data) => {
        const rows = Object.entries(data.clients).sort(
          ([a, x], [b, y]) => y.total - y.buckets.ok - (x.total - x.buckets.ok) || a.localeCompare(b),
        );
        return (
          <div className="table-wrap">
            <table className="table stack-on-phone">
              <thead>
                <tr>
                  <th scope="col">Client</th>
                  <th scope="col" className="num">
                    Requests
                  </th>
                  {BUCKETS.filter((bucket) => bucket !== 'ok').map((bucket) => (
                    <th key={bucket} scope="col" className="num">
                      {BUCKET_LABEL[bucket]}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map(([client, counts]) => (
                  <tr key={client}>
                    <th scope="row" data-label="Client">
                      <Link href={link('/events', { server, client })}>{client}</Link>
                    </th>
                    <td className="num" data-label="Requests">
                      {formatCount(counts.total)}
                    </td>
                    {BUCKETS.filter((bucket) => bucket !== 'ok').map((bucket) => (
                      <td
                        key={bucket}
                        data-label={BUCKET_LABEL[bucket]}
                        className={`num ${counts.buckets[bucket] === 0 ? 'muted' : ''}`}
                      >
                        {formatCount(counts.buckets[bucket])}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
            {data.sentByServer.avoidable > 0 ? (
              <p className="small" data-testid="server-own-conduct">
                This server itself sent {formatCount(data.sentByServer.avoidable)} avoidable request(s) to its clients
                (sampling, elicitation, roots re-asked after an answer): its conduct, not theirs.
              </p>
            ) : null}
          </div>
        );
      }}
    </Panel>
  );
}
