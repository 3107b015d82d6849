import { useQuery } from '@tanstack/react-query';
import type { Metric } from '../../../shared/alerts/metrics.ts';
import { type Column, DataTable } from '../../components/DataTable.tsx';
import { Panel } from '../../components/Panel.tsx';
import { TableScroll } from '../../components/TableScroll.tsx';
import { formatDateTime } from '../../format.ts';
import { type AlertRule, type HistoryEntry, historyQuery } from '../../queries/alerts.ts';
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
  const columns: Column<HistoryEntry>[] = [
    { label: 'When (UTC)', className: 'nowrap', cell: (entry) => formatDateTime(entry.at) },
    { label: 'Rule', cell: (entry) => entry.ruleName },
    { label: 'Group', cell: (entry) => groupOf(ruleOf.get(entry.ruleId), entry.groupKey) },
    {
      label: 'Change',
      className: 'nowrap',
      cell: (entry) =>
        `${entry.fromState} → ${entry.toState}${entry.severity !== null && entry.toState !== 'resolved' ? ` (${entry.severity})` : ''}`,
    },
    { label: 'Value', num: true, cell: (entry) => show(entry.ruleId, entry.value) },
    { label: 'Threshold', num: true, cell: (entry) => show(entry.ruleId, entry.threshold) },
  ];
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
        <TableScroll>
          <DataTable columns={columns} rows={data.history} rowKey={(entry) => entry.id} stackOnPhone />
        </TableScroll>
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
