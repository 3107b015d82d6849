import { useQuery } from '@tanstack/react-query';
import { inBetweenWords } from '../../../shared/analysis/in-between-words.ts';
import { BucketBadge } from '../../components/BucketBadge.tsx';
import { type Column, DataTable } from '../../components/DataTable.tsx';
import { Link } from '../../components/Link.tsx';
import { Panel } from '../../components/Panel.tsx';
import { TableScroll } from '../../components/TableScroll.tsx';
import { formatCount, formatTimeMs, shortDigest, shortIdentity } from '../../format.ts';
import { denialsHeadline } from '../../prepare/denials.ts';
import { type DenialNotHeld, denialsQuery } from '../../queries/denials.ts';
import { routePath } from '../../router.ts';
import { useUrl } from '../../use-url.ts';

/**
 * Denials that did not hold (DOMAIN.md section 5): a refused request answered differently while the refusal still
 * stood, each with links to its two events, and per client how refused requests sent again went: refused again (the
 * decision kept) or answered differently. On the Clients screen for the fleet, on a server's page for that server.
 */
export function DenialsPanel({ server }: { server?: string }) {
  const { range, link } = useUrl();
  const denials = useQuery(denialsQuery({ range, server }));
  const eventLink = (d: DenialNotHeld, side: DenialNotHeld['refusal']) =>
    link('/events', {
      server: d.server,
      client: d.client,
      from: new Date(d.refusal.ts).toISOString(),
      to: new Date(d.answer.ts + 1).toISOString(),
      event: side.id,
      at: side.ts,
    });
  const columns: Column<DenialNotHeld>[] = [
    server === undefined
      ? {
          label: 'Client → server',
          rowHeader: true,
          cell: (d) => (
            <span>
              {d.client} → <Link href={link(routePath({ name: 'server', server: d.server }))}>{d.server}</Link>
            </span>
          ),
        }
      : { label: 'Client', rowHeader: true, cell: (d) => d.client },
    {
      label: 'Request',
      className: 'wrap',
      cell: (d) => (
        <span title={d.identity}>
          {d.rpcMethod ?? '–'}{' '}
          <code className="muted">{server === undefined ? shortIdentity(d.identity) : shortDigest(d.identity)}</code>
        </span>
      ),
    },
    {
      label: 'Refused',
      cell: (d) => (
        <span>
          <Link href={eventLink(d, d.refusal)} data-testid="denial-refusal">
            {formatTimeMs(d.refusal.ts)}
          </Link>{' '}
          <BucketBadge bucket={d.refusal.bucket} kind={d.refusal.kind} stacked />
        </span>
      ),
    },
    {
      label: 'Later answered',
      cell: (d) => (
        <span>
          <Link href={eventLink(d, d.answer)} data-testid="denial-answer">
            {formatTimeMs(d.answer.ts)}
          </Link>{' '}
          <BucketBadge bucket={d.answer.bucket} kind={d.answer.kind} stacked />
        </span>
      ),
    },
    {
      label: 'Between',
      className: 'nowrap',
      cell: (d) => {
        const between = inBetweenWords(d);
        return (
          <span className={between.reset ? 'pill pill-warn' : 'muted'} data-testid="denial-between">
            {between.text}
          </span>
        );
      },
    },
  ];
  return (
    <Panel
      title="Denials that did not hold"
      what="the denials that did not hold"
      query={denials}
      minHeight={160}
      testId="denials-not-held"
    >
      {(data) => (
        <>
          <p className="headline">
            <strong data-testid="denials-total">{formatCount(data.total)}</strong> {denialsHeadline(data.total)}
          </p>
          {data.items.length > 0 ? (
            <TableScroll>
              <DataTable
                columns={columns}
                rows={data.items}
                rowKey={(d) => d.answer.id}
                rowTestId="denial-row"
                stackOnPhone
              />
            </TableScroll>
          ) : null}
          <ReplayTable rows={data.representedRefusals} />
        </>
      )}
    </Panel>
  );
}

type Represented = { client: string; replayed: number; evaluatedAfresh: number };

/** Per client: refused requests sent again, refused again (the decision kept) against answered differently. */
function ReplayTable({ rows }: { rows: readonly Represented[] }) {
  if (rows.length === 0) return <p className="muted">No refused request was sent again in this range.</p>;
  const columns: Column<Represented>[] = [
    { label: 'Client', rowHeader: true, cell: (r) => r.client },
    {
      label: 'Refused again',
      num: true,
      title: 'the same refusal again: the decision kept',
      cell: (r) => formatCount(r.replayed),
    },
    {
      label: 'Answered differently',
      num: true,
      title: 'another answer while the refusal still stood: decided afresh',
      cell: (r) => formatCount(r.evaluatedAfresh),
    },
  ];
  return (
    <>
      <h3>Refused requests sent again, per client</h3>
      <TableScroll>
        <DataTable
          columns={columns}
          rows={rows}
          rowKey={(r) => r.client}
          testId="represented-refusals"
          className="table-compact"
          stackOnPhone
        />
      </TableScroll>
    </>
  );
}
