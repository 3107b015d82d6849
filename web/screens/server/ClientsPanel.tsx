import { BUCKET_LABEL, BUCKETS } from '../../buckets.ts';
import { type Column, DataTable } from '../../components/DataTable.tsx';
import { Link } from '../../components/Link.tsx';
import { Panel, type PanelQuery } from '../../components/Panel.tsx';
import { TableScroll } from '../../components/TableScroll.tsx';
import { counted, formatCount } from '../../format.ts';
import type { ServerDetail } from '../../queries/servers.ts';
import { useUrl } from '../../use-url.ts';

/** A client and what it sent to this server. */
type ClientRow = [string, ServerDetail['clients'][string]];

const FAILURES = BUCKETS.filter((bucket) => bucket !== 'ok' && bucket !== 'unknown');

/** Who sends to this server, the most refused first; each opens that client's events here. */
export function ClientsPanel({ server, query }: { server: string; query: PanelQuery<ServerDetail> }) {
  const { link } = useUrl();
  const columns: Column<ClientRow>[] = [
    {
      label: 'Client',
      rowHeader: true,
      cell: ([client]) => <Link href={link('/events', { server, client })}>{client}</Link>,
    },
    { label: 'Requests', num: true, cell: ([, counts]) => formatCount(counts.total) },
    ...FAILURES.map(
      (bucket): Column<ClientRow> => ({
        label: BUCKET_LABEL[bucket],
        num: true,
        className: ([, counts]) => (counts.buckets[bucket] === 0 ? 'muted' : undefined),
        cell: ([, counts]) => formatCount(counts.buckets[bucket]),
      }),
    ),
  ];
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
          <>
            <TableScroll>
              <DataTable columns={columns} rows={rows} rowKey={([client]) => client} stackOnPhone />
            </TableScroll>
            {data.sentByServer.avoidable > 0 ? (
              <p className="small" data-testid="server-own-conduct">
                This server itself sent {counted(data.sentByServer.avoidable, 'avoidable request')} to its clients
                (sampling, elicitation, roots re-asked after an answer): its conduct, not theirs.
              </p>
            ) : null}
          </>
        );
      }}
    </Panel>
  );
}
