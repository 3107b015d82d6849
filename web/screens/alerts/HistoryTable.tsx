import { useQuery } from '@tanstack/react-query';
import { Panel } from '../../components/Panel.tsx';
import { formatDateTime } from '../../format.ts';
import { historyQuery } from '../../queries/alerts.ts';

/** Every state change, newest first: when, which rule and group, and the value against its threshold. */
export function HistoryTable() {
  const query = useQuery(historyQuery());
  return (
    <Panel
      title="History"
      what="the alert history"
      query={query}
      minHeight={120}
      testId="alert-history"
      isEmpty={(data) => data.history.length === 0}
      empty="No rule has changed state yet."
    >
      {(data) => (
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">When (UTC)</th>
                <th scope="col">Rule</th>
                <th scope="col">Group</th>
                <th scope="col">Change</th>
                <th scope="col" className="num">
                  Value
                </th>
                <th scope="col" className="num">
                  Threshold
                </th>
              </tr>
            </thead>
            <tbody>
              {data.history.map((entry) => (
                <tr key={entry.id}>
                  <td className="nowrap">{formatDateTime(entry.at)}</td>
                  <td>{entry.ruleName}</td>
                  <td>{entry.groupKey === '' ? 'all' : entry.groupKey}</td>
                  <td className="nowrap">
                    {entry.fromState} → {entry.toState}
                    {entry.severity !== null && entry.toState !== 'resolved' ? ` (${entry.severity})` : ''}
                  </td>
                  <td className="num">{entry.value === null ? '–' : round(entry.value)}</td>
                  <td className="num">{entry.threshold === null ? '–' : round(entry.threshold)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Panel>
  );
}

function round(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(3);
}
