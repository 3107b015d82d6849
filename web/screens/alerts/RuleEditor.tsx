import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useMemo, useState } from 'react';
import { COMPARATORS, NO_DATA } from '../../../shared/alerts/compare.ts';
import { GROUP_BYS, isRatio, METRIC_INFO, METRICS } from '../../../shared/alerts/metrics.ts';
import { Choice } from '../../components/Choice.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Link } from '../../components/Link.tsx';
import { alertKeys, deleteRule, previewQuery, ruleQuery, saveRule } from '../../queries/alerts.ts';
import { ApiFailure } from '../../query-client.ts';
import { navigate } from '../../router.ts';
import { useUrl } from '../../use-url.ts';
import { PreviewPanel } from './PreviewPanel.tsx';
import {
  formFromRule,
  NEW_RULE,
  type RuleFields,
  type RuleForm,
  ruleFromForm,
  withGroupBy,
  withMetric,
} from './rule-form.ts';
import { TargetsEditor } from './TargetsEditor.tsx';

const NO_DATA_LABEL: Record<(typeof NO_DATA)[number], string> = {
  ok: 'treat as ok',
  keep_state: 'keep the last state',
  alerting: 'alert',
};

/** Create (`id` = 'new') or edit one rule, with a preview of what it would have done over the screen's range. */
export function RuleEditorScreen({ id }: { id: string }) {
  const isNew = id === 'new';
  const rule = useQuery({ ...ruleQuery(id), enabled: !isNew });
  const { link } = useUrl();
  const crumbs = (
    <nav className="crumbs" aria-label="Breadcrumb">
      <Link href={link('/alerts')}>Alerts</Link> /
    </nav>
  );
  if (!isNew && rule.data === undefined) {
    return (
      <>
        {crumbs}
        {rule.isError ? (
          <ErrorNote error={rule.error} what="the rule" onRetry={() => rule.refetch()} />
        ) : (
          <div className="skeleton" style={{ height: 480 }} />
        )}
      </>
    );
  }
  const initial = rule.data ? formFromRule(rule.data.rule as RuleFields) : NEW_RULE;
  return (
    <>
      {crumbs}
      <RuleEditor id={isNew ? null : id} initial={initial} />
    </>
  );
}

function useDebounced(value: string, ms: number): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setSettled(value), ms);
    return () => window.clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

