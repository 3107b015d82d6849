import { useQuery } from '@tanstack/react-query';
import type { Comparator } from '../../../shared/alerts/compare.ts';
import type { Metric } from '../../../shared/alerts/metrics.ts';
import { Link } from '../../components/Link.tsx';
import { Panel } from '../../components/Panel.tsx';
import { formatAgo } from '../../format.ts';
import { alertsQuery } from '../../queries/alerts.ts';
import { routePath } from '../../router.ts';
import { useUrl } from '../../use-url.ts';
import { type AlertFacts, clearingText, formatMetricValue, groupText, severityThreshold } from './alert-text.ts';

/**
 * Alerts firing or pending now, all of them or those about one server: the first thing on the overview and on a
 * server's page when anything is wrong.
 */
export function FiringAlerts({
  server = null,
  limit = 5,
  linkToRules = true,
  title = 'Alerts',
}: {
  server?: string | null;
  title?: string;
  /** Instances shown; the rest are one link away. */
  limit?: number;
  linkToRules?: boolean;
}) {
  const { link } = useUrl();
  const query = useQuery(alertsQuery(server));
  const now = Date.now();
  return (
    <Panel
      title={title}
      what="the alerts"
      query={query}
      minHeight={48}
      testId="firing-alerts"
      isEmpty={(data) => data.alerts.length === 0}
      empty={server === null ? 'No alert is firing or pending.' : 'No alert about this server is firing or pending.'}
      actions={linkToRules ? <Link href={link('/alerts')}>Rules and history →</Link> : null}
    >
      {(data) => (
        <>
          <ul className="alert-rows">
            {data.alerts.slice(0, limit).map((alert) => {
              const facts: AlertFacts = {
                ...alert,
                metric: alert.metric as Metric,
                comparator: alert.comparator as Comparator,
              };
              const clearing = clearingText(facts);
              return (
                <li key={`${alert.ruleId}\u0000${alert.group}`} data-testid="alert-row">
                  <span className={`pill ${alert.state === 'firing' ? 'pill-firing' : 'pill-warn'}`}>
                    {alert.state === 'firing' ? (alert.severity ?? 'firing') : `pending ${alert.severity ?? ''}`}
                  </span>
                  <Link href={link(routePath({ name: 'alert_rule', id: alert.ruleId }))}>{alert.ruleName}</Link>
                  <span className="muted">
                    {groupText(alert.groupBy, alert.group)} · {formatMetricValue(facts.metric, alert.value)} (
                    <span data-testid="alert-threshold">{severityThreshold(facts)}</span>) · began{' '}
                    {formatAgo(alert.since, now)}
                  </span>
                  {clearing === null ? null : (
                    <span className="alert-clearing small" data-testid="alert-clearing">
                      {clearing}
                    </span>
                  )}
                </li>
              );
            })}
          </ul>
          {data.alerts.length > limit ? (
            <p className="panel-foot">
              <Link href={link('/alerts')}>and {data.alerts.length - limit} more →</Link>
            </p>
          ) : null}
        </>
      )}
    </Panel>
  );
}
