import type { UseQueryResult } from '@tanstack/react-query';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { counted, formatDateTime, formatWindow } from '../../format.ts';
import type { Preview } from '../../queries/alerts.ts';
import { cadenceText, groupText } from './alert-text.ts';
import { PreviewChart } from './PreviewChart.tsx';
import { type RuleForm, ruleFromForm } from './rule-form.ts';

const CHART_PX = 240;

/** What the rule being edited would have done over the screen's range, redrawn as the form changes. */
export function PreviewPanel({ form, query }: { form: RuleForm; query: UseQueryResult<Preview> }) {
  const rule = ruleFromForm(form);
  const num = (value: unknown) => (typeof value === 'number' ? value : null);
  const preview = query.data;
  const interval = num(rule.intervalSeconds);
  return (
    <section className="panel" data-testid="rule-preview">
      <header className="panel-head">
        <h2>Preview</h2>
        {query.isFetching ? <span className="muted small">updating…</span> : null}
        {preview === undefined ? null : (
          <span className="muted small" data-testid="preview-window">
            {formatWindow(preview.from, preview.to)}
          </span>
        )}
      </header>
      <div className="panel-body" style={{ minHeight: CHART_PX + 80 }}>
        {query.isError ? <ErrorNote error={query.error} what="the preview" /> : null}
        {preview === undefined ? (
          query.isError ? null : (
            <div className="skeleton" style={{ height: CHART_PX }} />
          )
        ) : (
          <>
            <p className="headline" data-testid="preview-summary">
              {preview.notifications === 0
                ? 'Would not have notified.'
                : `Would have notified ${counted(preview.notifications, 'time')}.`}{' '}
              <span className="muted small" data-testid="preview-cadence">
                {counted(preview.groups, 'group')}
                {interval === null ? '' : `; ${cadenceText(interval, preview.step)}`}
              </span>
            </p>
            <PreviewChart
              preview={preview}
              metric={form.metric}
              height={CHART_PX}
              thresholds={{
                warning: num(rule.warning),
                critical: num(rule.critical),
                resolve: num(rule.resolveThreshold),
              }}
            />
            {preview.transitions.length > 0 ? (
              <ul className="rows small" aria-label="Latest notifications">
                {preview.transitions
                  .filter((t) => t.notify)
                  .slice(-6)
                  .reverse()
                  .map((t) => (
                    <li key={`${t.at}-${t.group}-${t.to}`}>
                      {formatDateTime(t.at)} · {t.to === 'resolved' ? 'resolved' : (t.severity ?? 'firing')} ·{' '}
                      {groupText(form.groupBy, t.group)}
                    </li>
                  ))}
              </ul>
            ) : null}
          </>
        )}
      </div>
    </section>
  );
}
