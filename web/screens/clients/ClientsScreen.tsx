import { useQuery } from '@tanstack/react-query';
import { type Column, DataTable } from '../../components/DataTable.tsx';
import { DownloadButtons } from '../../components/DownloadButtons.tsx';
import { Link } from '../../components/Link.tsx';
import { Panel } from '../../components/Panel.tsx';
import { ShareBar } from '../../components/ShareBar.tsx';
import { TableScroll } from '../../components/TableScroll.tsx';
import { UrlSearch } from '../../components/UrlSearch.tsx';
import { formatCount, formatShare } from '../../format.ts';
import { conductFindings, filterClients } from '../../prepare/conduct.ts';
import { onlyLegacy, speaksText } from '../../prepare/eras.ts';
import { type ClientConduct, clientsQuery } from '../../queries/clients.ts';
import { scopeQuery } from '../../queries/scope.ts';
import { routePath } from '../../router.ts';
import { useUrl } from '../../use-url.ts';
import { DenialsPanel } from '../denials/DenialsPanel.tsx';

/**
 * Each client's conduct: how much of what it sent a correct client would not have, where it hurts, and which protocol
 * eras it speaks.
 */
export function ClientsScreen() {
  const { range, params, link } = useUrl();
  const q = params.get('q') ?? '';
  const clients = useQuery(clientsQuery({ range }));
  const search = <UrlSearch label="Search clients" />;
  const columns: Column<ClientConduct>[] = [
    {
      label: 'Client',
      rowHeader: true,
      cell: (row) => <Link href={link('/events', { client: row.client })}>{row.client}</Link>,
    },
    { label: 'Requests', num: true, cell: (row) => formatCount(row.requests) },
    { label: 'Avoidable', num: true, cell: (row) => formatCount(row.avoidable) },
    {
      label: 'Share',
      className: 'nowrap',
      cell: (row) => (
        <span>
          <ShareBar value={row.share ?? 0} max={1} tone="avoidable" /> {formatShare(row.share)}
        </span>
      ),
    },
    { label: 'Speaks', className: 'nowrap', cell: (row) => <Speaks eras={row.eras} /> },
    { label: 'Findings', className: 'wrap', cell: (row) => <Findings findings={conductFindings(row)} /> },
    { label: 'Hurts most', className: 'wrap', cell: (row) => <HurtsMost costs={row.hurtsMost} /> },
  ];
  return (
    <>
      <h1 className="screen-title">Clients</h1>
      <Panel
        title="Conduct per client, most avoidable first"
        what="the clients"
        query={clients}
        minHeight={320}
        actions={
          <>
            {search}
            <DownloadButtons table={{ path: 'clients', query: scopeQuery({ range }) }} />
          </>
        }
        isEmpty={(data) => data.clients.length === 0}
        empty="No client traffic in this range."
        testId="client-table"
      >
        {(data) => {
          const rows = filterClients(data.clients, q);
          if (rows.length === 0) return <p className="empty">No client name contains “{q}”.</p>;
          const legacy = rows.filter((row) => row.eras !== null && onlyLegacy(row.eras.speaks));
          return (
            <>
              {legacy.length === 0 ? null : (
                <p className="small" data-testid="only-2025">
                  Still speaking only 2025: {legacy.map((row) => row.client).join(', ')}.
                </p>
              )}
              <TableScroll>
                <DataTable columns={columns} rows={rows} rowKey={(row) => row.client} stackOnPhone />
              </TableScroll>
            </>
          );
        }}
      </Panel>
      <DenialsPanel />
    </>
  );
}

/** The protocol eras a client sent requests in: a client still speaking only 2025 stands out. */
function Speaks({ eras }: { eras: ClientConduct['eras'] }) {
  if (eras === null || eras.speaks.length === 0) return <span className="muted">no era told</span>;
  const { requests } = eras;
  const title = `${formatCount(requests['2025'])} requests in 2025, ${formatCount(requests['2026'])} in 2026-07-28`;
  return (
    <span title={title} data-testid="client-speaks">
      {onlyLegacy(eras.speaks) ? (
        <span className="pill pill-warn">{speaksText(eras.speaks)}</span>
      ) : (
        speaksText(eras.speaks)
      )}
    </span>
  );
}

function Findings({ findings }: { findings: readonly string[] }) {
  if (findings.length === 0) return <span className="muted">nothing a correct client would not have done</span>;
  return (
    <ul className="findings">
      {findings.map((finding) => (
        <li key={finding}>{finding}</li>
      ))}
    </ul>
  );
}

function HurtsMost({ costs }: { costs: ClientConduct['hurtsMost'] }) {
  const { link } = useUrl();
  if (costs.length === 0) return <span className="muted">–</span>;
  return (
    <span>
      {costs.map((cost, index) => (
        // The comma stays with the server before it, so a wrapped line never starts with one.
        <span key={cost.server}>
          {index > 0 ? ' ' : ''}
          <span className="nowrap">
            <Link href={link(routePath({ name: 'server', server: cost.server }))}>{cost.server}</Link>{' '}
            <span className="muted">({formatCount(cost.avoidable)})</span>
            {index < costs.length - 1 ? ',' : ''}
          </span>
        </span>
      ))}
    </span>
  );
}
