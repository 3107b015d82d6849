import { useQuery } from '@tanstack/react-query';
import { Panel } from '../../components/Panel.tsx';
import { formatDateTime, formatTime } from '../../format.ts';
import { type Delivery, deliveriesQuery } from '../../queries/alerts.ts';

const STATUS_CLASS: Record<string, string> = {
  delivered: 'pill pill-ok',
  pending: 'pill pill-warn',
  refused: 'pill pill-firing',
  failed: 'pill pill-firing',
};

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
      empty="Nothing sent yet. Rules with a webhook or Slack target notify when they fire and resolve."
    >
      {(data) => (
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Queued (UTC)</th>
                <th scope="col">Notification</th>
                <th scope="col">Target</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
              </tr>
            </thead>
            <tbody>
              {data.deliveries.map((delivery) => (
                <tr key={delivery.id}>
                  <td className="nowrap">{formatDateTime(delivery.createdAt)}</td>
                  <td>
                    {delivery.notice.status} · {delivery.notice.rule.name}
                    {delivery.notice.group.value === '' ? '' : ` · ${delivery.notice.group.value}`}
                  </td>
                  <td>
                    {delivery.target.type} <span className="muted">{delivery.target.host}</span>
                  </td>
                  <td>
                    <span className={STATUS_CLASS[delivery.status] ?? 'pill'}>{delivery.status}</span>
                  </td>
                  <td>
                    <Attempts delivery={delivery} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
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
