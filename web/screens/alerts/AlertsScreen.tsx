import { useQuery } from '@tanstack/react-query';
import type { Comparator } from '../../../shared/alerts/compare.ts';
import type { Metric } from '../../../shared/alerts/metrics.ts';
import { type Column, DataTable } from '../../components/DataTable.tsx';
import { Link } from '../../components/Link.tsx';
import { Panel } from '../../components/Panel.tsx';
import { TableScroll } from '../../components/TableScroll.tsx';
import { formatAgo } from '../../format.ts';
import { type AlertRule, rulesQuery } from '../../queries/alerts.ts';
import { routePath } from '../../router.ts';
import { useUrl } from '../../use-url.ts';
import { metricLabel, thresholdText } from './alert-text.ts';
import { DeliveryLog } from './DeliveryLog.tsx';
import { FiringAlerts } from './FiringAlerts.tsx';
import { HistoryTable } from './HistoryTable.tsx';

/** The rules operators set, what is firing now, what happened, and what was sent where. */
export function AlertsScreen() {
  const { link } = useUrl();
  const rules = useQuery(rulesQuery());
  return (
    <>
      <div className="screen-head">
        <h1 className="screen-title">Alerts</h1>
        <Link className="head-link button-link" href={link(routePath({ name: 'alert_rule', id: 'new' }))}>
          New rule
        </Link>
      </div>
      <FiringAlerts limit={100} linkToRules={false} title="Firing and pending" />
      <Panel
        title="Rules"
        what="the alert rules"
        query={rules}
        minHeight={120}
        testId="alert-rules"
        isEmpty={(data) => data.rules.length === 0}
        empty="No rules. Create one with New rule."
      >
        {(data) => <RuleTable rules={data.rules} />}
      </Panel>
      <HistoryTable rules={rules.data?.rules ?? []} />
      <DeliveryLog />
    </>
  );
}

function stateOf(rule: AlertRule): { label: string; className: string } {
  if (!rule.enabled) return { label: 'paused', className: 'pill' };
  if (rule.lastError !== null) return { label: 'error', className: 'pill pill-firing' };
  if (rule.firing > 0) return { label: `firing ${rule.firing}`, className: 'pill pill-firing' };
  if (rule.pending > 0) return { label: `pending ${rule.pending}`, className: 'pill pill-warn' };
  if (rule.lastEvalAt === null) return { label: 'not yet run', className: 'pill' };
  return { label: 'ok', className: 'pill pill-ok' };
}

function RuleTable({ rules }: { rules: AlertRule[] }) {
  const { link } = useUrl();
  const now = Date.now();
  const columns: Column<AlertRule>[] = [
    {
      label: 'Rule',
      rowHeader: true,
      className: 'rule-name',
      cell: (rule) => <Link href={link(routePath({ name: 'alert_rule', id: rule.id }))}>{rule.name}</Link>,
    },
    {
      label: 'State',
      cell: (rule) => {
        const state = stateOf(rule);
        return (
          <span className={state.className} title={rule.lastError ?? undefined}>
            {state.label}
          </span>
        );
      },
    },
    { label: 'Metric', cell: (rule) => metricLabel(rule.metric as Metric) },
    { label: 'Per', cell: (rule) => (rule.groupBy === 'none' ? 'all' : rule.groupBy) },
    { label: 'Warning', className: 'nowrap', cell: (rule) => thresholdOf(rule, rule.warning) },
    { label: 'Critical', className: 'nowrap', cell: (rule) => thresholdOf(rule, rule.critical) },
    { label: 'Window', num: true, cell: (rule) => `${Math.round(rule.windowSeconds / 60)} min` },
    {
      label: 'Evaluated',
      className: 'muted nowrap',
      cell: (rule) => (rule.lastEvalAt === null ? '–' : formatAgo(rule.lastEvalAt, now)),
    },
  ];
  return (
    <TableScroll>
      <DataTable columns={columns} rows={rules} rowKey={(rule) => rule.id} rowTestId="rule-row" stackOnPhone />
    </TableScroll>
  );
}

function thresholdOf(rule: AlertRule, threshold: number | null): string {
  return thresholdText(rule.metric as Metric, rule.comparator as Comparator, threshold);
}
