import { useQuery } from '@tanstack/react-query';
import type { Comparator } from '../../../shared/alerts/compare.ts';
import type { Metric } from '../../../shared/alerts/metrics.ts';
import { Link } from '../../components/Link.tsx';
import { Panel } from '../../components/Panel.tsx';
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
  return (
    <div className="table-wrap">
      <table className="table sticky-first">
        <thead>
          <tr>
            <th scope="col">Rule</th>
            <th scope="col">State</th>
            <th scope="col">Metric</th>
            <th scope="col">Per</th>
            <th scope="col">Warning</th>
            <th scope="col">Critical</th>
            <th scope="col" className="num">
              Window
            </th>
            <th scope="col">Evaluated</th>
          </tr>
        </thead>
        <tbody>
          {rules.map((rule) => {
            const state = stateOf(rule);
            const metric = rule.metric as Metric;
            const comparator = rule.comparator as Comparator;
            return (
              <tr key={rule.id} data-testid="rule-row">
                <th scope="row" className="rule-name">
                  <Link href={link(routePath({ name: 'alert_rule', id: rule.id }))}>{rule.name}</Link>
                </th>
                <td>
                  <span className={state.className} title={rule.lastError ?? undefined}>
                    {state.label}
                  </span>
                </td>
                <td>{metricLabel(metric)}</td>
                <td>{rule.groupBy === 'none' ? 'all' : rule.groupBy}</td>
                <td className="nowrap">{thresholdText(metric, comparator, rule.warning)}</td>
                <td className="nowrap">{thresholdText(metric, comparator, rule.critical)}</td>
                <td className="num">{Math.round(rule.windowSeconds / 60)} min</td>
                <td className="muted nowrap">{rule.lastEvalAt === null ? '–' : formatAgo(rule.lastEvalAt, now)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
