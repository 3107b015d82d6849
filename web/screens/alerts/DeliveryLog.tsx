import { useQuery } from '@tanstack/react-query';
import { type Column, DataTable } from '../../components/DataTable.tsx';
import { Panel } from '../../components/Panel.tsx';
import { TableScroll } from '../../components/TableScroll.tsx';
import { formatDateTime, formatTime } from '../../format.ts';
import { type Delivery, deliveriesQuery } from '../../queries/alerts.ts';

const STATUS_CLASS: Record<string, string> = {
  delivered: 'pill pill-ok',
  pending: 'pill pill-warn',
  refused: 'pill pill-firing',
  failed: 'pill pill-firing',
};

const COLUMNS: Column<Delivery>[] = [
  { label: 'Queued (UTC)', className: 'nowrap', cell: (delivery) => formatDateTime(delivery.createdAt) },
  {
    label: 'Notification',
    cell: ({ notice }) =>
      `${notice.status} · ${notice.rule.name}${notice.group.value === '' ? '' : ` · ${notice.group.value}`}`,
  },
  {
    label: 'Target',
    cell: ({ target }) => (
      <>
        {target.type} <span className="muted">{target.host}</span>
      </>
    ),
  },
  {
    label: 'Status',
    cell: ({ status }) => <span className={STATUS_CLASS[status] ?? 'pill'}>{status}</span>,
  },
  { label: 'Attempts', cell: (delivery) => <Attempts delivery={delivery} /> },
];

/** Each notification, where it went, and every attempt as the receiver answered it. */
export function DeliveryLog() {
  const query = useQuery(deliveriesQuery());
  return (
    <Panel
      title="Deliveries"
      what="the delivery log"
      query={query}
      minHeight={120}
      testId="alert-deliveries"
      isEmpty={(data) => data.deliveries.length === 0}
      empty="Nothing sent yet. Rules with a target (webhook, Slack, PagerDuty, Alertmanager) notify when they fire and resolve."
    >
      {(data) => (
        <TableScroll>
          <DataTable columns={COLUMNS} rows={data.deliveries} rowKey={(delivery) => delivery.id} stackOnPhone />
        </TableScroll>
      )}
    </Panel>
  );
}

function Attempts({ delivery }: { delivery: Delivery }) {
  if (delivery.attempts.length === 0) return <span className="muted">none yet</span>;
  return (
    <ol className="attempts">
      {delivery.attempts.map((attempt) => (
        <li key={attempt.at} title={attempt.error ?? undefined}>
          {formatTime(attempt.at)} {attempt.httpStatus ?? 'no answer'} {attempt.outcome}
          {attempt.retryAt !== null ? `, next ${formatTime(attempt.retryAt)}` : ''}
        </li>
      ))}
    </ol>
  );
}
