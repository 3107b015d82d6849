import { TARGET_TYPES, type TargetType } from '../../../shared/alerts/rule.ts';
import { type FormTarget, type RuleForm, TARGET_KINDS } from './rule-form.ts';

/**
 * The rule's targets. A saved one shows where it goes (its host), never its secrets: its URL and routing key fields
 * stay empty, and what is left empty is kept when the rule is saved.
 */
export function TargetsEditor({
  form,
  set,
  failedField,
}: {
  form: RuleForm;
  set: (patch: Partial<RuleForm>) => void;
  failedField: string | null;
}) {
  const update = (index: number, patch: Partial<FormTarget>) =>
    set({ targets: form.targets.map((target, i) => (i === index ? { ...target, ...patch } : target)) });
  return (
    <fieldset className="targets">
      <legend>Notify</legend>
      {form.targets.length === 0 ? <p className="muted small">Nobody: the alert only shows here.</p> : null}
      {form.targets.map((target, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity of their own until saved
        <div key={index} className="field-row">
          <select
            aria-label="Target type"
            value={target.type}
            onChange={(event) => update(index, { type: event.target.value as TargetType })}
          >
            {TARGET_TYPES.map((type) => (
              <option key={type} value={type}>
                {TARGET_KINDS[type].label}
              </option>
            ))}
          </select>
          <input
            aria-label="Target URL"
            aria-invalid={failedField === `targets.${index}.url`}
            value={target.url}
            placeholder={
              target.id === undefined
                ? TARGET_KINDS[target.type].urlHint
                : `saved URL at ${target.host ?? 'its host'} (kept; type a new one to replace it)`
            }
            onChange={(event) => update(index, { url: event.target.value })}
          />
          {target.type === 'pagerduty' ? (
            <input
              aria-label="Routing key"
              aria-invalid={failedField === `targets.${index}.routingKey`}
              type="password"
              autoComplete="off"
              value={target.routingKey ?? ''}
              placeholder={
                target.id === undefined
                  ? 'Integration key (Events API v2)'
                  : 'saved routing key (kept; type a new one to replace it)'
              }
              onChange={(event) => update(index, { routingKey: event.target.value })}
            />
          ) : null}
          <button
            type="button"
            className="quiet"
            onClick={() => set({ targets: form.targets.filter((_, i) => i !== index) })}
          >
            Remove
          </button>
        </div>
      ))}
      <button
        type="button"
        className="quiet"
        onClick={() => set({ targets: [...form.targets, { type: 'webhook', url: '' }] })}
      >
        Add a target
      </button>
    </fieldset>
  );
}
