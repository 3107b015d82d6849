import { formatDay, formatHourMinute } from '../format.ts';
import { PRESETS, rangeParams, resolveRange, type TimeRange } from '../time-range.ts';
import type { Patch } from '../url-state.ts';
import { CustomRange } from './CustomRange.tsx';

interface RangePickerProps {
  range: TimeRange;
  onChange: (patch: Patch) => void;
}

function describeWindow(range: { from: number; to: number }): string {
  const sameDay = formatDay(range.from) === formatDay(range.to - 1);
  const to = sameDay ? formatHourMinute(range.to) : `${formatDay(range.to)} ${formatHourMinute(range.to)}`;
  return `${formatDay(range.from)} ${formatHourMinute(range.from)} – ${to} UTC`;
}

/**
 * Presets relative to now, or an absolute window: one a shared link fixed, "Pin" made of a preset, or typed after
 * "Custom".
 */
export function RangePicker({ range, onChange }: RangePickerProps) {
  const preset = 'preset' in range ? range.preset : null;
  return (
    <div className="range-picker">
      <fieldset className="segmented" aria-label="Time range">
        {PRESETS.map((option) => (
          <button
            key={option}
            type="button"
            aria-pressed={preset === option}
            onClick={() => onChange(rangeParams({ preset: option }))}
          >
            {option}
          </button>
        ))}
        <CustomRange range={range} onChange={onChange} />
      </fieldset>
      {'preset' in range ? (
        <button
          type="button"
          className="quiet"
          title="Fix this window in the address, so that a shared link shows exactly this data"
          onClick={() => onChange(rangeParams(resolveRange(range, Date.now())))}
        >
          Pin
        </button>
      ) : (
        <span className="window-chip" data-testid="fixed-window">
          {describeWindow(range)}
        </span>
      )}
    </div>
  );
}