function RuleEditor({ id, initial }: { id: string | null; initial: RuleForm }) {
  const [form, setForm] = useState(initial);
  const client = useQueryClient();
  const { link, range } = useUrl();
  // A preview needs no name: the rule is not saved, and a blank name is the first thing a new form has.
  // Debounced as text: a string compares by value, so an unchanged form settles once instead of on every render.
  // Nor targets: a half-typed URL must not stop the chart, and a preview notifies nobody.
  const previewed = { ...ruleFromForm(form), name: form.name.trim() || 'Preview', targets: [] };
  const settled = useDebounced(JSON.stringify(previewed), 400);
  const body = useMemo(() => JSON.parse(settled) as Record<string, unknown>, [settled]);
  const preview = useQuery({ ...previewQuery(body, range), placeholderData: keepPreviousData });
  const save = useMutation({
    mutationFn: () => saveRule(id, ruleFromForm(form)),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: alertKeys.all });
      navigate(link('/alerts'));
    },
  });
  const remove = useMutation({
    mutationFn: () => deleteRule(id ?? ''),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: alertKeys.all });
      navigate(link('/alerts'));
    },
  });
  const failure = save.error instanceof ApiFailure ? save.error : null;
  const set = (patch: Partial<RuleForm>) => setForm((current) => ({ ...current, ...patch }));
  const unit = isRatio(form.metric) ? '%' : '';
  const field = (name: string, label: ReactNode, input: ReactNode) => (
    // biome-ignore lint/a11y/noLabelWithoutControl: the control is passed in as `input`
    <label className={`field ${failure?.field === name ? 'field-invalid' : ''}`}>
      <span>{label}</span>
      {input}
    </label>
  );
  const numberInput = (key: keyof RuleForm, name: string, suffix = '') => (
    <span className="with-suffix">
      <input
        inputMode="decimal"
        name={name}
        value={form[key] as string}
        aria-invalid={failure?.field === name}
        onChange={(event) => set({ [key]: event.target.value })}
      />
      {suffix ? <span className="muted">{suffix}</span> : null}
    </span>
  );
  return (
    <>
      <div className="screen-head">
        <h1 className="screen-title">{id === null ? 'New alert rule' : initial.name}</h1>
      </div>
      <div className="rule-layout">
        <form
          className="panel rule-form"
          onSubmit={(event) => {
            event.preventDefault();
            save.mutate();
          }}
        >
          {field(
            'name',
            'Name',
            <input
              name="name"
              value={form.name}
              required
              maxLength={120}
              placeholder="Refusal rate of a server at 10%"
              onChange={(event) => set({ name: event.target.value })}
            />,
          )}
          {field(
            'metric',
            'Metric',
            <Choice
              name="metric"
              value={form.metric}
              options={METRICS}
              label={(metric) => METRIC_INFO[metric].label}
              onChange={(metric) => setForm(withMetric(form, metric))}
            />,
          )}
          <p className="muted small">{METRIC_INFO[form.metric].help}</p>
          <div className="field-row">
            {field(
              'groupBy',
              'One alert per',
              <Choice
                name="groupBy"
                value={form.groupBy}
                options={GROUP_BYS.filter((g) => METRIC_INFO[form.metric].groupBys.includes(g))}
                label={(g) => (g === 'none' ? 'rule (no grouping)' : g)}
                onChange={(groupBy) => setForm(withGroupBy(form, groupBy))}
              />,
            )}
            {field(
              'scope.server',
              'Only server',
              <input
                name="server"
                value={form.server}
                placeholder="all"
                onChange={(e) => set({ server: e.target.value })}
              />,
            )}
            {field(
              'scope.client',
              'Only client',
              <input
                name="client"
                value={form.client}
                placeholder="all"
                onChange={(e) => set({ client: e.target.value })}
              />,
            )}
          </div>
          <div className="field-row">
            {field(
              'comparator',
              'When the value is',
              <Choice
                name="comparator"
                value={form.comparator}
                options={COMPARATORS}
                label={(c) => c}
                onChange={(comparator) => set({ comparator })}
              />,
            )}
            {field('warning', 'Warning', numberInput('warning', 'warning', unit))}
            {field('critical', 'Critical', numberInput('critical', 'critical', unit))}
          </div>
          <div className="field-row">
            {field('windowSeconds', 'Over the last', numberInput('windowMinutes', 'windowSeconds', 'min'))}
            {field('intervalSeconds', 'Evaluate every', numberInput('intervalSeconds', 'intervalSeconds', 's'))}
          </div>
          <div className="field-row">
            {field('pendingSeconds', 'Fire after holding for', numberInput('pendingMinutes', 'pendingSeconds', 'min'))}
            {field(
              'keepFiringForSeconds',
              'Resolve after clear for',
              numberInput('keepFiringForMinutes', 'keepFiringForSeconds', 'min'),
            )}
            {field('resolveThreshold', 'Resolve only past', numberInput('resolveThreshold', 'resolveThreshold', unit))}
          </div>
          <div className="field-row">
            {field(
              'noData',
              'With no data',
              <Choice
                name="noData"
                value={form.noData}
                disabled={form.groupBy !== 'none'}
                title={form.groupBy === 'none' ? undefined : 'A group with no traffic is clear'}
                options={NO_DATA}
                label={(mode) => NO_DATA_LABEL[mode]}
                onChange={(noData) => set({ noData })}
              />,
            )}
            <label className="toggle">
              <input
                type="checkbox"
                name="enabled"
                checked={form.enabled}
                onChange={(event) => set({ enabled: event.target.checked })}
              />{' '}
              Enabled
            </label>
          </div>
          <TargetsEditor form={form} set={set} failedField={failure?.field ?? null} />
          {save.isError ? <ErrorNote error={save.error} what="the rule" action="save" /> : null}
          <div className="actions">
            <button type="submit" disabled={save.isPending}>
              {save.isPending ? 'Saving…' : id === null ? 'Create rule' : 'Save rule'}
            </button>
            <Link href={link('/alerts')}>Cancel</Link>
            {id !== null ? (
              <button
                type="button"
                className="quiet danger"
                disabled={remove.isPending}
                onClick={() => {
                  if (window.confirm(`Delete the rule "${initial.name}"? Its history stays.`)) remove.mutate();
                }}
              >
                Delete
              </button>
            ) : null}
          </div>
          {remove.isError ? <ErrorNote error={remove.error} what="the rule" action="delete" /> : null}
        </form>
        <PreviewPanel form={form} query={preview} />
      </div>
    </>
  );
}
