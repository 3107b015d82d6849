import { useQuery } from '@tanstack/react-query';
import type { Metric } from '../../../shared/alerts/metrics.ts';
import { Panel } from '../../components/Panel.tsx';
import { formatDateTime } from '../../format.ts';
import { type AlertRule, historyQuery } from '../../queries/alerts.ts';
import { formatMetricValue, groupText } from './alert-text.ts';

/**
 * Every state change, newest first: when, which rule and group, and the value against its threshold. Values read
 * as their rule's metric reads; a deleted rule's entries keep their raw numbers.
 */
export function HistoryTable({ rules }: { rules: readonly AlertRule[] }) {
  const query = useQuery(historyQuery());
  const ruleOf = new Map(rules.map((rule) => [rule.id, rule]));
  const show = (ruleId: string, value: number | null) => {
    const rule = ruleOf.get(ruleId);
    if (value === null) return '–';
    return rule === undefined ? round(value) : formatMetricValue(rule.metric as Metric, value);
  };
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
                  <td>{groupOf(ruleOf.get(entry.ruleId), entry.groupKey)}</td>
                  <td className="nowrap">
                    {entry.fromState} → {entry.toState}
                    {entry.severity !== null && entry.toState !== 'resolved' ? ` (${entry.severity})` : ''}
                  </td>
                  <td className="num">{show(entry.ruleId, entry.value)}</td>
                  <td className="num">{show(entry.ruleId, entry.threshold)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Panel>
  );
}

function groupOf(rule: AlertRule | undefined, group: string): string {
  if (rule === undefined) return group === '' ? 'all traffic' : group;
  return groupText(rule.groupBy, group);
}

function round(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(3);
}
