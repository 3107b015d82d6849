import { useState } from 'react';
import { customWindow, rangeParams, resolveRange, type TimeRange, toUtcInput } from '../time-range.ts';
import type { Patch } from '../url-state.ts';

interface CustomRangeProps {
  range: TimeRange;
  onChange: (patch: Patch) => void;
}

/** Two typed UTC times instead of a preset; applied, they land in the URL as `from`/`to` like a pinned window. */
export function CustomRange({ range, onChange }: CustomRangeProps) {
  const [open, setOpen] = useState(false);
  return (
    <div className="custom-range">
      <button type="button" aria-expanded={open} onClick={() => setOpen(!open)}>
        Custom
      </button>
      {open ? (
        <CustomRangeForm
          range={range}
          onApply={(window) => {
            onChange(rangeParams(window));
            setOpen(false);
          }}
          onCancel={() => setOpen(false)}
        />
      ) : null}
    </div>
  );
}

interface CustomRangeFormProps {
  range: TimeRange;
  onApply: (window: { from: number; to: number }) => void;
  onCancel: () => void;
}

function CustomRangeForm({ range, onApply, onCancel }: CustomRangeFormProps) {
  const [initial] = useState(() => resolveRange(range, Date.now()));
  const [from, setFrom] = useState(toUtcInput(initial.from));
  const [to, setTo] = useState(toUtcInput(initial.to));
  const [fault, setFault] = useState<{ field: 'from' | 'to'; message: string } | null>(null);
  return (
    <form
      className="custom-range-form"
      aria-label="Custom time range"
      onSubmit={(event) => {
        event.preventDefault();
        const window = customWindow(from, to);
        setFault(window.ok ? null : window);
        if (window.ok) onApply(window.range);
      }}
      onKeyDown={(event) => {
        if (event.key === 'Escape') onCancel();
      }}
    >
      <UtcInput label="From (UTC)" value={from} invalid={fault?.field === 'from'} onChange={setFrom} />
      <UtcInput label="To (UTC)" value={to} invalid={fault?.field === 'to'} onChange={setTo} />
      {fault !== null ? (
        <p role="alert" className="form-fault">
          {fault.message}.
        </p>
      ) : null}
      <div className="actions">
        <button type="submit" className="primary">
          Apply
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

interface UtcInputProps {
  label: string;
  value: string;
  invalid: boolean;
  onChange: (value: string) => void;
}

/** A browser's date and time picker; its value has no zone, and the dashboard reads it as UTC. */
function UtcInput({ label, value, invalid, onChange }: UtcInputProps) {
  return (
    <label>
      <span className="muted">{label}</span>
      <input
        type="datetime-local"
        value={value}
        aria-invalid={invalid}
        onChange={(event) => onChange(event.target.value)}
      />
    </label>
  );
}
